/**
 * Each outgoing copy of a value is scanned for secrets at most once, and a
 * large text the call has already masked is not scanned again: on a guarded
 * echo, the redaction step scans the reply's text and the audit entry's
 * argument (the same text) reuses that scan; a tool whose result differs
 * from its argument has each scanned once. A scan is counted where the
 * scanner starts: it encodes the whole text into its byte buffer
 * (units.ts), once per scan, with `TextEncoder.encodeInto`; nothing else on
 * the path encodes exactly that text.
 */

import assert from "node:assert/strict";
import { createServer, defineTool } from "../../../mod.ts";
import { type AuditSink, createGuardrails, type GuardrailsConfig } from "../../../guardrails.ts";
import { MemoryTransport } from "../../../testing.ts";
import { request } from "../../_helpers/helpers.ts";
import { memorySink } from "../../_helpers/guarded_desk.ts";
import { scansOf } from "../../_helpers/scan_counter.ts";

/** A text no preset masks, large enough that no other path encodes it by chance. */
const TEXT = "plain words and numbers 0123456789, nothing secret here. ".repeat(4096);

async function echoScans(
  policy: (audit: AuditSink) => GuardrailsConfig,
  text = TEXT,
  reply: (text: string) => string = (given) => given,
) {
  const { sink, entries } = memorySink();
  const server = createServer({
    name: "echo",
    version: "1.0.0",
    log: () => {},
    guardrails: createGuardrails(policy(sink)),
    tools: [defineTool({
      name: "echo",
      description: "Returns its text",
      inputSchema: { type: "object", properties: { text: { type: "string" } } },
      handler: ({ text }) => reply(String(text)),
    })],
  });
  const transport = new MemoryTransport([
    request(1, "tools/call", { name: "echo", arguments: { text } }),
  ]);
  const scans = await scansOf(text, () => server.connect(transport));
  await server.close();
  return { scans, entries, replies: JSON.stringify(transport.replies) };
}

Deno.test("a guarded echo scans its text once: the audit entry reuses the reply's scan", async () => {
  const { scans, entries, replies } = await echoScans((audit) => ({
    redact: { presets: true },
    audit,
  }));
  assert.ok(replies.includes(TEXT), "the reply carries the text whole");
  assert.equal(entries.length, 1);
  assert.deepEqual(entries[0]?.arguments, { text: TEXT });
  assert.equal(scans, 1);
});

Deno.test("a result that differs from the argument has each copy scanned once", async () => {
  const { scans, entries } = await echoScans(
    (audit) => ({ redact: { presets: true }, audit }),
    TEXT,
    (text) => text.slice(1),
  );
  assert.deepEqual(entries[0]?.arguments, { text: TEXT });
  // The argument's copy once; the result, another string, is scanned on its own.
  assert.equal(scans, 1);
  const result = await scansOf(TEXT.slice(1), async () => {
    await echoScans((audit) => ({ redact: { presets: true }, audit }), TEXT, (t) => t.slice(1));
  });
  assert.equal(result, 1);
});

Deno.test("a secret in an echoed large text is masked in the reply and in the audit entry", async () => {
  const secret = "ghp_R8mZ2kQ7vX4nB1cT6yH3jW9pL5sD0fGaE2uK";
  const text = `${TEXT}token ${secret} ${TEXT}`;
  const { scans, entries, replies } = await echoScans(
    (audit) => ({ redact: { presets: true }, audit }),
    text,
  );
  assert.equal(scans, 1);
  assert.ok(!replies.includes(secret) && replies.includes("[REDACTED]"));
  const logged = JSON.stringify(entries[0]?.arguments);
  assert.ok(!logged.includes(secret) && logged.includes("[REDACTED]"));
});

Deno.test("redaction alone scans the reply once; the audit log alone its entry once", async () => {
  assert.equal((await echoScans(() => ({ redact: { presets: true } }))).scans, 1);
  const audited = await echoScans((audit) => ({ audit }));
  assert.equal(audited.entries.length, 1);
  assert.equal(audited.scans, 1);
});
