/**
 * Each outgoing copy of a value is scanned for secrets once: on a guarded
 * echo, the reply's text once (by the redaction step) and the audit entry's
 * argument once (by the server's masker), and no channel scans either again.
 * A scan is counted where the scanner starts: it encodes the whole text into
 * its byte buffer (units.ts), once per scan, with `TextEncoder.encodeInto`;
 * nothing else on the path encodes exactly that text.
 */

import assert from "node:assert/strict";
import { createServer, defineTool } from "../../../mod.ts";
import { type AuditSink, createGuardrails, type GuardrailsConfig } from "../../../guardrails.ts";
import { MemoryTransport } from "../../../testing.ts";
import { request } from "../../_helpers/helpers.ts";
import { memorySink } from "../../_helpers/guarded_desk.ts";

/** Runs `body` while counting the encodings of exactly `text`. */
async function scansOf(text: string, body: () => Promise<void>): Promise<number> {
  const original = TextEncoder.prototype.encodeInto;
  let scans = 0;
  TextEncoder.prototype.encodeInto = function (source, destination) {
    if (source === text) scans++;
    return original.call(this, source, destination);
  };
  try {
    await body();
  } finally {
    TextEncoder.prototype.encodeInto = original;
  }
  return scans;
}

/** A text no preset masks, large enough that no other path encodes it by chance. */
const TEXT = "plain words and numbers 0123456789, nothing secret here. ".repeat(4096);

async function echoScans(policy: (audit: AuditSink) => GuardrailsConfig) {
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
      handler: ({ text }) => String(text),
    })],
  });
  const transport = new MemoryTransport([
    request(1, "tools/call", { name: "echo", arguments: { text: TEXT } }),
  ]);
  const scans = await scansOf(TEXT, () => server.connect(transport));
  await server.close();
  const reply = JSON.stringify(transport.replies);
  assert.ok(reply.includes(TEXT), "the reply carries the text whole");
  return { scans, entries };
}

Deno.test("a guarded echo scans the reply's copy once and the audit entry's copy once", async () => {
  const { scans, entries } = await echoScans((audit) => ({ redact: { presets: true }, audit }));
  assert.equal(entries.length, 1);
  assert.deepEqual(entries[0]?.arguments, { text: TEXT });
  assert.equal(scans, 2);
});

Deno.test("redaction alone scans the reply once; the audit log alone its entry once", async () => {
  assert.equal((await echoScans(() => ({ redact: { presets: true } }))).scans, 1);
  const audited = await echoScans((audit) => ({ audit }));
  assert.equal(audited.entries.length, 1);
  assert.equal(audited.scans, 1);
});
