/**
 * Invalid tool arguments as an `isError` result (SEP-1303) for sessions at
 * 2025-11-25, and as a -32602 error for older ones; both audited as invalid.
 */

import assert from "node:assert/strict";
import { createServer, ErrorCode } from "../../mod.ts";
import { auditLog, callbackAuditSink } from "../../guardrails.ts";
import type { AuditEntry } from "../../src/guardrails/audit/audit.ts";
import { errorOf, initialize, request, resultOf } from "../_helpers/helpers.ts";
import { ADD, connectPeer, onlyText } from "../_helpers/revision_peer.ts";

Deno.test("tools/call validation failures are an isError result under 2025-11-25, -32602 before", async () => {
  const entries: AuditEntry[] = [];
  const server = createServer({
    name: "s",
    version: "1",
    tools: [ADD],
    guardrails: [auditLog({ sink: callbackAuditSink((entry) => void entries.push(entry)) })],
  });
  const bad = { name: "add", arguments: { a: 1.5 } };
  const newest = await connectPeer(server, "2025-11-25");
  const older = await connectPeer(server, "2025-06-18");
  try {
    const result = resultOf(await newest.call("tools/call", bad));
    assert.deepEqual(result, {
      content: [{
        type: "text",
        text: "Invalid arguments for tool 'add':\n" +
          "- $.a: must be integer\n" +
          "- $: must have required property 'b'",
      }],
      isError: true,
    });
    const error = errorOf(await older.call("tools/call", bad));
    assert.equal(error.code, ErrorCode.InvalidParams);
    assert.deepEqual(error.data, {
      violations: [
        { path: "$.a", keyword: "type", message: "must be integer" },
        { path: "$", keyword: "required", message: "must have required property 'b'" },
      ],
    });
    // Valid arguments are unaffected either way.
    const good = { name: "add", arguments: { a: 2, b: 3 } };
    assert.equal(onlyText(resultOf(await newest.call("tools/call", good))), "5");
    assert.equal(onlyText(resultOf(await older.call("tools/call", good))), "5");
  } finally {
    await newest.close();
    await older.close();
    await server.close();
  }
  assert.deepEqual(
    entries.map((e) => [e.client?.name, e.outcome, e.error_code]),
    [
      ["peer-2025-11-25", "invalid", null],
      ["peer-2025-06-18", "invalid", -32602],
      ["peer-2025-11-25", "ok", null],
      ["peer-2025-06-18", "ok", null],
    ],
  );
});

Deno.test("an isError validation result lists at most 20 violations and counts the rest", async () => {
  const properties = Object.fromEntries(
    Array.from({ length: 25 }, (_, i) => [`f${i}`, { type: "string" }] as const),
  );
  const server = createServer({
    name: "s",
    version: "1",
    tools: [{
      name: "wide",
      description: "Many fields",
      inputSchema: { type: "object", properties },
      handler: () => "ok",
    }],
  });
  await server.handle(initialize(0, "2025-11-25"));
  const args = Object.fromEntries(Object.keys(properties).map((key) => [key, 0]));
  const text = onlyText(
    resultOf(await server.handle(request(1, "tools/call", { name: "wide", arguments: args }))),
  );
  const lines = text.split("\n");
  assert.equal(lines.length, 22);
  assert.equal(lines[1], "- $.f0: must be string");
  assert.equal(lines[21], "- and 5 more");
});
