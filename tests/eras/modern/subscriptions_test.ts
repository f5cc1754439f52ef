/**
 * `subscriptions/listen` (revision 2026-07-28) on the memory transport and
 * over HTTP: the acknowledgement first, only the kinds asked for, resource
 * updates, and every way a subscription ends.
 */

import assert from "node:assert/strict";
import { defineTool, type Server } from "../../../mod.ts";
import type { Guardrail } from "../../../src/call/guardrail.ts";
import { accessPolicy, type AuditEntry, auditLog, callbackAuditSink } from "../../../guardrails.ts";
import { isRecord, MODERN, modernRequest, notification, within } from "../../_helpers/helpers.ts";
import { post, SseReader } from "../../_helpers/http_helpers.ts";
import { connectPeer, EMPTY, type Message, type Peer, testServer } from "../../_helpers/peer.ts";

const SUBSCRIPTION = "io.modelcontextprotocol/subscriptionId";

function subscriptionOf(message: Message): unknown {
  const params = message.params;
  return isRecord(params) && isRecord(params._meta) ? params._meta[SUBSCRIPTION] : undefined;
}

function listen(id: string | number, notifications: Record<string, unknown>) {
  return modernRequest(id, "subscriptions/listen", { notifications });
}

/** The next message of subscription `id`, in arrival order. */
function nextOn(peer: Peer, id: string | number, what = `a message on ${id}`): Promise<Message> {
  return peer.take((m) => "method" in m && subscriptionOf(m) === id, what);
}

/** A modern round trip: everything the server sent before it has arrived after it. */
let barrierId = 0;
async function barrier(peer: Peer): Promise<void> {
  const id = `barrier-${++barrierId}`;
  await peer.send(modernRequest(id, "tools/list"));
  await peer.take((m) => m.id === id, id);
}

function tool(name: string) {
  return defineTool({ name, description: name, inputSchema: EMPTY, handler: () => name });
}

function subscriptionServer(guardrails: Guardrail[] = []): { server: Server; audit: AuditEntry[] } {
  const audit: AuditEntry[] = [];
  const server = testServer({
    tools: [tool("base")],
    prompts: [{ name: "base", description: "base", get: () => "base" }],
    resources: ["a", "b", "secret"].map((name) => ({
      uri: `test://${name}`,
      name,
      read: () => name,
    })),
    resourceTemplates: [{ uriTemplate: "test://items/{id}", name: "items", read: () => "item" }],
    guardrails: [
      auditLog({ sink: callbackAuditSink((entry) => void audit.push(entry)) }),
      ...guardrails,
    ],
    shutdownGraceMs: 10_000,
  });
  return { server, audit };
}

Deno.test("subscriptions/listen acknowledges first, tagged with the request id, and delivers only the kinds asked for", async () => {
  const { server } = subscriptionServer();
  const peer = await connectPeer(server, { initialize: false });
  await peer.send(listen("tools-sub", { toolsListChanged: true, unknownKind: true }));
  await peer.send(listen(7, { promptsListChanged: true, resourcesListChanged: false }));
  const ackTools = await nextOn(peer, "tools-sub");
  assert.equal(ackTools.method, "notifications/subscriptions/acknowledged");
  assert.deepEqual((ackTools.params as Message).notifications, { toolsListChanged: true });
  const ackPrompts = await nextOn(peer, 7);
  assert.equal(ackPrompts.method, "notifications/subscriptions/acknowledged");
  assert.deepEqual((ackPrompts.params as Message).notifications, { promptsListChanged: true });

  // Every way a tool changes reaches the tools subscription, and only it.
  const handle = server.tool(tool("added"));
  handle.update({ description: "changed" });
  handle.disable();
  handle.enable();
  handle.remove();
  for (let i = 0; i < 5; i++) {
    const change = await nextOn(peer, "tools-sub", `tools change ${i}`);
    assert.equal(change.method, "notifications/tools/list_changed");
    assert.deepEqual((change.params as Message)._meta, { [SUBSCRIPTION]: "tools-sub" });
  }
  await barrier(peer);
  assert.deepEqual(peer.peek((m) => subscriptionOf(m) === 7), []);

  const prompt = server.prompt({ name: "added", description: "added", get: () => "x" });
  assert.equal((await nextOn(peer, 7)).method, "notifications/prompts/list_changed");
  prompt.remove();
  assert.equal((await nextOn(peer, 7)).method, "notifications/prompts/list_changed");
  await barrier(peer);
  assert.deepEqual(peer.peek((m) => subscriptionOf(m) === "tools-sub"), []);
  // A modern subscriber that never initialized gets no untagged list_changed either.
  assert.deepEqual(peer.peek((m) => m.method !== undefined && subscriptionOf(m) === undefined), []);

  await peer.close();
  await server.close();
});

Deno.test("resource subscriptions: only allowed, existing URIs are acknowledged; refusals are audited; updates are tagged", async () => {
  const { server, audit } = subscriptionServer([
    accessPolicy({ principals: { bob: { resources: { deny: ["test://secret"] } } } }),
  ]);
  const peer = await connectPeer(server, { principal: "bob", initialize: false });
  await peer.send(listen("r", {
    resourceSubscriptions: [
      "test://a",
      "test://secret",
      "test://missing",
      "test://items/4",
      "test://a",
    ],
  }));
  const ack = await nextOn(peer, "r");
  assert.equal(ack.method, "notifications/subscriptions/acknowledged");
  assert.deepEqual((ack.params as Message).notifications, {
    resourceSubscriptions: ["test://a", "test://items/4"],
  });
  const listened = audit.filter((e) => e.method === "subscriptions/listen");
  assert.deepEqual(listened.map((e) => [e.name, e.outcome, e.principal, e.request_id]), [
    ["test://a", "ok", "bob", "r"],
    ["test://secret", "denied", "bob", "r"],
    ["test://missing", "invalid", "bob", "r"],
    ["test://items/4", "ok", "bob", "r"],
  ]);

  server.notifyResourceUpdated("test://b");
  server.notifyResourceUpdated("test://secret");
  server.notifyResourceUpdated("test://items/4");
  server.notifyResourceUpdated("test://a");
  const first = await nextOn(peer, "r");
  assert.equal(first.method, "notifications/resources/updated");
  assert.deepEqual(first.params, { uri: "test://items/4", _meta: { [SUBSCRIPTION]: "r" } });
  const second = await nextOn(peer, "r");
  assert.deepEqual(second.params, { uri: "test://a", _meta: { [SUBSCRIPTION]: "r" } });
  await barrier(peer);
  assert.deepEqual(peer.peek((m) => subscriptionOf(m) === "r"), []);
  await peer.close();
  await server.close();
});

Deno.test("a malformed notifications filter is -32602 and opens nothing", async () => {
  const { server } = subscriptionServer();
  const peer = await connectPeer(server, { initialize: false });
  const bad: unknown[] = [
    undefined,
    null,
    [],
    { toolsListChanged: "yes" },
    { resourceSubscriptions: "test://a" },
    { resourceSubscriptions: [1] },
  ];
  let id = 0;
  for (const filter of bad) {
    const message = modernRequest(
      ++id,
      "subscriptions/listen",
      filter === undefined ? {} : { notifications: filter },
    );
    await peer.send(message);
    const reply = await peer.take((m) => m.id === id, `reply ${id}`);
    assert.ok(isRecord(reply.error), JSON.stringify(filter));
    assert.equal(reply.error.code, -32602);
  }
  assert.deepEqual(peer.peek((m) => m.method === "notifications/subscriptions/acknowledged"), []);
  await peer.close();
  await server.close();
});

Deno.test("notifications/cancelled ends a subscription with no reply and no more notifications", async () => {
  const { server } = subscriptionServer();
  const peer = await connectPeer(server, { initialize: false });
  await peer.send(listen("s", { toolsListChanged: true }));
  await nextOn(peer, "s");
  await peer.send(notification("notifications/cancelled", { requestId: "s", reason: "done" }));
  await barrier(peer);
  server.tool(tool("after"));
  await barrier(peer);
  assert.deepEqual(peer.peek((m) => m.id === "s" || subscriptionOf(m) === "s"), []);
  await peer.close();
  await server.close();
});

Deno.test("server.close() ends each subscription with a result carrying its subscriptionId", async () => {
  const { server } = subscriptionServer();
  const peer = await connectPeer(server, { initialize: false });
  await peer.send(listen("one", { toolsListChanged: true }));
  await peer.send(listen(2, { promptsListChanged: true }));
  await nextOn(peer, "one");
  await nextOn(peer, 2);
  const closing = server.close();
  for (const id of ["one", 2]) {
    const reply = await peer.take((m) => m.id === id, `the result of ${id}`);
    assert.ok(isRecord(reply.result), JSON.stringify(reply));
    assert.equal(reply.result.resultType, "complete");
    assert.ok(isRecord(reply.result._meta));
    assert.equal(reply.result._meta[SUBSCRIPTION], id);
  }
  await closing;
  await peer.close();
});

Deno.test("the end of the client's input ends its subscriptions well within shutdownGraceMs", async () => {
  const { server } = subscriptionServer();
  const other = await connectPeer(server, { initialize: false });
  const peer = await connectPeer(server, { initialize: false });
  await other.send(listen("kept", { toolsListChanged: true }));
  await nextOn(other, "kept");
  await peer.send(listen("s", { toolsListChanged: true }));
  await nextOn(peer, "s");
  // shutdownGraceMs is 10 s: the subscription must not hold the session open that long.
  await within(peer.close(), 2_000, "the session to end after EOF");
  // Another connection's subscription is untouched.
  server.tool(tool("after"));
  assert.equal((await nextOn(other, "kept")).method, "notifications/tools/list_changed");
  await other.close();
  await server.close();
});

const LISTEN_HEADERS = {
  "mcp-protocol-version": MODERN,
  "mcp-method": "subscriptions/listen",
};

async function sseMessage(reader: SseReader): Promise<Message> {
  return await reader.message();
}

Deno.test("subscriptions/listen over HTTP: an SSE stream, acknowledgement first, only the kinds asked for", async () => {
  const { server } = subscriptionServer();
  const response = await post(
    server,
    listen(11, { toolsListChanged: true, resourceSubscriptions: ["test://a"] }),
    LISTEN_HEADERS,
  );
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("mcp-session-id"), null);
  const reader = new SseReader(response);
  const ack = await sseMessage(reader);
  assert.equal(ack.method, "notifications/subscriptions/acknowledged");
  assert.equal(ack.id, undefined);
  assert.deepEqual(ack.params, {
    _meta: { [SUBSCRIPTION]: 11 },
    notifications: { toolsListChanged: true, resourceSubscriptions: ["test://a"] },
  });
  server.prompt({ name: "ignored", description: "x", get: () => "x" });
  server.notifyResourceUpdated("test://b");
  server.tool(tool("added"));
  server.notifyResourceUpdated("test://a");
  const change = await sseMessage(reader);
  assert.equal(change.method, "notifications/tools/list_changed");
  assert.deepEqual(change.params, { _meta: { [SUBSCRIPTION]: 11 } });
  const update = await sseMessage(reader);
  assert.deepEqual(update.params, { uri: "test://a", _meta: { [SUBSCRIPTION]: 11 } });
  await reader.cancel();
  await server.close();
});

Deno.test({
  name: "server.close() ends an HTTP subscription with its result as the stream's last message",
}, async () => {
  const { server } = subscriptionServer();
  const response = await post(server, listen(11, { toolsListChanged: true }), LISTEN_HEADERS);
  const reader = new SseReader(response);
  assert.equal((await sseMessage(reader)).method, "notifications/subscriptions/acknowledged");
  // A graceful end at shutdown: the result is the stream's last message.
  const closing = server.close();
  const last = await sseMessage(reader);
  assert.equal(last.id, 11);
  assert.ok(isRecord(last.result) && isRecord(last.result._meta));
  assert.equal(last.result._meta[SUBSCRIPTION], 11);
  assert.equal(await reader.next(), undefined);
  await closing;
});

Deno.test("closing the HTTP response stream cancels the subscription", async () => {
  // A guardrail's visibility check runs for each open subscription to an updated resource.
  const checks: (string | undefined)[] = [];
  const spy: Guardrail = {
    name: "spy",
    stage: "custom",
    run: (call, next) => next(call),
    visible: (item, principal) => {
      if (item.name === "test://a") checks.push(principal);
      return true;
    },
  };
  const { server } = subscriptionServer([spy]);
  const response = await post(
    server,
    listen("h", { resourceSubscriptions: ["test://a"] }),
    LISTEN_HEADERS,
  );
  const reader = new SseReader(response);
  await sseMessage(reader);
  server.notifyResourceUpdated("test://a");
  assert.equal((await sseMessage(reader)).method, "notifications/resources/updated");
  assert.equal(checks.length, 1);
  await reader.cancel();
  // Let the abort reach the handler.
  await new Promise((resolve) => setTimeout(resolve, 0));
  server.notifyResourceUpdated("test://a");
  assert.equal(checks.length, 1, "no subscription is left to notify");
  await within(server.close(), 2_000, "close");
});

Deno.test("subscriptions/listen over HTTP without text/event-stream in Accept is refused, not left hanging", async () => {
  const { server } = subscriptionServer();
  const response = await within(
    post(server, listen(12, { toolsListChanged: true }), {
      ...LISTEN_HEADERS,
      accept: "application/json",
    }),
    2_000,
    "an answer",
  );
  assert.equal(response.status, 406);
  const body: unknown = await response.json();
  assert.ok(isRecord(body) && isRecord(body.error));
  assert.equal(body.id, 12);
  await server.close();
});

Deno.test("resourcesListChanged delivers resource list changes, and only to that subscription", async () => {
  const { server } = subscriptionServer();
  const peer = await connectPeer(server, { initialize: false });
  await peer.send(listen("res", { resourcesListChanged: true }));
  await peer.send(listen("tools", { toolsListChanged: true }));
  await nextOn(peer, "res");
  await nextOn(peer, "tools");
  const handle = server.resource({ uri: "test://new", name: "new", read: () => "new" });
  handle.remove();
  for (let i = 0; i < 2; i++) {
    assert.equal((await nextOn(peer, "res")).method, "notifications/resources/list_changed");
  }
  await barrier(peer);
  assert.deepEqual(peer.peek((m) => subscriptionOf(m) === "tools"), []);
  await peer.close();
  await server.close();
});
