/**
 * Appends lines to a file, in order, a batch at a time: what the file audit
 * sink writes with. One writer loop appends whatever was queued while the
 * previous batch was being written, encoding it into a reused buffer (one
 * encoder call per bufferful) and writing whole lines per write, and syncs
 * it when asked to. The file is opened on the first append with
 * `node:fs/promises`, loaded then, so servers without a file sink never load
 * Node compatibility (cold start).
 *
 * @module
 */

import type { FileHandle } from "node:fs/promises";

const MIN_BUFFER_BYTES = 16 * 1024;
const MAX_BUFFER_BYTES = 1024 * 1024;

/** A resolver waiting for the first `target` lines to settle. */
interface Waiter {
  readonly target: number;
  readonly resolve: () => void;
}

/**
 * An append-only line writer for one file. A file that cannot be opened or
 * written is reported, its batch dropped, and the next batch tries again;
 * nothing it does throws or rejects.
 */
export class FileAppender {
  readonly #path: string;
  readonly #sync: boolean;
  readonly #report: (error: unknown) => void;
  readonly #encoder = new TextEncoder();
  /** Lines without their line feed, oldest first. */
  #queue: string[] = [];
  /** Reused for every batch; only the writer loop uses it. */
  #buffer: Uint8Array | undefined;
  /** Lines taken by append(). */
  #accepted = 0;
  /** Lines appended, or dropped after a failure. */
  #settled = 0;
  readonly #waiters: Waiter[] = [];
  #handle: FileHandle | null = null;
  #draining = false;
  #closing: Promise<void> | null = null;

  /**
   * @param path The file; created if missing, appended to if not.
   * @param sync Whether each batch is followed by `datasync`.
   * @param report Where failures go.
   */
  constructor(path: string, sync: boolean, report: (error: unknown) => void) {
    this.#path = path;
    this.#sync = sync;
    this.#report = report;
  }

  /** Whether {@linkcode FileAppender.close} was called. */
  get closed(): boolean {
    return this.#closing !== null;
  }

  /** Queues one line (without its line feed); returns how many lines were queued so far. */
  append(line: string): number {
    this.#queue.push(line);
    const accepted = ++this.#accepted;
    // drain() catches every failure itself, so its promise never rejects.
    if (!this.#draining) void this.#drain();
    return accepted;
  }

  /** Resolves once the first `target` lines queued are appended (or dropped after a failure). */
  settledUpTo(target: number): Promise<void> {
    if (this.#settled >= target) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ target, resolve }));
  }

  /** Resolves once every line queued so far is appended (or dropped). */
  flush(): Promise<void> {
    return this.settledUpTo(this.#accepted);
  }

  /** Flushes, then closes the file; idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.#shut();
    return this.#closing;
  }

  async #shut(): Promise<void> {
    await this.flush();
    const current = this.#handle;
    this.#handle = null;
    try {
      await current?.close();
    } catch (error) {
      this.#report(error);
    }
  }

  async #drain(): Promise<void> {
    this.#draining = true;
    while (this.#queue.length > 0) {
      const batch = this.#queue;
      const count = batch.length;
      this.#queue = [];
      try {
        this.#handle ??= await (await import("node:fs/promises")).open(this.#path, "a");
        await this.#write(this.#handle, batch);
        if (this.#sync) await this.#handle.datasync();
      } catch (error) {
        this.#report(error);
      }
      this.#settled += count;
      this.#wake();
    }
    this.#draining = false;
  }

  /**
   * Appends a batch: its lines joined and encoded at once into the reused
   * buffer (one encoder call per bufferful, not one per line: a call's own
   * cost outweighs encoding a short line), a bufferful at a time, each write
   * holding whole lines only: with the file opened for appending, two writers
   * sharing a file (two instances, each with its own chain) never interleave
   * inside a line.
   */
  async #write(file: FileHandle, lines: readonly string[]): Promise<void> {
    for (let start = 0; start < lines.length;) {
      // As many lines as fit a largest buffer at the worst case of 3 bytes a code unit; a
      // longer line goes alone, in a buffer of its own size.
      let units = (lines[start]?.length ?? 0) + 1;
      let end = start + 1;
      for (; end < lines.length; end++) {
        const more = units + (lines[end]?.length ?? 0) + 1;
        if (more * 3 > MAX_BUFFER_BYTES) break;
        units = more;
      }
      const text = end === start + 1
        ? `${lines[start]}\n`
        : `${lines.slice(start, end).join("\n")}\n`;
      const buffer = this.#bufferFor(text.length * 3);
      const { written } = this.#encoder.encodeInto(text, buffer);
      await this.#writeAll(file, buffer, written);
      start = end;
    }
  }

  /** The reused buffer, grown to at least `bytes` when it is smaller. */
  #bufferFor(bytes: number): Uint8Array {
    const current = this.#buffer;
    if (current !== undefined && current.length >= bytes) return current;
    this.#buffer = new Uint8Array(Math.max(bytes, MIN_BUFFER_BYTES));
    return this.#buffer;
  }

  /** Writes `buffer[0, length)` in full. */
  async #writeAll(file: FileHandle, buffer: Uint8Array, length: number): Promise<void> {
    for (let offset = 0; offset < length;) {
      const { bytesWritten } = await file.write(buffer, offset, length - offset);
      if (bytesWritten <= 0) throw new Error(`Cannot append to ${this.#path}: nothing was written`);
      offset += bytesWritten;
    }
  }

  /** Releases the waiters whose lines have all settled. */
  #wake(): void {
    // Targets only grow, so the waiters to release are always at the front.
    for (
      let first = this.#waiters[0];
      first !== undefined && first.target <= this.#settled;
      first = this.#waiters[0]
    ) {
      this.#waiters.shift();
      first.resolve();
    }
  }
}
