/**
 * Resumability of Streamable HTTP streams through `server.fetch`: a handler
 * that closes its stream early (SSE polling), GET with `Last-Event-ID` for
 * POST and standalone streams, and what the event store keeps.
 */

import assert from "node:assert/strict";
import { defineTool } from "../../mod.ts";
import { type EventStore, MemoryEventStore } from "../../http.ts";
import type { ReplayedEvents } from "../../src/http/event_store.ts";
import { request, resultOf } from "../_helpers/helpers.ts";
import {
  gate,
  httpServer,
  jsonOf,
  messagesOf,
  openSession,
  post,
  settle,
  SseReader,
} from "../_helpers/http_helpers.ts";

const NO_ARGS = { type: "object", properties: {} } as const;

/** A server whose `poll` tool releases its stream at once and answers when the test says. */
function pollServer() {
  const release = gate();
  const started = gate();
  const { server } = httpServer({ retryMs: 1500 }, {
    tools: [
      defineTool({
        name: "poll",
        description: "Releases its stream at once, answers later",
        inputSchema: NO_ARGS,
        handler: async (_args, ctx) => {
          ctx.closeStream();
          started.open();
          await new Promise<void>((resolve, reject) => {
            void release.promise.then(resolve);
            ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true });
          });
          return "late result";
        },
      }),
    ],
  });
  return { server, release, started };
}

function call(id: number, name: string) {
  return request(id, "tools/call", { name });
}

function textOf(message: Record<string, unknown>): unknown {
  const content = resultOf(message).content;
  return Array.isArray(content) && content.length === 1 ? content[0]?.text : content;
}

async function status(response: Promise<Response>): Promise<number> {
  const settled = await response;
  await settled.body?.cancel();
  return settled.status;
}

Deno.test("closeStream(): the POST stream ends after its priming event; GET with Last-Event-ID delivers the result", async () => {
  const { server, release, started } = pollServer();
  const session = await openSession(server);
  // Resuming must work with the standalone GET stream open too.
  const standalone = await session.get();
  assert.equal(standalone.status, 200);
  const released = await session.post(call(21, "poll"));
  assert.equal(released.status, 200);
  const events = await new SseReader(released).rest();
  assert.equal(events.length, 1, JSON.stringify(events));
  const [priming] = events;
  assert.ok(priming?.id !== undefined && priming.data === "" && priming.retry === 1500);
  await started.promise;

  const resumed = await session.get({ "last-event-id": priming.id });
  assert.equal(resumed.status, 200);
  const stream = new SseReader(resumed);
  release.open();
  const result = await stream.message();
  assert.equal(result.id, 21);
  assert.equal(textOf(result), "late result");
  assert.equal(await stream.next(), undefined, "the resumed stream ends after the result");
  await standalone.body?.cancel();
  await server.close();
});

Deno.test("closeStream(): a client that resumes after the result was produced gets it replayed", async () => {
  const { server, release, started } = pollServer();
  const session = await openSession(server);
  const [priming] = await new SseReader(await session.post(call(22, "poll"))).rest();
  assert.ok(priming?.id !== undefined);
  await started.promise;
  release.open();
  await settle();
  const replayed = await new SseReader(await session.get({ "last-event-id": priming.id })).rest();
  const messages = messagesOf(replayed);
  assert.equal(messages.length, 1);
  assert.equal(messages[0]?.id, 22);
  assert.equal(textOf(messages[0] ?? {}), "late result");
  // Resuming from the result's own id replays nothing and ends at once.
  const lastId = replayed[0]?.id;
  assert.ok(lastId !== undefined);
  const after = await session.get({ "last-event-id": lastId });
  assert.equal(after.status, 200);
  assert.deepEqual(await new SseReader(after).rest(), []);
  await server.close();
});

// BUG (src/http/http_session.ts PostRoute.closeEarly(), line 95): closeStream()
// ends the POST stream whatever the session's revision. Before 2025-11-25 there is no priming
// event, so the stream ends with no event id at all; the client has nothing to resume from
// and the call's result is stored but never delivered. Fix: make closeEarly() a no-op unless
// primes(session) (the official Python SDK gates close_sse_stream the same way).
Deno.test({
  name: "closeStream() is ignored for a 2025-06-18 session, so its result still arrives",
  fn: async () => {
    const { server, release, started } = pollServer();
    const session = await openSession(server, { version: "2025-06-18" });
    const pending = session.post(call(23, "poll"));
    await started.promise;
    release.open();
    const response = await pending;
    const messages = response.headers.get("content-type") === "application/json"
      ? [await jsonOf(response)]
      : messagesOf(await new SseReader(response).rest());
    assert.deepEqual(messages.map((m) => m.id), [23]);
    await server.close();
  },
});

// BUG (same cause as above, src/http/http_session.ts PostRoute.closeEarly()): in
// stateless mode GET is 405, so no stream can be resumed; closeStream() still ends the POST
// stream after its priming event and the result is lost. Fix: closeEarly() does nothing for
// a session without an id (HttpSession.id undefined), whatever its revision.
Deno.test({
  name: "closeStream() is ignored in stateless mode, so the result still arrives",
  fn: async () => {
    const release = gate();
    const { server } = httpServer({ stateless: true }, {
      tools: [
        defineTool({
          name: "poll",
          description: "Releases its stream at once, answers later",
          inputSchema: NO_ARGS,
          handler: async (_args, ctx) => {
            ctx.closeStream();
            await release.promise;
            return "late result";
          },
        }),
      ],
    });
    const pending = post(server, call(24, "poll"), { "mcp-protocol-version": "2025-11-25" });
    release.open();
    const response = await pending;
    const messages = response.headers.get("content-type") === "application/json"
      ? [await jsonOf(response)]
      : messagesOf(await new SseReader(response).rest());
    assert.deepEqual(messages.map((m) => m.id), [24]);
    await server.close();
  },
});

Deno.test("GET with Last-Event-ID resumes the standalone stream with what the client missed", async () => {
  const { server } = httpServer();
  const session = await openSession(server);
  const first = new SseReader(await session.get());
  const priming = await first.next();
  assert.ok(priming?.id !== undefined);
  server.remove("tool", "echo");
  assert.equal((await first.message()).method, "notifications/tools/list_changed");
  await first.cancel();
  server.remove("resource", "test://hello"); // sent while no stream is open
  const resumed = new SseReader(await session.get({ "last-event-id": priming.id }));
  assert.equal((await resumed.message()).method, "notifications/tools/list_changed");
  assert.equal((await resumed.message()).method, "notifications/resources/list_changed");
  // The resumed stream is the session's GET stream now: a plain GET conflicts with it.
  const plain = await session.get();
  assert.equal(plain.status, 409);
  await plain.body?.cancel();
  await resumed.cancel();
  await server.close();
});

Deno.test("GET with an unknown Last-Event-ID, or one from another session, is 404 and replays nothing", async () => {
  const { server, release, started } = pollServer();
  const owner = await openSession(server);
  const [priming] = await new SseReader(await owner.post(call(31, "poll"))).rest();
  assert.ok(priming?.id !== undefined);
  await started.promise;
  release.open();
  await settle();
  const intruder = await openSession(server);
  const stolen = await intruder.get({ "last-event-id": priming.id });
  assert.equal(stolen.status, 404);
  await stolen.body?.cancel();
  const guessed = [
    "nope",
    "0",
    "/0",
    `${priming.id}0`,
    `${owner.id}.standalone/0`,
    `${intruder.id}.standalone/99`,
    priming.id.replace(owner.id, intruder.id),
  ];
  for (const id of guessed) {
    const response = await intruder.get({ "last-event-id": id });
    assert.equal(response.status, 404, id);
    await response.body?.cancel();
  }
  // The owner still gets its result.
  const mine = messagesOf(
    await new SseReader(await owner.get({ "last-event-id": priming.id })).rest(),
  );
  assert.deepEqual(mine.map((m) => m.id), [31]);
  await server.close();
});

/** An event store that tracks which streams it still holds. */
class TrackingStore implements EventStore {
  readonly held = new Set<string>();
  readonly #inner = new MemoryEventStore();
  store(streamId: string, data: string): string {
    this.held.add(streamId);
    return this.#inner.store(streamId, data);
  }
  replayAfter(lastEventId: string): ReplayedEvents | undefined {
    return this.#inner.replayAfter(lastEventId);
  }
  forget(streamId: string): void {
    this.held.delete(streamId);
    this.#inner.forget(streamId);
  }
}

function chattyTool() {
  return defineTool({
    name: "chatty",
    description: "Logs, then answers",
    inputSchema: { type: "object", properties: {} },
    handler: (_args, ctx) => {
      ctx.log("info", "working");
      return "a result that may hold customer data";
    },
  });
}

Deno.test("eventStore: a custom store receives every SSE event and serves resumption", async () => {
  const eventStore = new TrackingStore();
  const { server } = httpServer({ eventStore }, { tools: [chattyTool()] });
  const session = await openSession(server);
  const events = await new SseReader(
    await session.post(request(2, "tools/call", { name: "chatty" })),
  )
    .rest();
  assert.equal(events.length, 3);
  assert.ok([...eventStore.held].some((stream) => stream.startsWith(session.id)));
  const replayed = await new SseReader(await session.get({ "last-event-id": events[0]?.id ?? "" }))
    .rest();
  assert.deepEqual(replayed.map((event) => event.id), events.slice(1).map((event) => event.id));
  await server.close();
});

// BUG (src/http/http_session.ts HttpSession.close(), line 259): ending a session
// forgets only its standalone stream. The events of its POST streams (every SSE message,
// full tool results included) stay in the event store until 10,000 newer streams push them
// out, although no request can ever replay them (the session is 404). In stateless mode
// (handler.ts line 389) every SSE response is stored the same way and can never be resumed
// (GET is 405). Fix: have HttpSession remember the stream ids it opened (openRoute) and
// forget them all in close(); and call close() on a stateless session when its response
// ends (or give stateless routes a store that keeps nothing).
Deno.test({
  name: "eventStore: ending a session, or a stateless response, leaves none of its events stored",
  fn: async () => {
    const eventStore = new TrackingStore();
    const { server } = httpServer({ eventStore }, { tools: [chattyTool()] });
    const session = await openSession(server);
    await new SseReader(await session.post(request(2, "tools/call", { name: "chatty" }))).rest();
    const stream = await session.get();
    await stream.body?.cancel();
    assert.ok((await status(session.delete())) < 300);
    assert.deepEqual([...eventStore.held], []);
    await server.close();

    const stateless = httpServer({ eventStore, stateless: true }, { tools: [chattyTool()] });
    const reply = await post(stateless.server, request(3, "tools/call", { name: "chatty" }), {
      "mcp-protocol-version": "2025-11-25",
    });
    await new SseReader(reply).rest();
    assert.deepEqual([...eventStore.held], []);
    await stateless.server.close();
  },
});
