/**
 * The one interface every transport implements.
 *
 * @module
 */

/**
 * A bidirectional stream of JSON-RPC frames. Each chunk read is the JSON text
 * of one message (or one batch). Each chunk written is the JSON text of one
 * message, or of several separated by `\n` when the session writes a burst
 * at once (compact JSON text never contains a raw newline, so the split is
 * unambiguous; a newline-delimited transport writes the chunk as it is).
 * Transports only frame; parsing and serialising belong to the session, so a
 * transport never sees a message it cannot encode.
 *
 * Lifecycle: `readable` ends when the peer is gone (EOF); the session then
 * finishes in-flight work and closes `writable`, which releases the
 * transport's resources. Writes arrive one at a time in order (the session
 * holds the only writer), and a write settles once the frame was accepted by
 * the underlying sink, which is how backpressure reaches the session.
 *
 * @example A transport from two streams you already have
 * ```ts
 * import type { Transport } from "@warden/mcp";
 * const { readable, writable } = new TransformStream<string, string>();
 * const loopback: Transport = { readable, writable };
 * ```
 */
export interface Transport {
  /** Frames from the peer, one JSON text each. */
  readonly readable: ReadableStream<string>;
  /** Frames to the peer, one JSON text each. */
  readonly writable: WritableStream<string>;
}

/** Transports that can hand over every frame of one read at once, and how to take them. */
const batchSources = new WeakMap<Transport, () => ReadableStream<readonly string[]> | undefined>();

/**
 * Registers `take` as the way to read `transport`'s incoming frames in
 * batches (all the frames of one read as one array), instead of one chunk
 * per frame from `readable`. `take` returns undefined once `readable` is in
 * use; after it returned a stream, `readable` is no longer readable.
 * Internal: how the stdio transport spares the session a promise per line.
 */
export function offerFrameBatches(
  transport: Transport,
  take: () => ReadableStream<readonly string[]> | undefined,
): void {
  batchSources.set(transport, take);
}

/** The transport's frames in batches, if it offers them and nobody reads `readable` yet. */
export function takeFrameBatches(
  transport: Transport,
): ReadableStream<readonly string[]> | undefined {
  return batchSources.get(transport)?.();
}
