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
/** Reused between calls (the scan is synchronous); a text needing more gets its own. */
const KEEP_BYTES = 1 << 20;
let shared = new Uint8Array(16 * 1024);

/**
 * `text`'s code units as bytes: ASCII units as themselves, any other as
 * 0x80. The result is valid until the next call (the buffer is reused), and
 * the buffer holds nothing of `text` beyond it.
 */
export function unitBytes(text: string): Uint8Array {
  const length = text.length;
  if (length <= SHORT_UNITS) return shortUnitBytes(text);
  // Most text is ASCII: one byte per unit. UTF-8 takes up to 3 per unit otherwise.
  let buffer = bufferOf(length);
  const first = encoder.encodeInto(text, buffer);
  let written = first.written;
  if (first.read < length) {
    // The larger buffer may be another one: leave nothing of the text in this one.
    buffer.fill(0, 0, first.written);
    buffer = bufferOf(length * 3);
    written = encoder.encodeInto(text, buffer).written;
  }
  if (written !== length) compactUtf8(buffer, written);
  // A view of exactly the text: reading past either end gives `undefined`, as `charCodeAt` gives NaN.
  return buffer.subarray(0, length);
}

/** Up to this many units, a loop in script costs less than a call to the encoder. */
const SHORT_UNITS = 24;

/** Views of the start of `buffer`, by length, for the short texts. */
function shortViewsOf(buffer: Uint8Array): Uint8Array[] {
  return Array.from({ length: SHORT_UNITS + 1 }, (_, length) => buffer.subarray(0, length));
}

/** Made once per shared buffer: a new view per scan cost more than filling it. */
let shortViews = shortViewsOf(shared);

/** {@linkcode unitBytes} of a short text, unit by unit. */
function shortUnitBytes(text: string): Uint8Array {
  const length = text.length;
  const view = shortViews[length] ?? shared.subarray(0, length);
  for (let index = 0; index < length; index++) {
    const code = text.charCodeAt(index);
    view[index] = code < 0x80 ? code : 0x80;
  }
  return view;
}

function bufferOf(size: number): Uint8Array {
  if (shared.length >= size) return shared;
  const buffer = new Uint8Array(size);
  if (size <= KEEP_BYTES) {
    shared = buffer;
    shortViews = shortViewsOf(buffer);
  }
  return buffer;
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
  // What the encoder wrote past the compacted units is the text too.
  buffer.fill(0, out, written);
}
