/**
 * Interoperability with the official TypeScript SDK v2 client
 * (`@modelcontextprotocol/client`) pinned to revision 2026-07-28: over stdio
 * (the desk fixture as a child process) and over Streamable HTTP (`server.fetch`
 * behind `Deno.serve` on a free 127.0.0.1 port) it lists, calls, reads, gets a
 * prompt, answers an MRTR elicitation, listens for changes and sees Warden's
 * errors as its typed errors.
 */

import assert from "node:assert/strict";
import { defineTool } from "../../mod.ts";
import { isRecord, within } from "../_helpers/helpers.ts";
import {
  Client,
  CLIENT_INFO,
  clientWith,
  CONFIRM,
  type ElicitRequest,
  httpDesk,
  MissingRequiredClientCapabilityError,
  MODERN_REVISION,
  PINNED,
  ProtocolError,
  ResourceNotFoundError,
  stdioDesk,
  StreamableHTTPClientTransport,
} from "../_helpers/sdk_v2.ts";

/**
 * Everything a pinned client does on a connected desk: list, call, read, get, an MRTR
 * elicitation round trip and a tools subscription, with `changeTools` changing the tool list
 * on the server side while the subscription is open.
 */
async function exerciseDesk(
  client: Client,
  asked: readonly ElicitRequest["params"][],
  changeTools: () => Promise<string>,
): Promise<void> {
  assert.equal(client.getProtocolEra(), "modern");
  assert.equal(client.getNegotiatedProtocolVersion(), MODERN_REVISION);
  assert.deepEqual(client.getServerVersion(), { name: "sdk-v2-desk", version: "1.2.0" });
  assert.equal(client.getInstructions(), "A help desk for the SDK v2 interop tests.");
  assert.ok(client.getDiscoverResult()?.supportedVersions.includes(MODERN_REVISION));

  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((tool) => tool.name), ["add", "cancel_ticket", "unlock_escalate"]);
  const sum = await client.callTool({ name: "add", arguments: { a: 2, b: 40 } });
  assert.deepEqual(sum.structuredContent, { sum: 42 });
  assert.notEqual(sum.isError, true);

  const { contents } = await client.readResource({ uri: "desk://readme" });
  assert.deepEqual(contents, [{
    uri: "desk://readme",
    mimeType: "text/markdown",
    text: "# Desk\nOpen tickets: 3\n",
  }]);

  const prompt = await client.getPrompt({ name: "greet", arguments: { who: "Ada" } });
  assert.deepEqual(prompt.messages, [{
    role: "user",
    content: { type: "text", text: "Say hello to Ada" },
  }]);

  // MRTR: the first tools/call ends input_required, the SDK answers through its elicitation
  // handler and retries with inputResponses + requestState; only the final result surfaces.
  assert.equal(asked.length, 0);
  const cancelled = await client.callTool({ name: "cancel_ticket", arguments: { ticket: "T-7" } });
  assert.deepEqual(cancelled.content, [{ type: "text", text: "ticket T-7 cancelled: duplicate" }]);
  assert.equal(asked.length, 1);
  const [ask] = asked;
  assert.ok(ask !== undefined && "requestedSchema" in ask, "a form elicitation");
  assert.equal(ask.message, "Cancel ticket T-7?");
  assert.deepEqual(ask.requestedSchema.required, ["confirm"]);

  // A subscription: the notification arrives on the listen stream, and only after listen().
  const changes: unknown[] = [];
  const changed = Promise.withResolvers<void>();
  client.setNotificationHandler("notifications/tools/list_changed", (notification) => {
    changes.push(notification.params);
    changed.resolve();
  });
  const subscription = await within(
    client.listen({ toolsListChanged: true }),
    10_000,
    "the subscription to be acknowledged",
  );
  try {
    assert.equal(subscription.honoredFilter.toolsListChanged, true);
    assert.equal(changes.length, 0);
    const added = await changeTools();
    await within(changed.promise, 10_000, "notifications/tools/list_changed");
    // One notification, tagged with the subscription it belongs to (the listen request's id).
    assert.equal(changes.length, 1);
    const [change] = changes;
    assert.ok(isRecord(change) && isRecord(change._meta), "the notification carries _meta");
    assert.equal(typeof change._meta["io.modelcontextprotocol/subscriptionId"], "string");
    const listed = await client.listTools(undefined, { cacheMode: "refresh" });
    assert.ok(listed.tools.some((tool) => tool.name === added), `${added} is listed`);
  } finally {
    await subscription.close();
  }
  assert.equal(await subscription.closed, "local");
}

Deno.test("SDK v2 pinned to 2026-07-28 works with the desk over stdio", async () => {
  const desk = stdioDesk();
  let received: string[][] = [];
  const { client, asked } = clientWith(PINNED, CONFIRM);
  try {
    await within(client.connect(desk.transport), 20_000, "the SDK v2 client to connect");
    await exerciseDesk(client, asked, async () => {
      const unlocked = await client.callTool({ name: "unlock_escalate", arguments: {} });
      assert.deepEqual(unlocked.content, [{ type: "text", text: "escalate is available" }]);
      return "escalate";
    });
  } finally {
    received = await desk.finish(client);
  }
  const [probe, session] = received;
  // The SDK probes on a disposable sibling process; the session child gets no initialize and no
  // server/discover, and the elicitation took a second tools/call carrying the answer.
  assert.deepEqual(probe, ["server/discover"]);
  assert.deepEqual(session, [
    "tools/list",
    "tools/call",
    "resources/read",
    "prompts/get",
    "tools/call",
    "tools/call",
    "subscriptions/listen",
    "tools/call",
    "tools/list",
    "notifications/cancelled",
  ]);
});

Deno.test("SDK v2 pinned to 2026-07-28 works with the desk over Streamable HTTP", async () => {
  const http = httpDesk();
  const { client, asked } = clientWith(PINNED, CONFIRM);
  const errors: unknown[] = [];
  client.onerror = (error) => errors.push(error);
  try {
    await within(
      client.connect(new StreamableHTTPClientTransport(http.url)),
      10_000,
      "the SDK v2 client to connect",
    );
    let added: ReturnType<typeof http.desk.server.tool> | undefined;
    await exerciseDesk(client, asked, () => {
      // A registration handle, as a server author would use one.
      added = http.desk.server.tool(defineTool({
        name: "reopen",
        description: "Reopens a ticket",
        inputSchema: { type: "object", properties: {} },
        handler: () => "reopened",
      }));
      return Promise.resolve("reopen");
    });
    assert.equal(added?.remove(), true);
    const { tools } = await client.listTools(undefined, { cacheMode: "refresh" });
    assert.ok(!tools.some((tool) => tool.name === "reopen"));
  } finally {
    await client.close();
    await http.stop();
  }
  assert.deepEqual(errors, []);
  assert.deepEqual(http.posts.map((post) => post.method), [
    "server/discover",
    "tools/list",
    "tools/call",
    "resources/read",
    "prompts/get",
    "tools/call",
    "tools/call",
    "subscriptions/listen",
    "tools/list",
    // Closing the subscription aborts its stream and also POSTs notifications/cancelled, which
    // the revision does not expect on HTTP; Warden accepts it (202) rather than failing the close.
    "notifications/cancelled",
    "tools/list",
  ]);
  // The elicitation's retry (the second cancel_ticket call) carried the answer and the state.
  assert.deepEqual(http.posts.map((post) => post.retryFields), [
    ...Array(6).fill([]),
    ["inputResponses", "requestState"],
    ...Array(4).fill([]),
  ]);
  for (const post of http.posts) {
    assert.equal(post.protocolVersion, MODERN_REVISION, `${post.method} carries the version`);
    assert.equal(post.sessionId, null, "no session in the modern era");
    if (!post.method.startsWith("notifications/")) {
      assert.equal(post.mcpMethod, post.method, `${post.method} carries Mcp-Method`);
    }
  }
});

Deno.test("SDK v2 pinned to 2026-07-28 hears only the resource updates it listens for over HTTP", async () => {
  const http = httpDesk();
  const { client } = clientWith(PINNED, { action: "decline" });
  try {
    await within(
      client.connect(new StreamableHTTPClientTransport(http.url)),
      10_000,
      "the SDK v2 client to connect",
    );
    const updates: unknown[] = [];
    const updated = Promise.withResolvers<void>();
    client.setNotificationHandler("notifications/resources/updated", (notification) => {
      updates.push(notification.params.uri);
      updated.resolve();
    });
    const toolChanges: unknown[] = [];
    client.setNotificationHandler("notifications/tools/list_changed", (notification) => {
      toolChanges.push(notification.params);
    });
    const subscription = await within(
      client.listen({ resourceSubscriptions: ["desk://readme"] }),
      10_000,
      "the subscription to be acknowledged",
    );
    try {
      assert.deepEqual(subscription.honoredFilter.resourceSubscriptions, ["desk://readme"]);
      // Only the kinds asked for: neither a tool-list change nor another URI reaches it.
      http.desk.server.tool(defineTool({
        name: "reopen",
        description: "Reopens a ticket",
        inputSchema: { type: "object", properties: {} },
        handler: () => "reopened",
      }));
      http.desk.server.notifyResourceUpdated("desk://other");
      http.desk.server.notifyResourceUpdated("desk://readme");
      await within(updated.promise, 10_000, "notifications/resources/updated");
      assert.deepEqual(updates, ["desk://readme"]);
      assert.deepEqual(toolChanges, []);

      // A declined elicitation still ends the call with the handler's own result.
      const kept = await client.callTool({ name: "cancel_ticket", arguments: { ticket: "T-1" } });
      assert.deepEqual(kept.content, [{ type: "text", text: "ticket T-1 kept (decline)" }]);
    } finally {
      await subscription.close();
    }
  } finally {
    await client.close();
    await http.stop();
  }
});

Deno.test("SDK v2 sees a graceful subscription end when the desk shuts down over stdio", async () => {
  const desk = stdioDesk();
  const { client } = clientWith(PINNED, CONFIRM);
  try {
    await within(client.connect(desk.transport), 20_000, "the SDK v2 client to connect");
    const subscription = await within(
      client.listen({ toolsListChanged: true }),
      10_000,
      "the subscription to be acknowledged",
    );
    const pid = desk.transport.pid;
    assert.ok(pid !== null, "the session child runs");
    Deno.kill(pid, "SIGTERM");
    // The server answers the listen request with its empty result before the pipe closes.
    assert.equal(await within(subscription.closed, 10_000, "the subscription to end"), "graceful");
  } finally {
    await desk.finish(client);
  }
});

Deno.test({
  name: "SDK v2 sees a graceful subscription end when the desk shuts down over HTTP",
  fn: async () => {
    const http = httpDesk();
    const { client } = clientWith(PINNED, CONFIRM);
    try {
      await within(
        client.connect(new StreamableHTTPClientTransport(http.url)),
        10_000,
        "the SDK v2 client to connect",
      );
      const subscription = await within(
        client.listen({ toolsListChanged: true }),
        10_000,
        "the subscription to be acknowledged",
      );
      await http.desk.server.close();
      assert.equal(
        await within(subscription.closed, 10_000, "the subscription to end"),
        "graceful",
      );
    } finally {
      await client.close();
      await http.stop();
    }
  },
});

Deno.test("SDK v2 raises its typed errors for Warden's 2026-07-28 error replies over HTTP", async () => {
  const http = httpDesk();
  // No elicitation capability declared: the call cannot ask, so it must fail with -32021.
  const client = new Client(CLIENT_INFO, {
    versionNegotiation: { mode: { pin: MODERN_REVISION } },
  });
  try {
    await within(
      client.connect(new StreamableHTTPClientTransport(http.url)),
      10_000,
      "the SDK v2 client to connect",
    );
    await assert.rejects(
      client.callTool({ name: "cancel_ticket", arguments: { ticket: "T-2" } }),
      (error: unknown) => {
        assert.ok(error instanceof MissingRequiredClientCapabilityError, `got ${error}`);
        assert.equal(error.code, -32021);
        assert.deepEqual(error.data, { requiredCapabilities: { elicitation: {} } });
        return true;
      },
    );
    await assert.rejects(client.readResource({ uri: "desk://missing" }), (error: unknown) => {
      assert.ok(error instanceof ResourceNotFoundError, `got ${error}`);
      assert.equal(error.code, -32602);
      assert.deepEqual(error.data, { uri: "desk://missing" });
      return true;
    });
    await assert.rejects(client.callTool({ name: "nope", arguments: {} }), (error: unknown) => {
      assert.ok(error instanceof ProtocolError, `got ${error}`);
      assert.equal(error.code, -32602);
      return true;
    });
  } finally {
    await client.close();
    await http.stop();
  }
  // The capability check refused the call outright: no input_required round was started.
  assert.deepEqual(
    http.posts.filter((post) => post.method === "tools/call").map((post) => post.retryFields),
    [[], []],
  );
});
