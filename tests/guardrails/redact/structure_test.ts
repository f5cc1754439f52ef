/**
 * Context from structure, encoded secrets and split secrets: a keyword in a
 * sibling field or the key path, base64 and URL-encoded runs, and a secret
 * cut across two content blocks or fields, which the audit log records as
 * `redaction.split_secrets`. Samples come from the other scanner's rule set
 * (tests/_helpers/redact_eval_secrets.ts), not from Warden's table.
 */

import assert from "node:assert/strict";
import { createServer, defineTool } from "../../../mod.ts";
import { callbackAuditSink, createGuardrails } from "../../../guardrails.ts";
import { compileRedactor, redactText } from "../../../src/guardrails/redact/engine.ts";
import { redactResult } from "../../../src/guardrails/redact/guardrail.ts";
import { redactValue } from "../../../src/guardrails/redact/value.ts";
import { foreignSecrets } from "../../_helpers/redact_eval_secrets.ts";
import { connectPeer } from "../../_helpers/peer.ts";

const M = "[REDACTED]";
const redactor = compileRedactor();
const HEX = "3f9a8b7c6d5e4f30a1b2c3d4e5f60718";
const RANDOM = "Zq9xL2m4Kp7Rw3Tn8Vb5Yc1Hd6Jf0Gs2";

Deno.test("redactValue() takes a keyword-bound rule's keyword from a sibling field or the key path", () => {
  const masked = (value: unknown) => JSON.stringify(redactValue(redactor, value));
  for (const key of ["integration", "service", "provider", "name", "type", "vendor"]) {
    assert.ok(!masked({ [key]: "datadog", value: HEX }).includes(HEX), key);
  }
  assert.ok(!masked({ datadog: { value: HEX, region: "eu" } }).includes(HEX));
  assert.ok(!masked({ service: "stripe", kind: "api key", data: RANDOM }).includes(RANDOM));
  // Ids, digests, versions and URLs stay, whatever the object is about; so does a plain record.
  const kept = [
    { integration: "datadog", id: HEX },
    { integration: "github", sha: HEX, commit: HEX },
    { provider: "stripe", integrity: `sha512-${RANDOM}` },
    { service: "billing", value: HEX },
    { name: "@octokit/auth-token", version: "^2.4.0", shasum: HEX },
  ];
  for (const value of kept) assert.equal(redactValue(redactor, value), value);
});

Deno.test("redactText() masks a base64 or URL-encoded run that decodes to a secret", async () => {
  const { samples } = await foreignSecrets(41, 1);
  const missed: string[] = [];
  let checked = 0;
  for (const sample of samples) {
    if (sample.kind === "identifier") continue;
    const line = `${sample.label.toUpperCase()}=${sample.secret}`;
    for (
      const text of [
        `data:\n  config: ${btoa(line)}`,
        `next=${encodeURIComponent(`https://app.example/cb?${line}`)}`,
      ]
    ) {
      // Found in the decoded line just as the line itself would be.
      if (redactText(redactor, line).includes(sample.secret)) continue;
      if (!redactText(redactor, text).includes(M)) missed.push(`${sample.rule}: ${text}`);
      checked++;
    }
  }
  assert.ok(checked > 300, `${checked}`);
  assert.deepEqual(missed, []);
  // Base64 of prose and of binary, and URL-encoded words, stay as they are.
  const prose = btoa("the order shipped on time and the invoice was paid after review");
  const binary = btoa(String.fromCharCode(...Array.from({ length: 96 }, (_, i) => (i * 37) % 256)));
  for (const text of [prose, binary, `q=${encodeURIComponent("red shoes & blue hats")}`]) {
    assert.equal(redactText(redactor, `x ${text} y`), `x ${text} y`);
  }
});

Deno.test("redactText() decodes base64 in either alphabet, padded or not, among secrets found already", async () => {
  const { samples } = await foreignSecrets(47, 1);
  // A token the main pass masks, so each encoded run is looked up among found spans.
  const found = `ghp_${"aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6"}`;
  const missed: string[] = [];
  let checked = 0;
  for (const sample of samples) {
    if (sample.kind === "identifier") continue;
    const line = `${sample.label.toUpperCase()}=${sample.secret}`;
    if (redactText(redactor, line).includes(sample.secret)) continue;
    const standard = btoa(line);
    const urlSafe = standard.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/u, "");
    for (const encoded of [standard, urlSafe, standard.replace(/=+$/u, "")]) {
      const text = `${found} then ${encoded} and ${found}`;
      const masked = redactText(redactor, text);
      if (masked.includes(encoded) || masked.includes(found)) {
        missed.push(`${sample.rule}: ${text}`);
      }
      checked++;
    }
  }
  assert.ok(checked > 300, `${checked}`);
  assert.deepEqual(missed, []);
  // A secret's base64 with one byte that is not text is binary, not an encoded credential.
  const line = "GITHUB_TOKEN=Zq9xL2m4Kp7Rw3Tn8Vb5Yc1Hd6Jf0Gs2";
  const binary = btoa(`${line.slice(0, 20)}\u0001${line.slice(20)}`);
  assert.equal(redactText(redactor, `x ${binary} y`), `x ${binary} y`);
});

Deno.test("redactResult() masks a secret split across two blocks or fields in both parts", async () => {
  const { samples } = await foreignSecrets(43, 1);
  let checked = 0;
  // Secrets the redactor finds whole (its misses are the evaluation's business, not this test's).
  const whole = samples.filter((s) =>
    s.kind === "self" && s.secret.length >= 24 &&
    !redactText(redactor, ` ${s.secret} `).includes(s.secret)
  );
  for (const sample of whole) {
    for (const cut of [8, Math.floor(sample.secret.length / 2), sample.secret.length - 8]) {
      const [a, b] = [sample.secret.slice(0, cut), sample.secret.slice(cut)];
      const result = redactResult(redactor, "tool", {
        content: [{ type: "text", text: `first: ${a}` }, { type: "text", text: `${b} rest` }],
        structuredContent: { head: a, tail: b, n: 1 },
      });
      const out = JSON.stringify(result);
      // Neither half survives, but a first half with no digit, which is a name or a prefix
      // (`_gitlab_` of `_gitlab_session=…`), not key material.
      const kept = out.includes(a) && /\d/u.test(a) || out.includes(b);
      assert.ok(!kept, `${sample.rule} cut at ${cut}: ${out}`);
      checked++;
    }
  }
  assert.ok(checked > 100, `${checked}`);
  // Two blocks that only sit side by side are left alone.
  const plain = {
    content: [{ type: "text", text: "order 42" }, { type: "text", text: "shipped" }],
  };
  assert.equal(redactResult(redactor, "tool", plain), plain);
});

Deno.test("a split secret is masked on the wire and counted in the audit entry, in both eras", async () => {
  const audited: Record<string, unknown>[] = [];
  const token = "ghp_R8mZ2kQ7vX4nB1cT6yH3jW9pL5sD0fGaE2uK";
  const server = createServer({
    name: "split",
    version: "1.0.0",
    guardrails: createGuardrails({
      redact: {},
      audit: callbackAuditSink((entry) => void audited.push({ ...entry })),
    }),
    tools: [defineTool({
      name: "halves",
      description: "Returns a token in two blocks",
      inputSchema: { type: "object" },
      handler: () => ({
        content: [{ type: "text", text: token.slice(0, 20) }, {
          type: "text",
          text: token.slice(20),
        }],
      }),
    })],
  });
  const peer = await connectPeer(server);
  const modern = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  const replies = [
    await peer.request("tools/call", { name: "halves", arguments: {} }),
    await peer.request("tools/call", { name: "halves", arguments: {}, _meta: modern }),
  ];
  await peer.close();
  await server.close();
  const wire = JSON.stringify(replies);
  assert.ok(!wire.includes(token.slice(0, 20)) && !wire.includes(token.slice(20)), wire);
  const calls = audited.filter((entry) => entry.name === "halves");
  assert.equal(calls.length, 2);
  for (const entry of calls) assert.deepEqual(entry.redaction, { split_secrets: 1 });
});

Deno.test("a result that carries a completion field besides its content has its content masked too", () => {
  const redactor = compileRedactor();
  const token = "ghp_R8mZ2kQ7vX4nB1cT6yH3jW9pL5sD0fGaE2uK";
  const completion = { values: [token] };
  const tool = redactResult(redactor, "tool", {
    content: [{ type: "text", text: token }],
    completion,
  });
  assert.equal(JSON.stringify(tool).includes(token), false, JSON.stringify(tool));
  const resource = redactResult(redactor, "resource", {
    contents: [{ uri: "test://a", text: token }],
    completion,
  });
  assert.equal(JSON.stringify(resource).includes(token), false, JSON.stringify(resource));
  // A completion/complete result alone keeps being masked as before.
  const alone = redactResult(redactor, "prompt", { completion });
  assert.equal(JSON.stringify(alone).includes(token), false);
});
