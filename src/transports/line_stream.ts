/**
 * {@linkcode LineSplitter}: the line splitting of `line_splitter.ts` as a
 * `TransformStream`, apart from it so that only a caller that wants the
 * stream makes Deno load its streams.
 *
 * @module
 */

import { lineLimit, type LineSplitterOptions, SplitterState } from "./line_splitter.ts";

/**
 * A `TransformStream` from UTF-8 bytes to lines of text. It splits on `\n`,
 * strips one trailing `\r`, skips lines made only of JSON whitespace (space,
 * tab, `\r`) while still counting them, and emits a final line that lacks a
 * `\n` at EOF. Lines are decoded whole, so a chunk may end inside a multi-byte
 * character. A line that is not valid UTF-8 is dropped; so is a line longer
 * than `maxLineBytes`, whose bytes are discarded as soon as the limit is
 * passed rather than buffered.
 *
 * Chunks are kept by reference until their line completes, so a producer must
 * not reuse a chunk's memory after enqueueing it (the usual streams contract).
 *
 * @throws {RangeError} If `maxLineBytes` is not a positive integer.
 *
 * @example Usage
 * ```ts
 * import { LineSplitter } from "./line_stream.ts";
 * const bytes = new TextEncoder().encode('{"a":1}\r\n\n{"b":2}');
 * const lines = await Array.fromAsync(
 *   ReadableStream.from([bytes]).pipeThrough(new LineSplitter()),
 * );
 * console.assert(lines.length === 2 && lines[1] === '{"b":2}');
 * ```
 */
export class LineSplitter extends TransformStream<Uint8Array, string> {
  /** The limit in force, after the default was applied. */
  readonly maxLineBytes: number;
  readonly #state: SplitterState;

  /** Creates a splitter; see {@linkcode LineSplitterOptions}. */
  constructor(options: LineSplitterOptions = {}) {
    const maxLineBytes = lineLimit(options.maxLineBytes);
    const state = new SplitterState(maxLineBytes, options.onDropped, false);
    const lines: string[] = [];
    const emit = (controller: TransformStreamDefaultController<string>): void => {
      for (const line of lines) controller.enqueue(line);
      lines.length = 0;
    };
    super({
      transform: (chunk, controller) => {
        state.push(chunk, lines);
        emit(controller);
      },
      flush: (controller) => {
        state.end(lines);
        emit(controller);
      },
    });
    this.maxLineBytes = maxLineBytes;
    this.#state = state;
  }

  /**
   * Bytes held for the line in progress (diagnostic): never more than
   * `maxLineBytes + 1` (the `\r` of a `\r\n` may be the extra byte), however
   * long the line is.
   */
  get bufferedBytes(): number {
    return this.#state.pendingBytes;
  }
}
