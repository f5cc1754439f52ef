/**
 * The dispatcher without any I/O: a batch of `tools/call` of `echo` through
 * the in-memory transport and `server.connect()`, and the same calls through
 * `server.handle()` directly. Every reply is checked, so a broken server
 * fails the benchmark instead of looking fast.
 *
 * Run: `deno bench tests/bench/dispatcher_bench.ts`
 *
 * @module
 */

import { MemoryTransport } from "../../testing.ts";
import { createEchoServer } from "./servers/warden_server.ts";

const CALLS = 100;
const INITIALIZE = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "warden-bench", version: "1.0.0" },
  },
};
const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" };
const calls = Array.from({ length: CALLS }, (_, i) => ({
  jsonrpc: "2.0",
  id: i + 1,
  method: "tools/call",
  params: { name: "echo", arguments: { text: `call-${i}` } },
}));

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The text of the first content block of a success reply, or undefined. */
function echoed(reply: unknown): unknown {
  if (!isRecord(reply) || !isRecord(reply.result)) return undefined;
  const content = reply.result.content;
  const block: unknown = Array.isArray(content) ? content[0] : undefined;
  return isRecord(block) ? block.text : undefined;
}

/** Throws unless `replies` hold exactly the echoes of `calls`, in any order. */
function checkReplies(replies: readonly unknown[]): void {
  const echoes = replies.filter((reply) => isRecord(reply) && reply.id !== 0);
  if (echoes.length !== CALLS) throw new Error(`Expected ${CALLS} echoes, got ${echoes.length}`);
  for (const reply of echoes) {
    const id = isRecord(reply) ? reply.id : undefined;
    if (typeof id !== "number" || echoed(reply) !== `call-${id - 1}`) {
      throw new Error(`Wrong reply: ${JSON.stringify(reply)}`);
    }
  }
}

const server = createEchoServer();
await server.handle(INITIALIZE);
await server.handle(INITIALIZED);

Deno.bench({
  name: `${CALLS} tools/call via MemoryTransport + server.connect()`,
  group: "dispatcher",
  baseline: true,
}, async (b) => {
  const transport = new MemoryTransport([INITIALIZE, INITIALIZED, ...calls]);
  b.start();
  await server.connect(transport);
  b.end();
  checkReplies(transport.replies);
});

Deno.bench({
  name: `${CALLS} tools/call via server.handle(), concurrently`,
  group: "dispatcher",
}, async () => {
  checkReplies(await Promise.all(calls.map((call) => server.handle(call))));
});

Deno.bench(
  { name: "1 tools/call via server.handle()", group: "dispatcher: one call" },
  async () => {
    const [call] = calls;
    const reply = await server.handle(call);
    if (echoed(reply) !== "call-0") throw new Error(`Wrong reply: ${JSON.stringify(reply)}`);
  },
);
