/**
 * Keep-alive comments on long-lived SSE streams: every open stream gets
 * them, from one shared timer that stops with the last stream (the test's
 * timer sanitizer fails on one left running).
 */

import assert from "node:assert/strict";
import { keepAliveTimers, SseWriter } from "../../src/http/sse.ts";

/** Reads a stream's body in the background until it ends; `text` is what arrived so far. */
function collect(body: ReadableStream<Uint8Array>): { text: () => string; done: Promise<void> } {
  let text = "";
  const done = (async () => {
    for await (const chunk of body.pipeThrough(new TextDecoderStream())) text += chunk;
  })().catch(() => {});
  return { text: () => text, done };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

Deno.test("keep-alive: every open stream gets comments; closing the last stops the shared timer", async () => {
  let closed = 0;
  const streams = [1, 2, 3].map(() => new SseWriter(() => closed++, 15));
  const bodies = streams.map((stream) => collect(stream.body));
  await sleep(80);
  assert.equal(keepAliveTimers(), 1, "one timer for three streams");
  for (const body of bodies) assert.match(body.text(), /^(: keep-alive\n\n)+$/);
  // One stream closed leaves the others served.
  streams[0]?.close();
  assert.equal(closed, 1);
  const before = bodies[1]?.text().length ?? 0;
  await sleep(50);
  assert.ok((bodies[1]?.text().length ?? 0) > before, "the other streams still get comments");
  for (const stream of streams) stream.close();
  assert.equal(closed, 3);
  assert.equal(keepAliveTimers(), 0, "the timer stops with the last stream");
  await Promise.all(bodies.map((body) => body.done));
});

Deno.test("keep-alive: a stream without it gets none", async () => {
  const stream = new SseWriter(() => {}, 0);
  const body = collect(stream.body);
  await sleep(40);
  assert.equal(body.text(), "");
  assert.equal(keepAliveTimers(), 0);
  stream.close();
  await body.done;
});
