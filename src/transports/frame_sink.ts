/**
 * The byte side of the stdio transport's writable: frames (JSON texts)
 * become newline-terminated UTF-8, written to a byte stream with batching
 * and backpressure, or to a file descriptor with one blocking write per
 * batch.
 *
 * @module
 */

/** Above this many framed bytes waiting for the output, the producer's `write()` waits. */
const MAX_PENDING_BYTES = 1024 * 1024;

/**
 * Frames strings onto a byte stream's writer, batching frames that arrive
 * while a write is in flight; the stream is closed (or aborted) with the sink.
 */
export class FrameSink implements UnderlyingSink<string> {
  readonly #encoder = new TextEncoder();
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #onEnd: () => void;
  readonly #log: (message: string) => void;
  #controller: WritableStreamDefaultController | undefined;
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  #busy = false;
  #idle: Promise<void> = Promise.resolve();
  /** Set once the output failed or the writable was aborted: nothing more is written. */
  #stopped: { reason: unknown } | undefined;
  /** The producer waiting for pending frames to be taken; a WritableStream has one at most. */
  #waiter: PromiseWithResolvers<void> | undefined;

  constructor(
    writer: WritableStreamDefaultWriter<Uint8Array>,
    onEnd: () => void,
    log: (message: string) => void,
  ) {
    this.#writer = writer;
    this.#onEnd = onEnd;
    this.#log = log;
  }

  start(controller: WritableStreamDefaultController): void {
    this.#controller = controller;
    // The signal fires as soon as abort() is called, even while a write() waits for room.
    controller.signal.addEventListener("abort", () => this.#abort(controller.signal.reason));
  }

  async write(text: string): Promise<void> {
    if (typeof text !== "string") {
      throw new TypeError(`Cannot write frame: expected a string, got ${typeof text}`);
    }
    const frame = this.#encoder.encode(`${text}\n`);
    this.#pending.push(frame);
    this.#pendingBytes += frame.length;
    this.#flush();
    if (this.#pendingBytes > MAX_PENDING_BYTES) {
      this.#waiter = Promise.withResolvers();
      await this.#waiter.promise;
    }
  }

  async close(): Promise<void> {
    await this.#idle;
    if (this.#stopped !== undefined) throw this.#stopped.reason;
    try {
      await this.#writer.close();
    } finally {
      this.#onEnd();
    }
  }

  #flush(): void {
    if (this.#busy || this.#stopped !== undefined) return;
    this.#busy = true;
    this.#idle = this.#drain();
  }

  /** Writes batches until nothing is pending; never rejects. */
  async #drain(): Promise<void> {
    try {
      while (this.#pending.length > 0 && this.#stopped === undefined) {
        await this.#writer.write(this.#takePending());
      }
    } catch (error) {
      this.#fail(error);
    } finally {
      this.#busy = false;
    }
  }

  /** Joins every pending frame into one buffer, so many replies cost one underlying write. */
  #takePending(): Uint8Array {
    const frames = this.#pending;
    let batch = frames[0] ?? new Uint8Array(0);
    if (frames.length > 1) {
      batch = new Uint8Array(this.#pendingBytes);
      let offset = 0;
      for (const frame of frames) {
        batch.set(frame, offset);
        offset += frame.length;
      }
    }
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#waiter?.resolve();
    this.#waiter = undefined;
    return batch;
  }

  #fail(error: unknown): void {
    if (!this.#stop(error)) return;
    this.#controller?.error(error);
  }

  #abort(reason: unknown): void {
    if (!this.#stop(reason)) return;
    this.#writer.abort(reason).catch((error: unknown) => {
      this.#log(`warden: cannot abort the output: ${String(error)}`);
    });
  }

  /** Drops pending frames and frees a waiting producer; false if already stopped. */
  #stop(reason: unknown): boolean {
    if (this.#stopped !== undefined) return false;
    this.#stopped = { reason };
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#waiter?.reject(reason);
    this.#waiter = undefined;
    this.#onEnd();
    return true;
  }
}

/**
 * Frames strings straight onto a blocking file descriptor (the process's
 * stdout): each chunk the session writes (one frame, or a burst of them) is
 * encoded into one reused buffer and written with as few `writeSync` calls as
 * the descriptor needs, most often one. This is the fastest path Deno
 * offers, several times cheaper per write than its asynchronous writes, and
 * its backpressure is the descriptor's own: when the client stops reading,
 * the write blocks until it reads again.
 */
export class BlockingFrameSink implements UnderlyingSink<string> {
  readonly #encoder = new TextEncoder();
  readonly #writeSync: (bytes: Uint8Array) => number;
  readonly #onEnd: () => void;
  #buffer = new Uint8Array(64 * 1024);

  /**
   * @param writeSync Writes some bytes, returning how many were written.
   * @param onEnd Called once when the sink closes, aborts or fails.
   */
  constructor(writeSync: (bytes: Uint8Array) => number, onEnd: () => void) {
    this.#writeSync = writeSync;
    this.#onEnd = onEnd;
  }

  write(text: string): void {
    if (typeof text !== "string") {
      throw new TypeError(`Cannot write frame: expected a string, got ${typeof text}`);
    }
    // UTF-8 takes at most three bytes per UTF-16 unit, plus the newline.
    const most = text.length * 3 + 1;
    if (most > this.#buffer.length) {
      this.#buffer = new Uint8Array(Math.max(most, this.#buffer.length * 2));
    }
    const { written } = this.#encoder.encodeInto(text, this.#buffer);
    this.#buffer[written] = 0x0a;
    const bytes = this.#buffer.subarray(0, written + 1);
    try {
      for (let offset = 0; offset < bytes.length;) {
        offset += this.#writeSync(bytes.subarray(offset));
      }
    } catch (error) {
      this.#onEnd();
      throw error;
    }
  }

  close(): void {
    this.#onEnd();
  }

  abort(): void {
    this.#onEnd();
  }
}
