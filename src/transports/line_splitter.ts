/**
 * Splits bytes into newline-delimited text lines, the framing of the stdio
 * transport, without ever holding an over-long line in memory whole. The
 * `TransformStream` face, {@linkcode LineSplitter}, is in `line_stream.ts`:
 * evaluating a class that extends `TransformStream` makes Deno load its
 * streams, which the stdio transport does not need.
 *
 * @module
 */

/**
 * Why {@linkcode LineSplitter} dropped a line instead of emitting it.
 *
 * @example Describing a reason
 * ```ts
 * import type { DropReason } from "./line_splitter.ts";
 * const describe = (reason: DropReason): string =>
 *   reason === "too-long" ? "over the size limit" : "not UTF-8";
 * console.assert(describe("invalid-utf8") === "not UTF-8");
 * ```
 */
export type DropReason = "too-long" | "invalid-utf8";

/**
 * What {@linkcode LineSplitter} tells `onDropped` about a line it dropped:
 * never its content.
 *
 * @example Noting dropped lines
 * ```ts
 * import type { DroppedLine } from "./line_splitter.ts";
 * import { LineSplitter } from "./line_stream.ts";
 * const note = ({ line, bytes, reason }: DroppedLine): void =>
 *   console.error(`dropped line ${line} (${bytes} bytes): ${reason}`);
 * const splitter = new LineSplitter({ onDropped: note });
 * ```
 */
export interface DroppedLine {
  /** The 1-based line number, counting every line including blank and dropped ones. */
  readonly line: number;
  /** The line's size in bytes, without its `\n` or `\r\n` terminator. */
  readonly bytes: number;
  /** Why the line was dropped. */
  readonly reason: DropReason;
}

/**
 * Options for {@linkcode LineSplitter}.
 *
 * @example A 1 MiB limit
 * ```ts
 * import type { LineSplitterOptions } from "./line_splitter.ts";
 * import { LineSplitter } from "./line_stream.ts";
 * const options: LineSplitterOptions = { maxLineBytes: 1024 * 1024 };
 * const splitter = new LineSplitter(options);
 * ```
 */
export interface LineSplitterOptions {
  /**
   * The longest line, in bytes without its terminator, that is emitted.
   * Longer lines are discarded as they stream past and reported as `too-long`.
   *
   * @default {8388608}
   */
  readonly maxLineBytes?: number;
  /**
   * Called for every line that is dropped, with its number and size only.
   * An exception it throws errors the stream.
   */
  readonly onDropped?: (info: DroppedLine) => void;
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const SPACE = 0x20;
const TAB = 0x09;

/** 8 MiB: room for any sane JSON-RPC message, small enough to refuse a runaway peer. */
const DEFAULT_MAX_LINE_BYTES = 8 * 1024 * 1024;

/**
 * The line limit in force for an option value: the default when absent.
 *
 * @throws {RangeError} If it is not a positive integer.
 */
export function lineLimit(maxLineBytes: number | undefined): number {
  const limit = maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new RangeError(
      `Cannot create line splitter: maxLineBytes must be a positive integer, got ${limit}`,
    );
  }
  return limit;
}

/**
 * The splitting itself: bytes in, complete lines appended to an array, so a
 * caller can take every line of a chunk at once. {@linkcode LineSplitter}
 * wraps it in a `TransformStream`; the stdio transport drives it directly.
 */
export class SplitterState {
  readonly #maxLineBytes: number;
  readonly #onDropped: ((info: DroppedLine) => void) | undefined;
  // The lenient decoder is several times faster on large lines; the strict one
  // runs only when the text holds U+FFFD, to tell a real one from bad bytes.
  readonly #decoder = new TextDecoder("utf-8");
  readonly #strict = new TextDecoder("utf-8", { fatal: true });
  /** Pieces of the unfinished line, joined once when its `\n` arrives. */
  #parts: Uint8Array[] = [];
  #pendingBytes = 0;
  /** Bytes of an over-long line discarded so far, or -1 while not discarding. */
  #discardedBytes = -1;
  /** The last byte discarded, to tell whether an over-long line ended in `\r\n`. */
  #lastDiscardedByte = 0;
  #lineNumber = 0;

  /** Whether held pieces are copied, because the caller reuses the chunk's memory. */
  readonly #copyHeld: boolean;

  /**
   * @param copyHeld Copy the unfinished tail of each chunk, so the caller
   * may reuse the chunk's memory as soon as `push` returns.
   */
  constructor(
    maxLineBytes: number,
    onDropped: ((info: DroppedLine) => void) | undefined,
    copyHeld: boolean,
  ) {
    this.#maxLineBytes = maxLineBytes;
    this.#onDropped = onDropped;
    this.#copyHeld = copyHeld;
  }

  get pendingBytes(): number {
    return this.#pendingBytes;
  }

  /** Splits `chunk`, appending every line it completes to `out`. */
  push(chunk: Uint8Array, out: string[]): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      const piece = chunk.subarray(start, end);
      if (newline === -1) {
        this.#hold(piece);
        return;
      }
      this.#finishLine(piece, out);
      start = newline + 1;
    }
  }

  /** Ends the input: a last line without its `\n` is appended to `out`. */
  end(out: string[]): void {
    if (this.#discardedBytes >= 0 || this.#parts.length > 0) {
      this.#finishLine(new Uint8Array(0), out);
    }
  }

  /** Keeps a piece of an unfinished line, or discards it once the line is too long. */
  #hold(piece: Uint8Array): void {
    if (piece.length === 0) return;
    if (this.#discardedBytes >= 0) {
      this.#discard(piece);
    } else if (this.#pendingBytes + piece.length > this.#maxLineBytes + 1) {
      // One byte of slack: the line's last byte may be the `\r` of a `\r\n`.
      this.#discardedBytes = this.#pendingBytes;
      this.#parts = [];
      this.#pendingBytes = 0;
      this.#discard(piece);
    } else {
      this.#parts.push(this.#copyHeld ? piece.slice() : piece);
      this.#pendingBytes += piece.length;
    }
  }

  #discard(piece: Uint8Array): void {
    this.#discardedBytes += piece.length;
    this.#lastDiscardedByte = piece.at(-1) ?? this.#lastDiscardedByte;
  }

  /** Completes the current line with its last piece (possibly empty) and emits or drops it. */
  #finishLine(last: Uint8Array, out: string[]): void {
    this.#lineNumber++;
    const discarding = this.#discardedBytes >= 0;
    const total = (discarding ? this.#discardedBytes : this.#pendingBytes) + last.length;
    const lastByte = last.at(-1) ??
      (discarding ? this.#lastDiscardedByte : this.#parts.at(-1)?.at(-1));
    const size = lastByte === CARRIAGE_RETURN ? total - 1 : total;
    if (size > this.#maxLineBytes) {
      // Checked before joining, so a line is never assembled only to be dropped.
      this.#drop(size, "too-long");
    } else if (this.#parts.length === 0) {
      const line = last.subarray(0, size);
      if (!isBlank(line)) this.#emit(line, out);
    } else {
      this.#emitParts(last, size, out);
    }
    // Most lines arrive whole: their piece list stays the same empty array, with no allocation.
    if (this.#parts.length > 0) this.#parts = [];
    this.#pendingBytes = 0;
    this.#discardedBytes = -1;
  }

  #join(last: Uint8Array): Uint8Array {
    const line = new Uint8Array(this.#pendingBytes + last.length);
    let offset = 0;
    for (const part of this.#parts) {
      line.set(part, offset);
      offset += part.length;
    }
    line.set(last, offset);
    return line;
  }

  /**
   * Emits a line held in several pieces by decoding them one by one: no
   * buffer of the whole line is assembled, which keeps large lines linear.
   */
  #emitParts(last: Uint8Array, size: number, out: string[]): void {
    const pieces = [...this.#parts, last];
    // Drop the `\r` of a `\r\n` from whichever piece holds the line's last byte.
    let excess = this.#pendingBytes + last.length - size;
    for (let i = pieces.length - 1; excess > 0 && i >= 0; i--) {
      const piece = pieces[i] ?? new Uint8Array(0);
      const cut = Math.min(excess, piece.length);
      pieces[i] = piece.subarray(0, piece.length - cut);
      excess -= cut;
    }
    if (pieces.every(isBlank)) return;
    // Pieces are checked as they are decoded: testing the joined text would
    // first flatten it into one large string.
    let text = "";
    let suspect = false;
    for (const piece of pieces) {
      const part = this.#decoder.decode(piece, { stream: true });
      suspect ||= part.includes("\uFFFD");
      text += part;
    }
    const tail = this.#decoder.decode();
    suspect ||= tail.includes("\uFFFD");
    text += tail;
    if (suspect) {
      // Rare: a real U+FFFD or bad bytes. Only the strict decoder can tell.
      this.#emit(this.#join(last).subarray(0, size), out);
      return;
    }
    out.push(text);
  }

  #emit(line: Uint8Array, out: string[]): void {
    let text = this.#decoder.decode(line);
    try {
      if (text.includes("\uFFFD")) text = this.#strict.decode(line);
    } catch (error) {
      if (!(error instanceof TypeError)) throw error;
      this.#drop(line.length, "invalid-utf8");
      return;
    }
    out.push(text);
  }

  #drop(bytes: number, reason: DropReason): void {
    this.#onDropped?.({ line: this.#lineNumber, bytes, reason });
  }
}

/** True when every byte is JSON whitespace; a JSON line costs one byte of scanning. */
function isBlank(line: Uint8Array): boolean {
  for (const byte of line) {
    if (byte !== SPACE && byte !== TAB && byte !== CARRIAGE_RETURN) return false;
  }
  return true;
}
