/**
 * Clients that keep every byte a server writes, at the lowest point of each
 * transport: the frames of the memory pair, the bytes of the stdio
 * transport over byte streams, and every HTTP response body (JSON and SSE,
 * read to their end by a tee while the client reads its own copy).
 */

import assert from "node:assert/strict";
import type { Server } from "../../mod.ts";
import { createMemoryPair } from "../../testing.ts";
import { StdioTransport } from "../../src/transports/stdio.ts";
import { ENDPOINT, headersFor } from "./http_helpers.ts";
import { SECRET } from "./leaky_tools.ts";
import type { Planted } from "./planted_requests.ts";

/** Reads a stream to its end into `into`, as text. */
async function drain(stream: ReadableStream<Uint8Array>, into: string[]): Promise<void> {
  const decoder = new TextDecoder();
  for await (const chunk of stream) into.push(decoder.decode(chunk, { stream: true }));
  into.push(decoder.decode());
}

/** `server` with a `fetch` that keeps every byte of every response body in `bytes`. */
export function recordingFetch(
  server: Server,
  bytes: string[],
  drains: Promise<void>[],
): (request: Request) => Promise<Response> {
  return async (request) => {
    const response = await server.fetch(request);
    if (response.body === null) return response;
    const [mine, theirs] = response.body.tee();
    drains.push(drain(mine, bytes));
    return new Response(theirs, { status: response.status, headers: response.headers });
  };
}

/** Reads what the client gets of a response; a stream that stays open is let go after `ms`. */
async function consume(response: Response, ms: number): Promise<void> {
  const body = response.body;
  if (body === null) return;
  const reader = body.getReader();
  const deadline = setTimeout(() => reader.cancel().catch(() => {}), ms);
  try {
    while (!(await reader.read()).done);
  } catch {
    // Cancelled at the deadline: the recorder still reads the stream to its end.
  } finally {
    clearTimeout(deadline);
  }
}

/** Sends every planted request over HTTP: a legacy session, and sessionless modern POSTs. */
export async function overHttp(fetch: (request: Request) => Promise<Response>, planted: Planted[]) {
  const base = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  const postOf = (body: unknown, headers: Record<string, string>) =>
    fetch(
      new Request(ENDPOINT, {
        method: "POST",
        headers: { ...base, ...headers },
        body: JSON.stringify(body),
      }),
    );
  const init = await postOf({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: { [SECRET]: {} },
      clientInfo: { name: SECRET, version: SECRET },
    },
  }, {});
  const session = init.headers.get("mcp-session-id");
  assert.ok(session !== null, "the legacy session opened");
  await consume(init, 2000);
  await consume(
    await postOf({ jsonrpc: "2.0", method: "notifications/initialized" }, {
      "mcp-session-id": session,
      "mcp-protocol-version": "2025-11-25",
    }),
    2000,
  );
  const statuses = new Set<number>();
  for (const { era, body, patch } of planted) {
    const headers: Record<string, string> = era === "legacy"
      ? { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" }
      : {};
    if (era === "modern") {
      const conforming = headersFor(body as { method: string; params?: Record<string, unknown> });
      for (const [key, value] of Object.entries({ ...conforming, ...patch })) {
        if (value !== null) headers[key] = value;
      }
    }
    const response = await postOf(body, headers);
    statuses.add(response.status);
    await consume(response, body.method === "subscriptions/listen" ? 100 : 3000);
  }
  return statuses;
}

/** A client's end of a connection: frames to send, and each frame the server writes. */
export interface ClientEnd {
  send(frame: string): Promise<void>;
  frames: AsyncIterable<string>;
  close(): Promise<void>;
}

/** The memory pair: the server's frames as its transport's writable got them. */
export function memoryEnd(server: Server): [ClientEnd, Promise<void>] {
  const [client, end] = createMemoryPair();
  const writer = client.writable.getWriter();
  return [{
    send: (frame) => writer.write(frame),
    frames: client.readable,
    close: () => writer.close().catch(() => {}),
  }, server.connect(end)];
}

/** The stdio transport over byte streams: every byte it writes, split at its newlines. */
export function stdioEnd(server: Server): [ClientEnd, Promise<void>] {
  const input = new TransformStream<Uint8Array, Uint8Array>();
  const output = new TransformStream<Uint8Array, Uint8Array>();
  const writer = input.writable.getWriter();
  const encoder = new TextEncoder();
  const transport = new StdioTransport({
    input: input.readable,
    output: output.writable,
    redirectConsole: false,
  });
  let rest = "";
  const lines = output.readable.pipeThrough(new TextDecoderStream()).pipeThrough(
    new TransformStream<string, string>({
      transform(chunk, controller) {
        const parts = (rest + chunk).split("\n");
        rest = parts.pop() ?? "";
        for (const line of parts) controller.enqueue(line);
      },
    }),
  );
  return [{
    send: (frame) => writer.write(encoder.encode(`${frame}\n`)),
    frames: lines,
    close: () => writer.close().catch(() => {}),
  }, server.connect(transport)];
}

/** Sends every planted request over a connection, keeping every frame the server writes. */
export async function overConnection(
  [client, served]: [ClientEnd, Promise<void>],
  planted: Planted[],
  frames: string[],
) {
  const waiting = new Map<unknown, () => void>();
  const reading = (async () => {
    for await (const frame of client.frames) {
      frames.push(frame);
      const message: unknown = JSON.parse(frame);
      if (typeof message === "object" && message !== null && "id" in message) {
        waiting.get(message.id)?.();
      }
    }
  })();
  const send = async (body: Record<string, unknown>, wait: boolean) => {
    const answered = new Promise<void>((resolve) => {
      waiting.set(body.id, resolve);
      // A request nobody answers (a listen, a notification) must not stall the run.
      setTimeout(resolve, wait ? 3000 : 0);
    });
    await client.send(JSON.stringify(body));
    await answered;
  };
  await send({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: SECRET, version: "1" },
    },
  }, true);
  await send({ jsonrpc: "2.0", method: "notifications/initialized" }, false);
  for (const { body } of planted) {
    const wait = body.id !== undefined && body.method !== "subscriptions/listen";
    await send(body, wait);
  }
  return async () => {
    await client.close();
    await Promise.all([served, reading]);
  };
}
