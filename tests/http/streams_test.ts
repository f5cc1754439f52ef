/**
 * Streamable HTTP streams through `server.fetch`: when a POST becomes SSE,
 * priming events, the standalone GET stream, sampling and cancellation over
 * HTTP, and what ending a session does to open streams.
 */

import assert from "node:assert/strict";
import { defineTool } from "../../mod.ts";
import { notification, request, resultOf } from "../_helpers/helpers.ts";
import {
  gate,
  get,
  httpServer,
  jsonOf,
  messagesOf,
  openSession,
  settle,
  SseReader,
} from "../_helpers/http_helpers.ts";

const NO_ARGS = { type: "object", properties: {} } as const;

/** A server with tools that talk to the client in the middle of a call. */
function streamServer(retryMs = 1500) {
  const release = gate();
  const started = gate();
  const aborted = gate<unknown>();
  const waitForRelease = (signal: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      void release.promise.then(resolve);
      signal.addEventListener("abort", () => {
        aborted.open(signal.reason);
        reject(signal.reason);
      }, { once: true });
    });
  const { server } = httpServer({ retryMs }, {
    // A test that fails mid-way must not leave a sampling request waiting for a minute.
    requestTimeoutMs: 3000,
    tools: [
      defineTool({
        name: "chatty",
        description: "Logs and reports progress, then answers",
        inputSchema: NO_ARGS,
        handler: async (_args, ctx) => {
          ctx.log("info", "one");
          ctx.progress(1, 2);
          await settle();
          ctx.log("warning", "two");
          ctx.progress(2, 2, "half way and more");
          return "done";
        },
      }),
      defineTool({
        name: "ask",
        description: "Asks the client's model",
        inputSchema: NO_ARGS,
        handler: async (_args, ctx) => {
          const answer = await ctx.sample({
            messages: [{ role: "user", content: { type: "text", text: "6 x 7?" } }],
            maxTokens: 5,
          });
          return `model said ${answer.content.type === "text" ? answer.content.text : "?"}`;
        },
      }),
      defineTool({
        name: "waiter",
        description: "Logs, then waits for the test or an abort",
        inputSchema: NO_ARGS,
        handler: async (_args, ctx) => {
          ctx.log("info", "started");
          started.open();
          await waitForRelease(ctx.signal);
          return "released";
        },
      }),
      defineTool({
        name: "quiet_waiter",
        description: "Waits for the test or an abort, silently",
        inputSchema: NO_ARGS,
        handler: async (_args, ctx) => {
          started.open();
          await waitForRelease(ctx.signal);
          return "released";
        },
      }),
    ],
  });
  return { server, release, started, aborted };
}

function call(id: number, name: string, progressToken?: string) {
  return request(
    id,
    "tools/call",
    progressToken === undefined ? { name } : { name, _meta: { progressToken } },
  );
}

function textOf(message: Record<string, unknown>): unknown {
  const content = resultOf(message).content;
  return Array.isArray(content) && content.length === 1 ? content[0]?.text : content;
}

Deno.test("a call that logs and reports progress answers as SSE: events in order, result last, then the end", async () => {
  const { server } = streamServer();
  const session = await openSession(server, { version: "2025-06-18" });
  const response = await session.post(call(3, "chatty", "tok"));
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("mcp-session-id"), session.id);
  assert.match(response.headers.get("cache-control") ?? "", /no-cache/);
  const events = await new SseReader(response).rest();
  // No priming event before 2025-11-25: every event carries a message, with an id.
  assert.ok(events.every((event) => event.data !== "" && event.retry === undefined));
  assert.ok(events.every((event) => typeof event.id === "string" && event.id.length > 0));
  assert.equal(new Set(events.map((event) => event.id)).size, events.length);
  const messages = messagesOf(events);
  assert.deepEqual(messages.slice(0, 4).map((m) => [m.method, m.params]), [
    ["notifications/message", { level: "info", data: "one" }],
    ["notifications/progress", { progressToken: "tok", progress: 1, total: 2 }],
    ["notifications/message", { level: "warning", data: "two" }],
    ["notifications/progress", {
      progressToken: "tok",
      progress: 2,
      total: 2,
      message: "half way and more",
    }],
  ]);
  assert.equal(messages.length, 5);
  assert.equal(messages[4]?.id, 3);
  assert.equal(textOf(messages[4] ?? {}), "done");
  await server.close();
});

Deno.test("a 2025-11-25 stream starts with a priming event: an id, empty data and retry", async () => {
  const { server } = streamServer(1234);
  const session = await openSession(server, { version: "2025-11-25" });
  const events = await new SseReader(await session.post(call(3, "chatty"))).rest();
  const [priming, ...rest] = events;
  assert.ok(priming !== undefined && typeof priming.id === "string" && priming.id !== "");
  assert.equal(priming.data, "");
  assert.equal(priming.retry, 1234);
  assert.equal(priming.event, undefined);
  assert.deepEqual(messagesOf(rest).map((m) => m.method ?? m.id), [
    "notifications/message",
    "notifications/message",
    3,
  ]);
  assert.ok(rest.every((event) => event.retry === undefined && event.data !== ""));
  await server.close();
});

Deno.test("a call with nothing to send first stays JSON, even when it is slow", async () => {
  const { server, release, started } = streamServer();
  const session = await openSession(server);
  const pending = session.post(call(4, "quiet_waiter"));
  await started.promise;
  release.open();
  const response = await pending;
  assert.equal(response.headers.get("content-type"), "application/json");
  assert.equal(textOf(await jsonOf(response)), "released");
  await server.close();
});

Deno.test("the standalone GET stream receives list_changed and updates of subscribed resources only", async () => {
  const { server } = httpServer({ retryMs: 777 }, {
    resources: [
      { uri: "test://watched", name: "watched", read: () => "w" },
      { uri: "test://other", name: "other", read: () => "o" },
    ],
  });
  const session = await openSession(server);
  const subscribed = await session.post(
    request(2, "resources/subscribe", { uri: "test://watched" }),
  );
  assert.deepEqual(resultOf(await jsonOf(subscribed)), {});
  const response = await session.get();
  assert.equal(response.status, 200);
  const stream = new SseReader(response);
  const priming = await stream.next();
  assert.equal(priming?.data, "");
  assert.equal(priming?.retry, 777);
  assert.ok(priming?.id !== undefined && priming.id !== "");

  server.notifyResourceUpdated("test://other"); // not subscribed: nothing is sent
  server.notifyResourceUpdated("test://watched");
  server.tool(defineTool({
    name: "added",
    description: "A late tool",
    inputSchema: NO_ARGS,
    handler: () => "",
  }));
  const updated = await stream.message();
  assert.deepEqual([updated.method, updated.params], [
    "notifications/resources/updated",
    { uri: "test://watched" },
  ]);
  assert.equal((await stream.message()).method, "notifications/tools/list_changed");
  await stream.cancel();
  await server.close();
});

Deno.test("a GET stream of a session before 2025-11-25 has no priming event", async () => {
  const { server } = httpServer();
  const session = await openSession(server, { version: "2025-03-26" });
  const stream = new SseReader(await session.get());
  server.remove("tool", "echo");
  const first = await stream.next();
  assert.equal(first?.retry, undefined);
  assert.equal(JSON.parse(first?.data ?? "").method, "notifications/tools/list_changed");
  await stream.cancel();
  await server.close();
});

Deno.test("a second plain GET is 409 while the first is open, and works after it closes", async () => {
  const { server } = httpServer();
  const session = await openSession(server);
  const first = await session.get();
  assert.equal(first.status, 200);
  const second = await session.get();
  assert.equal(second.status, 409);
  await second.body?.cancel();
  await first.body?.cancel();
  const third = await session.get();
  assert.equal(third.status, 200);
  await third.body?.cancel();
  await server.close();
});

Deno.test("messages with no stream to carry them wait for the client's GET", async () => {
  const { server } = httpServer();
  const session = await openSession(server);
  server.remove("tool", "echo");
  server.remove("resource", "test://hello");
  const stream = new SseReader(await session.get());
  assert.equal((await stream.next())?.data, "");
  assert.equal((await stream.message()).method, "notifications/tools/list_changed");
  assert.equal((await stream.message()).method, "notifications/resources/list_changed");
  await stream.cancel();
  await server.close();
});

Deno.test("a POST that accepts only JSON gets its result as JSON; what the call sent waits for the GET", async () => {
  const { server } = streamServer();
  const session = await openSession(server);
  const response = await session.post(call(6, "chatty"), { accept: "application/json" });
  assert.equal(response.headers.get("content-type"), "application/json");
  assert.equal(textOf(await jsonOf(response)), "done");
  const stream = new SseReader(await session.get());
  assert.equal((await stream.next())?.data, "");
  assert.deepEqual((await stream.message()).params, { level: "info", data: "one" });
  assert.deepEqual((await stream.message()).params, { level: "warning", data: "two" });
  await stream.cancel();
  await server.close();
});

Deno.test("sampling over HTTP: the request travels on the call's stream, the answer is a POST (202)", async () => {
  const { server } = streamServer();
  const session = await openSession(server, { capabilities: { sampling: {} } });
  const standalone = new SseReader(await session.get());
  assert.equal((await standalone.next())?.data, "");
  const stream = new SseReader(await session.post(call(8, "ask")));
  assert.equal((await stream.next())?.data, "", "priming");
  const sampling = await stream.message();
  assert.equal(sampling.method, "sampling/createMessage");
  assert.ok(typeof sampling.id === "number" || typeof sampling.id === "string");
  assert.deepEqual(Reflect.get(Object(sampling.params), "maxTokens"), 5);
  const answerWith = (text: string) => ({
    jsonrpc: "2.0",
    id: sampling.id,
    result: { role: "assistant", content: { type: "text", text }, model: "test-model" },
  });
  // Another session answering with the same id reaches nothing.
  const intruder = await openSession(server, { capabilities: { sampling: {} } });
  const forged = await intruder.post(answerWith("666"));
  assert.equal(forged.status, 202);
  const answer = await session.post(answerWith("42"));
  assert.equal(answer.status, 202);
  const rest = messagesOf(await stream.rest());
  assert.equal(rest.length, 1);
  assert.equal(rest[0]?.id, 8);
  assert.equal(textOf(rest[0] ?? {}), "model said 42");
  // Nothing of the call went to the GET stream: the next thing there is this marker.
  server.remove("tool", "chatty");
  assert.equal((await standalone.message()).method, "notifications/tools/list_changed");
  await standalone.cancel();
  await server.close();
});

Deno.test("notifications/cancelled over HTTP aborts the handler; no result is sent", async () => {
  const { server, started, aborted } = streamServer();
  const session = await openSession(server);
  const stream = new SseReader(await session.post(call(11, "waiter")));
  assert.equal((await stream.next())?.data, "");
  assert.equal((await stream.message()).method, "notifications/message");
  const cancel = await session.post(
    notification("notifications/cancelled", { requestId: 11, reason: "user pressed stop" }),
  );
  assert.equal(cancel.status, 202);
  const reason = await aborted.promise;
  assert.ok(reason instanceof Error && reason.message === "user pressed stop");
  assert.deepEqual(messagesOf(await stream.rest()), [], "the stream ends without a result");
  await started.promise;
  await server.close();
});

Deno.test("notifications/cancelled for a call still undecided between JSON and SSE answers it with 202", async () => {
  const { server, started, aborted } = streamServer();
  const session = await openSession(server);
  const pending = session.post(call(12, "quiet_waiter"));
  await started.promise;
  const cancel = await session.post(notification("notifications/cancelled", { requestId: 12 }));
  assert.equal(cancel.status, 202);
  await aborted.promise;
  const response = await pending;
  assert.equal(response.status, 202);
  assert.equal(response.body, null);
  await server.close();
});

Deno.test("DELETE during a call ends its stream and the GET stream, and aborts the handler", async () => {
  const { server, started, aborted } = streamServer();
  const session = await openSession(server);
  const standalone = new SseReader(await session.get());
  assert.equal((await standalone.next())?.data, "");
  const stream = new SseReader(await session.post(call(41, "waiter")));
  assert.equal((await stream.next())?.data, "");
  await stream.message();
  await started.promise;
  const deleted = await session.delete();
  assert.ok(deleted.status < 300);
  assert.ok((await aborted.promise) !== undefined);
  assert.deepEqual(messagesOf(await stream.rest()), []);
  assert.equal(await standalone.next(), undefined);
  const gone = await get(server, session.headers());
  assert.equal(gone.status, 404);
  await gone.body?.cancel();
  await server.close();
});
