/**
 * In-memory transports: a scripted one that feeds a list of messages and
 * collects the replies, and a linked pair for a client and a server in one
 * process.
 *
 * @module
 */

import type { Transport } from "./transport.ts";

/**
 * A {@linkcode Transport} that sends a fixed list of messages, then EOF, and
 * collects every frame written back. Each message is sent as
 * `JSON.stringify(message)`, except a string, which is sent verbatim so a test
 * can feed text that is not JSON (to send a JSON string value, pass it
 * already stringified: `'"hello"'`).
 *
 * @throws {TypeError} If a message cannot be serialised (`undefined`, a
 * function, a `bigint`, a cycle).
 *
 * @example Usage
 * ```ts
 * import { MemoryTransport } from "@warden/mcp/testing";
 * const transport = new MemoryTransport([{ jsonrpc: "2.0", id: 1, method: "ping" }]);
 * const writer = transport.writable.getWriter();
 * for await (const frame of transport.readable) {
 *   const request = JSON.parse(frame);
 *   await writer.write(JSON.stringify({ jsonrpc: "2.0", id: request.id, result: {} }));
 * }
 * await writer.close();
 * await transport.closed;
 * console.assert(transport.replies.length === 1);
 * ```
 */
export class MemoryTransport implements Transport {
  /** The given messages as frames, then EOF. */
  readonly readable: ReadableStream<string>;
  /** Parses each frame into {@linkcode MemoryTransport.replies}. */
  readonly writable: WritableStream<string>;
  /** Every frame written so far, parsed, in order. */
  readonly replies: unknown[] = [];
  /**
   * Settles when the writable ends: resolves on close, rejects with the reason
   * on abort or when a frame was not JSON.
   */
  readonly closed: Promise<void>;

  /** Creates a transport that will send `messages` in order. */
  constructor(messages: readonly unknown[]) {
    const frames = messages.map(toFrame);
    let next = 0;
    this.readable = new ReadableStream<string>({
      pull: (controller) => {
        const frame = frames[next++];
        if (frame === undefined) controller.close();
        else controller.enqueue(frame);
      },
    });
    const closed = Promise.withResolvers<void>();
    // Marked handled: a test that never awaits `closed` must not fail on an unhandled rejection.
    closed.promise.catch(() => undefined);
    this.closed = closed.promise;
    this.writable = new WritableStream<string>({
      write: (chunk) => {
        try {
          // A chunk may carry several frames, one per line (see Transport).
          for (const frame of chunk.split("\n")) this.replies.push(JSON.parse(frame));
        } catch (error) {
          const detail = error instanceof Error ? error.message : String(error);
          const failure = new SyntaxError(
            `Cannot parse reply ${this.replies.length + 1}: ${detail}`,
          );
          closed.reject(failure);
          throw failure;
        }
      },
      close: () => closed.resolve(),
      abort: (reason) => closed.reject(reason),
    });
  }
}

function toFrame(message: unknown, index: number): string {
  if (typeof message === "string") return message;
  let frame: string | undefined;
  try {
    frame = JSON.stringify(message);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new TypeError(`Cannot create memory transport: message ${index} is not JSON: ${detail}`);
  }
  if (frame === undefined) {
    throw new TypeError(`Cannot create memory transport: message ${index} is not JSON`);
  }
  return frame;
}

/**
 * Creates two linked {@linkcode Transport}s: what one writes, the other reads,
 * in order. Closing one end's writable ends the other end's readable; each
 * direction is a `TransformStream`, so its queue carries backpressure.
 *
 * @returns The client end and the server end.
 *
 * @example Usage
 * ```ts
 * import { createMemoryPair } from "@warden/mcp/testing";
 * const [client, server] = createMemoryPair();
 * const writer = client.writable.getWriter();
 * const reading = Array.fromAsync(server.readable);
 * await writer.write('{"jsonrpc":"2.0","method":"notifications/initialized"}');
 * await writer.close();
 * console.assert((await reading).length === 1);
 * ```
 */
export function createMemoryPair(): [client: Transport, server: Transport] {
  const toServer = framePipe();
  const toClient = framePipe();
  return [
    { readable: toClient.readable, writable: toServer.writable },
    { readable: toServer.readable, writable: toClient.writable },
  ];
}

/** One direction of a pair; a non-string frame errors it, so a bug is not passed on as a frame. */
function framePipe(): TransformStream<string, string> {
  return new TransformStream<string, string>({
    transform: (frame, controller) => {
      if (typeof frame !== "string") {
        throw new TypeError(`Cannot send frame: expected a string, got ${typeof frame}`);
      }
      // A chunk may carry several frames, one per line (see Transport); the
      // other end reads them one by one.
      if (!frame.includes("\n")) {
        controller.enqueue(frame);
        return;
      }
      for (const line of frame.split("\n")) controller.enqueue(line);
    },
  });
}
