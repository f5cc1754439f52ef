/**
 * Protocol revision negotiation: each session at the revision it offered,
 * side by side on one server, with the behaviour of that revision, and a
 * session that never negotiated.
 */

import assert from "node:assert/strict";
import { createServer, ErrorCode, type RequestContext } from "../../mod.ts";
import { errorOf, initialize, isRecord, request } from "../_helpers/helpers.ts";
import { ADD, connectPeer } from "../_helpers/revision_peer.ts";

Deno.test("createServer() negotiates each of the four revisions per session, side by side", async () => {
  const server = createServer({ name: "s", version: "1", tools: [ADD], log: () => {} });
  const versions = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2026-01-01"];
  const peers = await Promise.all(versions.map((version) => connectPeer(server, version)));
  try {
    assert.deepEqual(peers.map((peer) => peer.negotiated), [
      "2025-11-25",
      "2025-06-18",
      "2025-03-26",
      "2024-11-05",
      "2025-11-25", // an unknown offer gets the newest
    ]);
    const calls = await Promise.all(
      peers.map((peer) => peer.call("tools/call", { name: "add", arguments: { a: 1, b: "2" } })),
    );
    // Only sessions at 2025-11-25 turn invalid arguments into a result.
    assert.deepEqual(
      calls.map((reply) => isRecord(reply.result) ? "result" : errorOf(reply).code),
      ["result", -32602, -32602, -32602, "result"],
    );
    // Batches stay a 2025-03-26 feature, whatever the other sessions negotiated.
    const batches = await Promise.all(
      peers.map((peer) => peer.batch([{ jsonrpc: "2.0", id: "b1", method: "ping" }])),
    );
    assert.deepEqual(
      batches.map((reply) => Array.isArray(reply) ? "answered" : errorOf(reply).code),
      [-32600, -32600, "answered", -32600, -32600],
    );
  } finally {
    await Promise.all(peers.map((peer) => peer.close()));
  }
});

Deno.test("a session that never negotiated behaves as 2025-06-18", async () => {
  let seen: string | undefined;
  const server = createServer({
    name: "s",
    version: "1",
    tools: [ADD, {
      name: "which",
      description: "Reports the revision",
      inputSchema: { type: "object" },
      handler: (_args: Record<string, unknown>, ctx: RequestContext) => {
        seen = ctx.client.protocolVersion;
        return seen;
      },
    }],
  });
  await server.handle(request(1, "tools/call", { name: "which" }));
  assert.equal(seen, "2025-06-18");
  const reply = await server.handle(request(2, "tools/call", { name: "add", arguments: {} }));
  assert.equal(errorOf(reply).code, ErrorCode.InvalidParams);
  await server.handle(initialize(3, "2025-11-25"));
  await server.handle(request(4, "tools/call", { name: "which" }));
  assert.equal(seen, "2025-11-25");
});
