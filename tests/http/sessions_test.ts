/**
 * Streamable HTTP sessions through `server.fetch`: idle expiry on an
 * injected clock, the live-session cap, stateless mode, concurrent calls in
 * one session, many sessions side by side, and server.close().
 */

import assert from "node:assert/strict";
import { defineTool, type Server } from "../../mod.ts";
import { notification, request, resultOf } from "../_helpers/helpers.ts";
import {
  gate,
  get,
  httpServer,
  jsonOf,
  messagesOf,
  openSession,
  post,
  send,
  SseReader,
  type TestSession,
} from "../_helpers/http_helpers.ts";

const PING = request(1, "ping");

async function status(response: Promise<Response>): Promise<number> {
  const settled = await response;
  await settled.body?.cancel();
  return settled.status;
}

/** A server whose `wait` tool blocks until the test opens `release`. */
function waitingServer(http: Parameters<typeof httpServer>[0]) {
  const release = gate();
  const started = gate();
  const { server } = httpServer(http, {
    tools: [
      defineTool({
        name: "wait",
        description: "Waits for the test",
        inputSchema: { type: "object", properties: {} },
        handler: async (_args, ctx) => {
          started.open();
          await new Promise<void>((resolve, reject) => {
            void release.promise.then(resolve);
            ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true });
          });
          return "released";
        },
      }),
    ],
  });
  return { server, release, started };
}

Deno.test("sessions expire after sessionIdleMs without a request (404), counted from the last one", async () => {
  let now = 0;
  const { server } = httpServer({ sessionIdleMs: 1000, now: () => now });
  const session = await openSession(server);
  now = 999;
  assert.equal(await status(session.post(PING)), 200);
  now = 1999; // exactly sessionIdleMs after the last request: still alive
  assert.equal(await status(session.post(PING)), 200);
  now = 3000;
  assert.equal(await status(session.post(PING)), 404);
  assert.equal(await status(session.get()), 404);
  assert.equal(await status(session.delete()), 404);
  await server.close();
});

Deno.test("sessions do not expire while a call is in flight or a GET stream is open", async () => {
  let now = 0;
  const { server, release, started } = waitingServer({ sessionIdleMs: 1000, now: () => now });
  const calling = await openSession(server);
  const listening = await openSession(server);
  const call = calling.post(request(5, "tools/call", { name: "wait" }));
  await started.promise;
  const stream = await listening.get();
  assert.equal(stream.status, 200);
  now = 60_000;
  // A new session sweeps the table; the busy ones must survive it.
  await openSession(server);
  assert.equal(await status(listening.post(PING)), 200);
  assert.equal(await status(calling.post(request(2, "ping"))), 200);
  release.open();
  const reply = await call;
  assert.equal(reply.status, 200);
  assert.deepEqual(resultOf(await jsonOf(reply)).content, [{ type: "text", text: "released" }]);
  await stream.body?.cancel();
  await server.close();
});

// BUG (src/http/handler.ts sweep(), line 211, with http_session.ts): lastActive is
// set only when a request arrives (sessionOf, line 316), never when a call or a stream ends.
// A session busy for longer than sessionIdleMs (a long tool call, or a GET stream held for
// an hour) is therefore expired the instant it becomes idle: the client's very next request,
// e.g. the GET that reconnects a dropped stream, gets 404. Fix: touch lastActive when a
// route finishes (PostRoute.finish / HttpSession.endRoute) and when a GET stream closes, or
// sweep on `now() - max(lastActive, lastBusy)`.
Deno.test({
  name: "sessions count idle time from when their last call or stream ended",
  fn: async () => {
    let now = 0;
    const { server, release, started } = waitingServer({ sessionIdleMs: 1000, now: () => now });
    const session = await openSession(server);
    const call = session.post(request(5, "tools/call", { name: "wait" }));
    await started.promise;
    now = 5000;
    release.open();
    assert.equal(await status(call), 200);
    assert.equal(await status(session.post(PING)), 200, "the call just ended");

    const stream = await session.get();
    now = 10_000;
    await stream.body?.cancel();
    assert.equal(await status(session.get()), 200, "the stream just ended; the client reconnects");
    await server.close();
  },
});

Deno.test("maxSessions: a new session evicts the least recently used idle one", async () => {
  let now = 0;
  const { server } = httpServer({ maxSessions: 2, now: () => now });
  now = 1;
  const a = await openSession(server);
  now = 2;
  const b = await openSession(server);
  now = 3;
  assert.equal(await status(a.post(PING)), 200); // a is now the more recent
  now = 4;
  const c = await openSession(server);
  assert.equal(await status(b.post(PING)), 404, "b was the least recently used");
  assert.equal(await status(a.post(PING)), 200);
  assert.equal(await status(c.post(PING)), 200);
  await server.close();
});

Deno.test("maxSessions: initialize is 503 while every session is busy, and works once one is idle", async () => {
  const { server } = httpServer({ maxSessions: 1 });
  const a = await openSession(server);
  const stream = await a.get();
  assert.equal(stream.status, 200);
  const initialize = request(0, "initialize", {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "t", version: "1" },
  });
  const refused = await post(server, initialize);
  assert.equal(refused.status, 503);
  assert.equal(refused.headers.get("mcp-session-id"), null);
  await refused.body?.cancel();
  assert.equal(await status(a.post(PING)), 200, "the refused initialize left a alone");
  await stream.body?.cancel();
  const b = await openSession(server);
  assert.equal(await status(b.post(PING)), 200);
  assert.equal(await status(a.post(PING)), 404, "a was evicted to make room");
  await server.close();
});

Deno.test("a failed initialize issues no session id", async () => {
  const { server } = httpServer();
  const malformed = await post(server, request(0, "initialize", { capabilities: {} }));
  assert.equal(malformed.status, 200);
  assert.equal(malformed.headers.get("mcp-session-id"), null);
  const body = await jsonOf(malformed);
  assert.ok(typeof body.error === "object" && body.error !== null);
  await server.close();
});

Deno.test("stateless mode: no session ids, GET and DELETE are 405, calls work without initialize", async () => {
  const { server } = httpServer({ stateless: true }, {
    tools: [
      defineTool({
        name: "chatty",
        description: "Logs, then answers",
        inputSchema: { type: "object", properties: {} },
        handler: (_args, ctx) => {
          ctx.log("info", "working");
          return "done";
        },
      }),
    ],
  });
  const init = await post(
    server,
    request(0, "initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "t", version: "1" },
    }),
  );
  assert.equal(init.status, 200);
  assert.equal(init.headers.get("mcp-session-id"), null);
  await init.body?.cancel();

  const call = await post(server, request(3, "tools/call", { name: "chatty" }), {
    "mcp-protocol-version": "2025-06-18",
  });
  assert.equal(call.status, 200);
  assert.equal(call.headers.get("mcp-session-id"), null);
  const messages = messagesOf(await new SseReader(call).rest());
  assert.deepEqual(messages.map((m) => m.method ?? m.id), ["notifications/message", 3]);

  const plain = await post(server, request(4, "tools/list"));
  assert.equal(plain.status, 200);
  const listed = resultOf(await jsonOf(plain)).tools;
  assert.ok(Array.isArray(listed) && listed.length === 1);

  assert.equal(await status(post(server, notification("notifications/initialized"))), 202);
  assert.equal(await status(post(server, PING, { "mcp-protocol-version": "2000-01-01" })), 400);
  for (const method of ["GET", "DELETE"]) {
    const response = method === "GET" ? await get(server) : await send(server, method);
    assert.equal(response.status, 405, method);
    assert.equal(response.headers.get("allow"), "POST, OPTIONS");
    await response.body?.cancel();
  }
  // Whatever id a client sends is ignored, not looked up.
  assert.equal(await status(post(server, PING, { "mcp-session-id": "made-up" })), 200);
  await server.close();
});

Deno.test("concurrent POSTs in one session each get their own stream, with nothing crossed", async () => {
  const release = gate();
  const { server } = httpServer({}, {
    tools: [
      defineTool({
        name: "job",
        description: "Logs its number, waits, answers with it",
        inputSchema: {
          type: "object",
          properties: { n: { type: "integer" } },
          required: ["n"],
        },
        handler: async ({ n }, ctx) => {
          ctx.log("info", `job ${n} started`);
          await release.promise;
          ctx.log("info", `job ${n} finishing`);
          return `job ${n} done`;
        },
      }),
    ],
  });
  const session = await openSession(server, { version: "2025-06-18" });
  const jobs = [1, 2, 3, 4, 5];
  const responses = await Promise.all(
    jobs.map((n) =>
      session.post(request(100 + n, "tools/call", { name: "job", arguments: { n } }))
    ),
  );
  const readers = responses.map((response) => new SseReader(response));
  for (const [i, reader] of readers.entries()) {
    const log = await reader.message();
    assert.deepEqual(log.params, { level: "info", data: `job ${jobs[i]} started` });
  }
  // Other requests are not held up by the pending calls.
  assert.equal(await status(session.post(request(9, "ping"))), 200);
  release.open();
  for (const [i, reader] of readers.entries()) {
    const n = jobs[i];
    const rest = messagesOf(await reader.rest());
    assert.equal(rest.length, 2);
    assert.deepEqual(rest[0]?.params, { level: "info", data: `job ${n} finishing` });
    assert.equal(rest[1]?.id, 100 + (n ?? 0));
    assert.deepEqual(resultOf(rest[1]).content, [{ type: "text", text: `job ${n} done` }]);
  }
  await server.close();
});

// BUG (src/http/http_session.ts openRoute(), line 191, with handler.ts line 409):
// routes are keyed by request id alone and registered before the dispatcher checks that the
// id is free. A second POST reusing the id of a call in flight replaces the first call's
// route, gets its -32600, and then endRoute() deletes the id: the first call's later
// messages (logs, progress, sampling requests) no longer reach its own POST stream and fall
// through to the GET stream. Fix: open the route only for ids not in flight
// (session.inflight), or keep the existing route when openRoute() meets a taken id.
Deno.test({
  name: "a POST that reuses an in-flight request id does not steal that call's stream",
  fn: async () => {
    const release = gate();
    const { server } = httpServer({}, {
      tools: [
        defineTool({
          name: "job",
          description: "Logs, waits, logs",
          inputSchema: { type: "object", properties: {} },
          handler: async (_args, ctx) => {
            ctx.log("info", "before");
            await release.promise;
            ctx.log("info", "after");
            return "done";
          },
        }),
      ],
    });
    const session = await openSession(server, { version: "2025-06-18" });
    const first = new SseReader(await session.post(request(7, "tools/call", { name: "job" })));
    assert.deepEqual((await first.message()).params, { level: "info", data: "before" });
    const duplicate = await session.post(request(7, "ping"));
    assert.equal(duplicate.status, 200);
    await duplicate.body?.cancel();
    release.open();
    const rest = messagesOf(await first.rest());
    assert.deepEqual(rest.map((m) => m.method ?? m.id), ["notifications/message", 7]);
    await server.close();
  },
});

Deno.test("many sessions side by side stay apart", async () => {
  const { server } = httpServer();
  const sessions: TestSession[] = await Promise.all(
    Array.from(
      { length: 50 },
      (_, i) => openSession(server, { version: i % 2 === 0 ? "2025-11-25" : "2025-03-26" }),
    ),
  );
  assert.equal(new Set(sessions.map((s) => s.id)).size, 50);
  const replies = await Promise.all(
    sessions.map((session, i) =>
      session.post(request(1, "tools/call", { name: "echo", arguments: { text: `s${i}` } }))
    ),
  );
  for (const [i, reply] of replies.entries()) {
    assert.equal(reply.headers.get("mcp-session-id"), sessions[i]?.id);
    assert.deepEqual(resultOf(await jsonOf(reply)).content, [{ type: "text", text: `s${i}` }]);
  }
  for (const session of sessions.slice(0, 25)) assert.ok((await status(session.delete())) < 300);
  for (const [i, session] of sessions.entries()) {
    assert.equal(await status(session.post(PING)), i < 25 ? 404 : 200);
  }
  await server.close();
});

Deno.test("server.close() ends every session: open streams end and later requests are refused", async () => {
  const { server, started } = waitingServer({});
  const session: TestSession = await openSession(server);
  const stream = new SseReader(await session.get());
  assert.equal((await stream.next())?.data, "", "the priming event");
  const call = session.post(request(5, "tools/call", { name: "wait" }));
  await started.promise;
  await closeWithin(server);
  assert.equal(await stream.next(), undefined, "the GET stream ended");
  const reply = await call;
  await reply.body?.cancel();
  assert.equal(await status(session.post(PING)), 503);
});

async function closeWithin(server: Server): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    server.close(),
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error("server.close() hung")), 2000);
    }),
  ]).finally(() => clearTimeout(timer));
}

Deno.test("a session past its idle time is 404 at once, even between two sweeps of the table", async () => {
  let now = 0;
  const { server } = httpServer({ sessionIdleMs: 5000, now: () => now });
  const quiet = await openSession(server);
  const busy = await openSession(server);
  now = 4900;
  // The whole table is swept here (nothing has expired yet); the next sweep is a second away.
  assert.equal(await status(busy.post(PING)), 200);
  now = 5100;
  assert.equal(await status(quiet.post(PING)), 404);
  assert.equal(await status(busy.post(PING)), 200);
  await server.close();
});
