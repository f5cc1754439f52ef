/**
 * The stdio transport's input side without a Web Stream: bytes from stdin
 * (or a given byte stream) read into one reused buffer, split into lines, and
 * handed to a session as one array per read. A Web Stream is built over it
 * only for a caller that reads the transport's `readable`; a server's first
 * reply then never waits for Deno to load its streams implementation.
 *
 * @module
 */

import { type DroppedLine, SplitterState } from "./line_splitter.ts";
import type { FrameBatchReader } from "./transport.ts";

/** The buffer a byte-stream input is read into, reused read after read. */
const READ_BYTES = 64 * 1024;

/** Reads into the buffer it is given: the bytes read (at least one), or null at EOF. */
type ReadInto = (buffer: Uint8Array) => Promise<number | null>;

/** A source of bytes: how to read it, how to stop it, and whether it reuses its buffer. */
export interface ByteSource {
  /** The next chunk, or undefined at EOF. */
  read(): Promise<Uint8Array | undefined>;
  /** Stops reading (the stream's cancel). */
  cancel(reason: unknown): Promise<void>;
  /** Whether a chunk's memory is reused by the next read. */
  readonly reusesBuffer: boolean;
}

/** Reads a file (stdin) with one reused buffer. */
export function fileSource(readInto: ReadInto): ByteSource {
  const buffer = new Uint8Array(READ_BYTES);
  let done = false;
  return {
    reusesBuffer: true,
    async read() {
      if (done) return undefined;
      const read = await readInto(buffer);
      if (read === null) done = true;
      return read === null ? undefined : buffer.subarray(0, read);
    },
    cancel() {
      // A read in progress cannot be interrupted; its bytes are simply not used.
      done = true;
      return Promise.resolve();
    },
  };
}

/**
 * Reads a stream: a byte stream with a BYOB reader into one buffer that
 * comes back read after read, any other stream chunk by chunk.
 */
export function streamSource(input: ReadableStream<Uint8Array>): ByteSource {
  let byob: ReadableStreamBYOBReader | undefined;
  try {
    byob = input.getReader({ mode: "byob" });
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
  }
  if (byob === undefined) {
    const reader = input.getReader();
    return {
      reusesBuffer: false,
      async read() {
        return (await reader.read()).value;
      },
      cancel: (reason) => reader.cancel(reason),
    };
  }
  const reader = byob;
  let buffer: ArrayBufferLike = new ArrayBuffer(READ_BYTES);
  return {
    reusesBuffer: true,
    async read() {
      const { value, done } = await reader.read(new Uint8Array(buffer));
      // The buffer was transferred to the read and comes back as the view's.
      if (value !== undefined) buffer = value.buffer;
      return done ? undefined : value;
    },
    cancel: (reason) => reader.cancel(reason),
  };
}

type Batch = ReadableStreamReadResult<readonly string[]>;

const DONE: Batch = Object.freeze({ done: true });

/**
 * The lines of a byte source, as one array per read that completes any. The
 * splitter copies only an unfinished tail when the source reuses its buffer.
 * It reads as a stream reader does: `cancel()` and the abort of `signal` end
 * it at once, a read still waiting then answering `done`; a failure while
 * splitting cancels the source with that error and fails the read.
 */
export class LineBatchReader implements FrameBatchReader {
  readonly #source: ByteSource;
  readonly #splitter: SplitterState;
  readonly #signal: AbortSignal | undefined;
  #ended = false;
  /** Settles the read in progress with `done` when the input ends under it. */
  #waiting: ((batch: Batch) => void) | undefined;

  constructor(
    source: ByteSource,
    maxLineBytes: number,
    onDropped: (info: DroppedLine) => void,
    signal: AbortSignal | undefined,
  ) {
    this.#source = source;
    this.#splitter = new SplitterState(maxLineBytes, onDropped, source.reusesBuffer);
    this.#signal = signal;
    if (signal?.aborted) this.#end();
    else signal?.addEventListener("abort", this.#end, { once: true });
  }

  /** The lines of the next read that completes any, or `done` at the end. */
  read(): Promise<Batch> {
    if (this.#ended) return Promise.resolve(DONE);
    return new Promise<Batch>((resolve, reject) => {
      this.#waiting = resolve;
      this.#pull().then(
        (batch) => this.#settle(resolve, () => resolve(batch)),
        (error: unknown) => this.#settle(resolve, () => reject(error)),
      );
    });
  }

  /** Ends the input: a waiting read answers `done`, and the source is stopped. */
  cancel(reason?: unknown): Promise<void> {
    if (this.#ended) return Promise.resolve();
    this.#finish();
    return this.#source.cancel(reason);
  }

  /** Stops listening to the signal: nothing reads this reader any more. */
  releaseLock(): void {
    this.#signal?.removeEventListener("abort", this.#end);
  }

  /** Settles a read unless the input ended under it (it answered `done` then). */
  #settle(resolve: (batch: Batch) => void, settle: () => void): void {
    if (this.#waiting !== resolve) return;
    this.#waiting = undefined;
    settle();
  }

  /** Marks the end and answers a waiting read with `done`. */
  #finish(): void {
    this.#ended = true;
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.(DONE);
  }

  readonly #end = (): void => {
    if (this.#ended) return;
    this.#finish();
    this.#source.cancel(this.#signal?.reason).catch(() => {});
  };

  async #pull(): Promise<Batch> {
    try {
      while (true) {
        const chunk = await this.#source.read();
        if (this.#ended) return DONE;
        const lines: string[] = [];
        if (chunk === undefined) {
          // What EOF completes is the last batch; the next read answers done.
          this.#ended = true;
          this.#splitter.end(lines);
          return lines.length > 0 ? { done: false, value: lines } : DONE;
        }
        this.#splitter.push(chunk, lines);
        if (lines.length > 0) return { done: false, value: lines };
      }
    } catch (error) {
      if (this.#ended) return DONE;
      this.#ended = true;
      await this.#source.cancel(error).catch(() => {});
      throw error;
    }
  }
}

/** The frames of `batches` one by one, as a Web Stream, for a caller reading `readable`. */
export function frameStream(batches: LineBatchReader): ReadableStream<string> {
  return new ReadableStream<string>({
    async pull(controller) {
      const batch = await batches.read();
      if (batch.done) controller.close();
      else for (const line of batch.value) controller.enqueue(line);
    },
    cancel: (reason) => batches.cancel(reason),
  }, { highWaterMark: 0 });
}
