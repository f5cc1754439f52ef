/**
 * `server.connect()` over a {@linkcode StdioTransport} end to end, with
 * in-process byte streams standing in for stdin and stdout.
 */

import assert from "node:assert/strict";
import { createServer, defineTool, type Server } from "../../mod.ts";
import { StdioTransport } from "../../src/transports/stdio.ts";
import {
  captureLog,
  fixtureServer,
  initialize,
  isRecord,
  notification,
  request,
} from "../_helpers/helpers.ts";

const encoder = new TextEncoder();

/** Lets streams and promise chains run; no timer is waited on beyond a zero delay. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/** Settles until `condition` holds; fails after two seconds rather than hang. */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = performance.now() + 2000;
  while (!condition()) {
    if (performance.now() > deadline) assert.fail(`Timed out waiting for ${what}`);
    await settle();
  }
}

/** A promise plus a way to ask, without awaiting it, whether it has settled. */
function tracked<T>(promise: Promise<T>): { promise: Promise<T>; settled: () => boolean } {
  let settled = false;
  const done = () => void (settled = true);
  promise.then(done, done);
  return { promise, settled: () => settled };
}

/** An input the test feeds chunk by chunk, then ends. */
function feed(): {
  stream: ReadableStream<Uint8Array>;
  push: (chunk: string | Uint8Array) => void;
  end: () => void;
  cancelled: () => boolean;
} {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    start: (c) => void (controller = c),
    cancel: () => void (cancelled = true),
  });
  return {
    stream,
    push: (chunk) => controller.enqueue(typeof chunk === "string" ? encoder.encode(chunk) : chunk),
    end: () => controller.close(),
    cancelled: () => cancelled,
  };
}

/** An output that keeps every byte written to it. */
function sink(): {
  stream: WritableStream<Uint8Array>;
  text: () => string;
  closed: () => boolean;
} {
  const chunks: Uint8Array[] = [];
  let closed = false;
  const stream = new WritableStream<Uint8Array>({
    write: (chunk) => void chunks.push(chunk.slice()),
    close: () => void (closed = true),
  });
  const text = (): string => {
    const all = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
    let offset = 0;
    for (const chunk of chunks) {
      all.set(chunk, offset);
      offset += chunk.length;
    }
    return new TextDecoder("utf-8", { fatal: true }).decode(all);
  };
  return { stream, text, closed: () => closed };
}

/**
 * Parses what the server wrote, asserting the framing on the way: every
 * reply is one JSON-RPC object on its own line, ended by exactly one `\n`.
 */
function replies(output: string): Record<string, unknown>[] {
  if (output === "") return [];
  assert.ok(output.endsWith("\n"), `output does not end with a newline: ${JSON.stringify(output)}`);
  return output.slice(0, -1).split("\n").map((line) => {
    assert.ok(!line.includes("\r"), `a reply line holds a carriage return: ${line}`);
    const value: unknown = JSON.parse(line);
    assert.ok(isRecord(value) && value.jsonrpc === "2.0", `not a JSON-RPC object: ${line}`);
    return value;
  });
}

/** Replies by id, for tests where the order between replies is not the point. */
function byId(output: string): Map<unknown, Record<string, unknown>> {
  const found = new Map<unknown, Record<string, unknown>>();
  for (const reply of replies(output)) {
    assert.ok(!found.has(reply.id), `two replies for id ${JSON.stringify(reply.id)}`);
    found.set(reply.id, reply);
  }
  return found;
}

function textOf(reply: Record<string, unknown> | undefined): unknown {
  const result = reply?.result;
  if (!isRecord(result) || !Array.isArray(result.content)) return undefined;
  const first: unknown = result.content[0];
  return isRecord(first) ? first.text : undefined;
}

/** Runs one session over the given chunks and resolves to everything written back. */
async function session(
  server: Server,
  chunks: readonly (string | Uint8Array)[],
  options: { maxLineBytes?: number; log?: (message: string) => void } = {},
): Promise<string> {
  const output = sink();
  const transport = new StdioTransport({
    input: ReadableStream.from(
      chunks.map((chunk) => typeof chunk === "string" ? encoder.encode(chunk) : chunk),
    ),
    output: output.stream,
    redirectConsole: false,
    ...options,
  });
  await server.connect(transport);
  assert.ok(output.closed(), "the output was not closed when connect() resolved");
  return output.text();
}

/** A tool that waits for the test to release it, telling the test when it has started. */
function gatedTool(name: string) {
  const gate = Promise.withResolvers<void>();
  let started = false;
  let signal: AbortSignal | undefined;
  const tool = defineTool({
    name,
    description: "Waits for the test",
    inputSchema: { type: "object" },
    handler: async (_args, context) => {
      signal = context.signal;
      started = true;
      await gate.promise;
      return `${name} done`;
    },
  });
  return {
    tool,
    release: () => gate.resolve(),
    started: () => started,
    signal: () => signal,
  };
}

/** A tool that only ends when its signal aborts. */
function waitingTool(name: string) {
  let signal: AbortSignal | undefined;
  const tool = defineTool({
    name,
    description: "Waits for its signal",
    inputSchema: { type: "object" },
    handler: (_args, context) => {
      signal = context.signal;
      return new Promise<string>((_resolve, reject) => {
        if (context.signal.aborted) reject(context.signal.reason);
        context.signal.addEventListener("abort", () => reject(context.signal.reason));
      });
    },
  });
  return { tool, signal: () => signal };
}

const line = (message: unknown): string => `${JSON.stringify(message)}\n`;

Deno.test("server.connect() answers messages split at every byte, inside UTF-8 characters too", async () => {
  const text = "naïve 😀 日本 ✓";
  const bytes = encoder.encode(
    line(initialize(1)) + line(request(2, "tools/call", { name: "echo", arguments: { text } })) +
      line(request(3, "ping")),
  );
  const check = (output: string, cut: string) => {
    const found = byId(output);
    assert.deepEqual([...found.keys()].sort(), [1, 2, 3], cut);
    assert.equal(textOf(found.get(2)), text, cut);
    assert.deepEqual(found.get(3)?.result, {}, cut);
  };

  const { server } = fixtureServer();
  const oneByteEach = Array.from(bytes, (byte) => new Uint8Array([byte]));
  check(await session(server, oneByteEach), "one byte per chunk");
  for (let cut = 1; cut < bytes.length; cut++) {
    const output = await session(server, [bytes.slice(0, cut), bytes.slice(cut)]);
    check(output, `cut at byte ${cut}`);
  }
});

Deno.test("server.connect() answers several messages in one chunk, CRLF endings and blank lines", async () => {
  const { server, lines } = fixtureServer();
  const chunk = "\r\n   \n" + JSON.stringify(initialize(1)) + "\r\n\r\n\t\r\n" +
    JSON.stringify(request(2, "ping")) + "\r\n" +
    JSON.stringify(request(3, "tools/call", { name: "echo", arguments: { text: "hi" } })) +
    "\n\n" + JSON.stringify(request(4, "ping")); // the last line has no newline before EOF
  const found = byId(await session(server, [chunk]));
  assert.deepEqual([...found.keys()].sort(), [1, 2, 3, 4]);
  assert.equal(textOf(found.get(3)), "hi");
  assert.deepEqual(lines, [], "blank lines must not be reported");
});

Deno.test("server.connect() skips a non-JSON line, notes only its position and size, and goes on", async () => {
  const { lines, log } = captureLog();
  const transportNotes = captureLog();
  const server = createServer({ name: "s", version: "1", log });
  const secret = '{"password": "hunter2-SECRET", oops';
  const output = await session(server, [
    line(request(1, "ping")),
    `${secret}\n`,
    line(request(2, "ping")),
  ], { log: transportNotes.log });

  assert.deepEqual(replies(output).map((reply) => reply.id), [1, 2]);
  assert.deepEqual(lines, [`warden: skipped message 2 (${secret.length} chars): not valid JSON`]);
  const everything = [...lines, ...transportNotes.lines, output].join("\n");
  assert.ok(!everything.includes("hunter2"), "the skipped line's content leaked");
  assert.ok(!everything.includes("password"), "the skipped line's content leaked");
});

Deno.test("server.connect() drops an over-long line and answers its neighbours", async () => {
  const serverLog = captureLog();
  const transportLog = captureLog();
  const server = createServer({ name: "s", version: "1", log: serverLog.log });
  const long = JSON.stringify({
    ...request(2, "ping"),
    params: { _meta: { token: `SECRET-${"x".repeat(200)}` } },
  });
  const output = await session(server, [
    line(request(1, "ping")),
    long.slice(0, 30),
    long.slice(30) + "\n" + line(request(3, "ping")),
  ], { maxLineBytes: 64, log: transportLog.log });

  assert.deepEqual(replies(output).map((reply) => reply.id), [1, 3]);
  assert.deepEqual(transportLog.lines, [
    `warden: dropped line 2 (${long.length} bytes): longer than the 64-byte limit`,
  ]);
  assert.deepEqual(serverLog.lines, []);
  assert.ok(!transportLog.lines.join("\n").includes("SECRET"));
});

Deno.test("server.connect() writes a slow reply that was in flight at EOF before it resolves", async () => {
  const slow = gatedTool("slow");
  const server = createServer({ name: "s", version: "1", tools: [slow.tool] });
  const input = feed();
  const output = sink();
  const connected = tracked(server.connect(
    new StdioTransport({ input: input.stream, output: output.stream, redirectConsole: false }),
  ));

  input.push(line(request(1, "tools/call", { name: "slow" })));
  await until(slow.started, "the slow tool to start");
  input.end();
  await settle();
  await settle();
  assert.equal(connected.settled(), false, "connect() resolved while a call was in flight");
  assert.equal(output.text(), "");

  slow.release();
  await until(connected.settled, "connect() to resolve");
  await connected.promise;
  assert.ok(output.closed());
  const [reply] = replies(output.text());
  assert.equal(reply?.id, 1);
  assert.equal(textOf(reply), "slow done");
});

Deno.test("server.connect() writes exactly one JSON object per line, whatever the content", async () => {
  const { server } = fixtureServer();
  const awkward = "two\nlines\r\nand a \u2028 separator and a tab\t";
  const chunk = Array.from({ length: 40 }, (_, i) => line(request(i, "ping"))).join("") +
    line(request("echo", "tools/call", { name: "echo", arguments: { text: awkward } }));
  const output = await session(server, [chunk]);
  const parsed = replies(output);
  assert.equal(parsed.length, 41);
  assert.equal(output.split("\n").length, 42); // 41 lines and the empty rest after the last
  assert.equal(textOf(parsed.find((reply) => reply.id === "echo")), awkward);
});

Deno.test("server.connect() answers a ping while a slow tool runs, ping first", async () => {
  const slow = gatedTool("slow");
  const server = createServer({ name: "s", version: "1", tools: [slow.tool] });
  const input = feed();
  const output = sink();
  const connected = server.connect(
    new StdioTransport({ input: input.stream, output: output.stream, redirectConsole: false }),
  );

  input.push(line(request(1, "tools/call", { name: "slow" })) + line(request(2, "ping")));
  await until(() => output.text() !== "", "the ping reply");
  assert.deepEqual(replies(output.text()), [{ jsonrpc: "2.0", id: 2, result: {} }]);
  assert.equal(slow.started(), true);

  slow.release();
  input.end();
  await connected;
  assert.deepEqual(replies(output.text()).map((reply) => reply.id), [2, 1]);
});

Deno.test("server.connect() sends no reply for a request the client cancelled", async () => {
  const waiting = waitingTool("wait");
  const server = createServer({ name: "s", version: "1", tools: [waiting.tool] });
  const input = feed();
  const output = sink();
  const connected = server.connect(
    new StdioTransport({ input: input.stream, output: output.stream, redirectConsole: false }),
  );

  input.push(line(request("c1", "tools/call", { name: "wait" })));
  await until(() => waiting.signal() !== undefined, "the tool to start");
  input.push(line(notification("notifications/cancelled", { requestId: "c1", reason: "user" })));
  input.push(line(request(2, "ping")));
  input.end();
  await connected;

  assert.equal(waiting.signal()?.aborted, true);
  assert.deepEqual(replies(output.text()), [{ jsonrpc: "2.0", id: 2, result: {} }]);
});

Deno.test("server.connect() keeps a tool's console.log off the output and restores console.log", async () => {
  const originalLog = console.log;
  const originalError = console.error;
  const printed: unknown[][] = [];
  const toStderr: unknown[][] = [];
  const spyLog = (...data: unknown[]) => void printed.push(data);
  console.log = spyLog;
  console.error = (...data: unknown[]) => void toStderr.push(data);
  try {
    const server = createServer({
      name: "s",
      version: "1",
      log: () => {},
      tools: [defineTool({
        name: "noisy",
        description: "Prints while it works",
        inputSchema: { type: "object" },
        handler: () => {
          console.log("noise");
          return "quiet result";
        },
      })],
    });
    const output = sink();
    // The console is redirected here, as it is by default.
    const transport = new StdioTransport({
      input: ReadableStream.from([
        encoder.encode(line(request(1, "tools/call", { name: "noisy" }))),
      ]),
      output: output.stream,
    });
    assert.notEqual(console.log, spyLog, "console.log is not redirected while serving");
    await server.connect(transport);

    assert.ok(!output.text().includes("noise"));
    assert.equal(textOf(replies(output.text())[0]), "quiet result");
    assert.deepEqual(printed, [], "console.log reached stdout");
    assert.deepEqual(toStderr, [["noise"]]);
    assert.equal(console.log, spyLog, "console.log was not restored when the session ended");
  } finally {
    console.log = originalLog;
    console.error = originalError;
  }
});

Deno.test("server.close() aborts an in-flight handler and makes connect() resolve", async () => {
  const waiting = waitingTool("wait");
  const { lines, log } = captureLog();
  const server = createServer({ name: "s", version: "1", log, tools: [waiting.tool] });
  const input = feed();
  const output = sink();
  const connected = server.connect(
    new StdioTransport({ input: input.stream, output: output.stream, redirectConsole: false }),
  );

  input.push(line(request(1, "tools/call", { name: "wait" })));
  await until(() => waiting.signal() !== undefined, "the tool to start");
  assert.equal(waiting.signal()?.aborted, false);

  // The input never ends: close() alone must end the session (checked without hanging on it).
  const closing = tracked(Promise.all([server.close(), connected]));
  await until(closing.settled, "close() and connect() to resolve");
  await closing.promise;
  assert.equal(waiting.signal()?.aborted, true);
  assert.ok(input.cancelled(), "the input was not released");
  assert.ok(output.closed(), "the output was not closed");
  // The aborted call is still answered (an error), so the client is not left waiting.
  const answered = replies(output.text());
  assert.deepEqual(answered.map((reply) => [reply.id, "error" in reply]), [[1, true]]);
  assert.deepEqual(lines, []);
  await assert.rejects(
    server.connect(
      new StdioTransport({ input: feed().stream, output: sink().stream, redirectConsole: false }),
    ),
    /Cannot connect: the server is closed/,
  );
});

/** A tool that never finishes and never looks at its signal. */
const stuckTool = defineTool({
  name: "stuck",
  description: "Ignores cancellation",
  inputSchema: { type: "object" },
  handler: () => new Promise<string>(() => {}),
});

// After the grace period the connection aborts in-flight requests and waits
// only a bounded time, so a handler that ignores its signal cannot keep a stdio
// server alive after EOF.
Deno.test({
  name: "server.connect() resolves after the grace period even if a handler ignores its signal",
  fn: async () => {
    const server = createServer({
      name: "s",
      version: "1",
      shutdownGraceMs: 0,
      tools: [stuckTool],
    });
    const output = sink();
    const connected = tracked(server.connect(
      new StdioTransport({
        input: ReadableStream.from([
          encoder.encode(line(request(1, "tools/call", { name: "stuck" }))),
        ]),
        output: output.stream,
        redirectConsole: false,
      }),
    ));
    await until(connected.settled, "connect() to give up on the stuck call");
    await connected.promise;
    assert.ok(output.closed());
    for (const reply of replies(output.text())) assert.ok("error" in reply);
  },
});

// close() awaits each session's connection, which must also give up on the stuck handler.
Deno.test({
  name: "server.close() resolves even if a handler ignores its signal",
  fn: async () => {
    const server = createServer({
      name: "s",
      version: "1",
      shutdownGraceMs: 50,
      tools: [stuckTool],
    });
    const input = feed();
    const connected = server.connect(
      new StdioTransport({ input: input.stream, output: sink().stream, redirectConsole: false }),
    );
    input.push(line(request(1, "tools/call", { name: "stuck" })));
    await settle();
    const closing = tracked(Promise.all([server.close(), connected]));
    await until(closing.settled, "close() and connect() to resolve");
    await closing.promise;
  },
});
