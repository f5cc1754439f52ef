/**
 * The stdio fast path: a byte-stream input read into one reused buffer,
 * every line of a read handed to the session at once, synchronous handlers
 * answered without a promise, and the replies to one read written together.
 */

import assert from "node:assert/strict";
import { createServer, defineTool } from "../../mod.ts";
import { StdioTransport } from "../../src/transports/stdio.ts";
import {
  Dispatcher,
  type DispatchSession,
  type MethodHandler,
} from "../../src/dispatcher/dispatcher.ts";
import { InflightTable } from "../../src/dispatcher/inflight.ts";
import { takeFrameBatches } from "../../src/transports/transport.ts";
import { initialize, request } from "../_helpers/helpers.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * A byte stream that answers each BYOB read with the next chunk, written
 * into the reader's own buffer (so a reader reusing its buffer sees each
 * read overwrite the last); `reads` counts the reads served.
 */
function byteInput(
  ...chunks: string[]
): { stream: ReadableStream<Uint8Array>; reads: () => number } {
  const bytes = chunks.map((chunk) => encoder.encode(chunk));
  let next = 0;
  const stream = new ReadableStream({
    type: "bytes",
    pull(controller) {
      const chunk = bytes[next];
      const byob = controller.byobRequest;
      if (chunk === undefined) {
        controller.close();
        byob?.respond(0);
        return;
      }
      next++;
      const view = byob?.view;
      if (byob === null || view === null || view === undefined) {
        controller.enqueue(chunk.slice());
        return;
      }
      assert.ok(chunk.length <= view.byteLength, "test chunks fit one read");
      new Uint8Array(view.buffer, view.byteOffset, view.byteLength).set(chunk);
      byob.respond(chunk.length);
    },
  });
  return { stream, reads: () => next };
}

function memoryOutput(): { stream: WritableStream<Uint8Array>; writes: string[] } {
  const writes: string[] = [];
  return {
    stream: new WritableStream({ write: (chunk) => void writes.push(decoder.decode(chunk)) }),
    writes,
  };
}

Deno.test("StdioTransport reads a byte stream with a reused buffer without corrupting held lines", async () => {
  const smile = "😀";
  const input = byteInput('{"a":"one', `two"}\n{"b":"${smile}"}\n{"c"`, ':3}\n{"d":4}');
  const transport = new StdioTransport({
    input: input.stream,
    output: memoryOutput().stream,
    redirectConsole: false,
  });
  const frames = await Array.fromAsync(transport.readable);
  assert.deepEqual(frames, ['{"a":"onetwo"}', `{"b":"${smile}"}`, '{"c":3}', '{"d":4}']);
});

Deno.test("StdioTransport hands a session every line of a read as one batch", async () => {
  const input = byteInput('{"a":1}\n{"a":2}\n{"a', '":3}\n', '{"a":4}\n{"a":5}');
  const transport = new StdioTransport({
    input: input.stream,
    output: memoryOutput().stream,
    redirectConsole: false,
  });
  const batches = takeFrameBatches(transport);
  assert.ok(batches !== undefined);
  assert.equal(takeFrameBatches(transport), undefined, "batches are taken once");
  const read: (readonly string[])[] = [];
  // The batches come from a plain reader (no Web Stream), read as a stream reader is.
  for (let next = await batches.read(); !next.done; next = await batches.read()) {
    read.push(next.value);
  }
  assert.deepEqual(read, [
    ['{"a":1}', '{"a":2}'],
    ['{"a":3}'],
    ['{"a":4}'],
    ['{"a":5}'], // completed only by EOF
  ]);
  await assert.rejects(transport.readable.getReader().read(), /a session reads it/);
});

Deno.test("StdioTransport offers no batches once its readable is in use", () => {
  const transport = new StdioTransport({
    input: byteInput('{"a":1}\n').stream,
    output: memoryOutput().stream,
    redirectConsole: false,
  });
  transport.readable.getReader();
  assert.equal(takeFrameBatches(transport), undefined);
});

Deno.test("a server answers one read of synchronous requests in one write, in order", async () => {
  const lines = Array.from({ length: 50 }, (_, i) => JSON.stringify(request(i + 2, "ping")));
  const init = JSON.stringify(initialize(1));
  const input = byteInput(`${init}\n`, `${lines.join("\n")}\n`);
  const output = memoryOutput();
  const server = createServer({ name: "s", version: "1" });
  await server.connect(
    new StdioTransport({ input: input.stream, output: output.stream, redirectConsole: false }),
  );
  assert.equal(output.writes.length, 2, "one write per read");
  const replies = output.writes[1]?.trimEnd().split("\n").map((line) => JSON.parse(line));
  assert.deepEqual(replies?.map((reply) => reply.id), lines.map((_, i) => i + 2));
});

Deno.test("a server still answers every pipelined async call, in one write per read", async () => {
  const echo = defineTool({
    name: "echo",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    description: "Returns its text, a turn later",
    handler: async ({ text }) => await Promise.resolve(text),
  });
  const calls = Array.from(
    { length: 64 },
    (_, i) =>
      JSON.stringify(request(i + 2, "tools/call", { name: "echo", arguments: { text: `t${i}` } })),
  );
  const input = byteInput(`${JSON.stringify(initialize(1))}\n`, `${calls.join("\n")}\n`);
  const output = memoryOutput();
  const server = createServer({ name: "s", version: "1", tools: [echo] });
  await server.connect(
    new StdioTransport({ input: input.stream, output: output.stream, redirectConsole: false }),
  );
  const replies = output.writes.slice(1).join("\n").trim().split("\n").map((line) =>
    JSON.parse(line)
  );
  assert.deepEqual(
    replies.map((reply) => reply.result.content[0].text).sort(),
    calls.map((_, i) => `t${i}`).sort(),
  );
  assert.equal(output.writes.length, 2, "the 64 replies to one read go out together");
});

class TestSession implements DispatchSession {
  readonly inflight = new InflightTable();
  allowsBatches(): boolean {
    return true;
  }
}

Deno.test("Dispatcher.dispatch() answers synchronous handlers synchronously and async ones with a promise", async () => {
  const dispatcher = new Dispatcher<TestSession>({
    methods: new Map<string, MethodHandler<TestSession>>([
      ["now", () => ({ now: true })],
      ["later", () => Promise.resolve({ later: true })],
      ["throws", () => {
        throw new Error("boom");
      }],
    ]),
    notifications: new Map(),
    log: () => {},
  });
  const session = new TestSession();
  const now = dispatcher.dispatch(request(1, "now"), session);
  assert.ok(!(now instanceof Promise));
  assert.deepEqual(now, { jsonrpc: "2.0", id: 1, result: { now: true } });
  assert.equal(session.inflight.size, 0, "a synchronous request is retired at once");

  const thrown = dispatcher.dispatch(request(2, "throws"), session);
  assert.ok(!(thrown instanceof Promise));
  assert.deepEqual(thrown, {
    jsonrpc: "2.0",
    id: 2,
    error: { code: -32603, message: "Internal error" },
  });

  const later = dispatcher.dispatch(request(3, "later"), session);
  assert.ok(later instanceof Promise);
  assert.equal(session.inflight.size, 1);
  assert.deepEqual(await later, { jsonrpc: "2.0", id: 3, result: { later: true } });
  assert.equal(session.inflight.size, 0);

  const batch = dispatcher.dispatch([request(4, "now"), request(5, "now")], session);
  assert.ok(!(batch instanceof Promise), "a batch of synchronous requests is answered at once");
  const mixed = dispatcher.dispatch([request(6, "now"), request(7, "later")], session);
  assert.ok(mixed instanceof Promise);
  const replies = await mixed;
  assert.ok(Array.isArray(replies));
  assert.deepEqual(replies.map((reply) => reply.id), [6, 7]);
  assert.deepEqual(await dispatcher.handle(request(8, "now"), session), {
    jsonrpc: "2.0",
    id: 8,
    result: { now: true },
  });
});
