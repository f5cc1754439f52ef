/**
 * Both protocol eras on one real stdio process: the conformance fixture run
 * with `--stdio`, fed modern requests before and after an `initialize`,
 * interleaved with legacy ones, including a multi round-trip request and a
 * subscription. Every stdout line must be a protocol message.
 */

import assert from "node:assert/strict";
import { isRecord, within } from "../_helpers/helpers.ts";
import { spawnServer } from "../_helpers/subprocess.ts";

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "stdio-test", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
};

function resultOf(reply: Record<string, unknown>): Record<string, unknown> {
  assert.ok(isRecord(reply.result), `expected a result: ${JSON.stringify(reply)}`);
  return reply.result;
}

Deno.test("one stdio process serves 2026-07-28 requests before and after a legacy initialize", async () => {
  const server = spawnServer(["run", "examples/conformance.ts", "--stdio"]);
  try {
    // Modern first: no handshake needed.
    const discover = resultOf(await server.call("server/discover", { _meta: META }));
    assert.ok((discover.supportedVersions as string[]).includes("2026-07-28"));
    assert.equal(discover.resultType, "complete");
    // A legacy request before initialize keeps its long-standing answer.
    resultOf(await server.call("tools/list"));
    await server.initialize();
    // After initialize, a modern request is still served on its own _meta alone.
    const first = resultOf(
      await server.call("tools/call", {
        name: "test_input_required_result_elicitation",
        arguments: {},
        _meta: META,
      }),
    );
    assert.equal(first.resultType, "input_required");
    const done = resultOf(
      await server.call("tools/call", {
        name: "test_input_required_result_elicitation",
        arguments: {},
        _meta: META,
        requestState: first.requestState,
        inputResponses: { user_name: { action: "accept", content: { name: "Ada" } } },
      }),
    );
    assert.deepEqual(done.content, [{ type: "text", text: "Hello, Ada!" }]);
    // A legacy call on the session, then a modern one with an unknown revision.
    assert.equal(resultOf(await server.call("ping")).resultType, undefined);
    const refused = await server.call("tools/list", {
      _meta: { ...META, "io.modelcontextprotocol/protocolVersion": "2099-01-01" },
    });
    assert.equal((refused.error as { code: number }).code, -32022);
    // The legacy session's capabilities are not borrowed by a modern request.
    const bare = await server.call("tools/call", {
      name: "test_missing_capability",
      arguments: {},
      _meta: { ...META, "io.modelcontextprotocol/clientCapabilities": {} },
    });
    assert.equal((bare.error as { code: number }).code, -32021);

    // A subscription: acknowledged first, then a tools list change, then ended by cancellation.
    await server.send({
      jsonrpc: "2.0",
      id: "listen-1",
      method: "subscriptions/listen",
      params: { _meta: META, notifications: { toolsListChanged: true } },
    });
    resultOf(
      await server.call("tools/call", {
        name: "test_trigger_tool_change",
        arguments: {},
        _meta: META,
      }),
    );
    await server.send({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: "listen-1" },
    });
    await server.closeInput();
    const status = await within(server.status, 10_000, "the process to exit after EOF");
    assert.equal(status.code, 0);
    await server.pipesDone();
    const messages = server.stdout.map((line) => JSON.parse(line));
    const tagged = messages.filter((m) =>
      isRecord(m.params) && isRecord(m.params._meta) &&
      m.params._meta["io.modelcontextprotocol/subscriptionId"] === "listen-1"
    );
    assert.deepEqual(tagged.map((m) => m.method), [
      "notifications/subscriptions/acknowledged",
      "notifications/tools/list_changed",
    ]);
    // A cancelled subscription gets no reply.
    assert.ok(!messages.some((m) => m.id === "listen-1"));
  } finally {
    await server.cleanUp();
  }
});
