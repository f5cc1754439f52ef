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

/** The part of a stream reader a session reads frames with. */
export interface FrameReader<T> {
  /** The next chunk, or `done` once the input has ended. */
  read(): Promise<ReadableStreamReadResult<T>>;
  /** Ends the input; a read still waiting answers `done`. */
  cancel(reason?: unknown): Promise<void>;
  /** Says the reader is no longer read. */
  releaseLock(): void;
}

/** A reader of every frame of one read at once. */
export type FrameBatchReader = FrameReader<readonly string[]>;

/** The part of a stream writer a session writes frames with. */
export interface FrameWriter {
  /** Writes one chunk (a frame, or several joined by `\n`); settles once it was accepted. */
  write(chunk: string): Promise<void>;
  /** Closes the output once what was written is out. */
  close(): Promise<void>;
}

/** How a transport hands a session its frames and its output without Web Streams. */
interface DirectSides {
  batches?: () => FrameBatchReader | undefined;
  writer?: () => FrameWriter | undefined;
}

const directSides = new WeakMap<Transport, DirectSides>();

/**
 * Registers `take` as the way to read `transport`'s incoming frames in
 * batches (all the frames of one read as one array), instead of one chunk
 * per frame from `readable`. `take` returns undefined once `readable` is in
 * use; after it returned a reader, `readable` is no longer readable.
 * Internal: how the stdio transport spares the session a promise per line,
 * and a server its first Web Stream.
 */
export function offerFrameBatches(
  transport: Transport,
  take: () => FrameBatchReader | undefined,
): void {
  directSides.set(transport, { ...directSides.get(transport), batches: take });
}

/** The transport's frames in batches, if it offers them and nobody reads `readable` yet. */
export function takeFrameBatches(transport: Transport): FrameBatchReader | undefined {
  return directSides.get(transport)?.batches?.();
}

/**
 * Registers `take` as the way to write `transport`'s outgoing frames without
 * `writable`. `take` returns undefined once `writable` is in use; after it
 * returned a writer, `writable` is no longer writable. Internal: how the
 * stdio transport writes to stdout with no Web Stream in between.
 */
export function offerFrameWriter(transport: Transport, take: () => FrameWriter | undefined): void {
  directSides.set(transport, { ...directSides.get(transport), writer: take });
}

/** The transport's direct writer, if it offers one and nobody writes `writable` yet. */
export function takeFrameWriter(transport: Transport): FrameWriter | undefined {
  return directSides.get(transport)?.writer?.();
}
