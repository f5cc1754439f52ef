/**
 * The stdio transport's `signal`: aborting it ends the input as EOF does,
 * at once, even while a read waits on an input that sends nothing more, so
 * a session on it finishes what it started and ends (what `serveStdio()`
 * does on SIGINT and SIGTERM, with no stream wrapped around stdin).
 */

import assert from "node:assert/strict";
import { createServer } from "../../mod.ts";
import { StdioTransport } from "../../src/transports/stdio.ts";
import { initialize, request } from "../_helpers/helpers.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** An input that sends `text` and then nothing, never ending by itself; `cancelled` says if it was. */
function silentAfter(
  text: string,
): { stream: ReadableStream<Uint8Array>; cancelled: () => boolean } {
  let cancelled = false;
  let sent = false;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent) return new Promise<void>(() => {});
      sent = true;
      controller.enqueue(encoder.encode(text));
    },
    cancel() {
      cancelled = true;
    },
  });
  return { stream, cancelled: () => cancelled };
}

Deno.test("aborting the stdio transport's signal ends a session whose input is silent, answering what it read", async () => {
  const writes: string[] = [];
  const output = new WritableStream<Uint8Array>({
    write: (chunk) => void writes.push(decoder.decode(chunk)),
  });
  const lines = [initialize(1), request(2, "ping")].map((m) => JSON.stringify(m)).join("\n");
  const input = silentAfter(`${lines}\n`);
  const stop = new AbortController();
  const server = createServer({ name: "s", version: "1" });
  const session = server.connect(
    new StdioTransport({
      input: input.stream,
      output,
      redirectConsole: false,
      signal: stop.signal,
    }),
  );
  // Both requests are answered while the input stays open.
  while (writes.join("").split("\n").length < 3) await new Promise((r) => setTimeout(r, 1));
  stop.abort();
  await session;
  const ids = writes.join("").trim().split("\n").map((line) => JSON.parse(line).id);
  assert.deepEqual(ids, [1, 2]);
  assert.ok(input.cancelled(), "the input was released");
  await server.close();
});

Deno.test("a stdio transport whose signal is aborted before any read reads nothing", async () => {
  const stop = new AbortController();
  stop.abort();
  const transport = new StdioTransport({
    input: silentAfter('{"a":1}\n').stream,
    output: new WritableStream(),
    redirectConsole: false,
    signal: stop.signal,
  });
  assert.deepEqual(await Array.fromAsync(transport.readable), []);
  await transport.writable.close();
});
