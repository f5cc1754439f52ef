/**
 * The text as one byte per UTF-16 code unit, for the scanner's main loop.
 *
 * Reading a typed array costs a fraction of `charCodeAt` (more so on the
 * sliced strings `slice()` returns), and the native UTF-8 encoder fills one
 * at memory speed. Every code unit the scanner classifies is ASCII; anything
 * else is class 0 to it, so each non-ASCII unit becomes the byte 0x80 and
 * offsets stay those of the string.
 *
 * @module
 */

const encoder = new TextEncoder();
/** Reused between calls (the scan is synchronous); texts beyond this size get their own. */
const KEEP_BYTES = 1 << 20;
let shared = new Uint8Array(16 * 1024);

/**
 * `text`'s code units as bytes: ASCII units as themselves, any other as
 * 0x80. The result is valid until the next call (the buffer is reused).
 */
export function unitBytes(text: string): Uint8Array {
  const length = text.length;
  // UTF-8 takes at most 3 bytes per code unit (a surrogate pair takes 4 for 2).
  const needed = length * 3;
  let buffer = shared;
  if (buffer.length < needed) {
    buffer = new Uint8Array(needed);
    if (needed <= KEEP_BYTES) shared = buffer;
  }
  const { written } = encoder.encodeInto(text, buffer);
  if (written !== length) compactUtf8(buffer, written);
  // A view of exactly the text: reading past either end gives `undefined`, as `charCodeAt` gives NaN.
  return buffer.subarray(0, length);
}

/**
 * Rewrites UTF-8 in place as one byte per UTF-16 code unit: a sequence's
 * lead byte becomes 0x80 (two of them for a 4-byte sequence, which is a
 * surrogate pair in the string), continuation bytes are dropped. Lone
 * surrogates were encoded as U+FFFD, one unit each, so they map right too.
 */
function compactUtf8(buffer: Uint8Array, written: number): void {
  let out = 0;
  for (let index = 0; index < written; index++) {
    const byte = buffer[index] ?? 0;
    if (byte < 0x80) buffer[out++] = byte;
    else if (byte >= 0xf0) {
      // The second write may land on this sequence's next byte: 0x80 is still a continuation.
      buffer[out++] = 0x80;
      buffer[out++] = 0x80;
    } else if (byte >= 0xc0) buffer[out++] = 0x80;
  }
}
