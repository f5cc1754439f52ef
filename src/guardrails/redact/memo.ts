/**
 * Large texts masked once per call: the redaction step records what it
 * masked in a call's result, kept with the outcome it returns, and the audit
 * log reads that record back while it masks the same call's entry. A tool
 * that echoes its input (a formatter, a pass-through) then has the megabyte
 * scanned once, not once per copy. Masking is a pure function of the
 * redactor, the mask and the text, so a remembered result is the result; the
 * record lives as long as the call's outcome and no longer, so no unmasked
 * text is kept past the call.
 *
 * @module
 */

/** Texts shorter than this are scanned again: remembering them would cost more than it saves. */
export const MEMO_MIN_UNITS = 16 * 1024;
/** The most texts one record keeps (a result with many large parts keeps its first). */
const MEMO_MAX_TEXTS = 16;

/** Texts masked by one redactor with one mask, and what each became. */
export interface MaskedTexts {
  /** The compiled redactor (by identity). */
  readonly compiled: object;
  /** The mask text. */
  readonly mask: string;
  /** The texts, as given. */
  readonly texts: string[];
  /** What each became, by index. */
  readonly masked: string[];
}

/** What the running step records into, if any (steps are synchronous: one at a time). */
let recording: MaskedTexts | undefined;
/** What the running step may read from, if any. */
let reading: MaskedTexts | undefined;

/**
 * Runs `mask` recording the large texts it masks with `compiled` and `mask`;
 * returns its value and the record (undefined when it masked none).
 */
export function recordingMasks<T>(
  compiled: object,
  maskText: string,
  mask: () => T,
): { value: T; record: MaskedTexts | undefined } {
  const outer = recording;
  const record: MaskedTexts = { compiled, mask: maskText, texts: [], masked: [] };
  recording = record;
  try {
    const value = mask();
    return { value, record: record.texts.length === 0 ? undefined : record };
  } finally {
    recording = outer;
  }
}

/** Runs `mask` with `record`'s texts remembered (nothing when it is undefined). */
export function readingMasks<T>(record: MaskedTexts | undefined, mask: () => T): T {
  if (record === undefined) return mask();
  const outer = reading;
  reading = record;
  try {
    return mask();
  } finally {
    reading = outer;
  }
}

/** What `text` became under `compiled` and `mask` in the record being read, if it is there. */
export function rememberedMask(compiled: object, mask: string, text: string): string | undefined {
  const record = reading;
  if (record === undefined || record.compiled !== compiled || record.mask !== mask) return;
  // Usually the very same string (an echo returns what it was given): equal at once.
  const index = record.texts.indexOf(text);
  return index < 0 ? undefined : record.masked[index];
}

/** Notes that `text` became `masked`, when a step is recording with `compiled` and `mask`. */
export function rememberMask(compiled: object, mask: string, text: string, masked: string): void {
  const record = recording;
  if (record === undefined || record.compiled !== compiled || record.mask !== mask) return;
  if (record.texts.length >= MEMO_MAX_TEXTS) return;
  record.texts.push(text);
  record.masked.push(masked);
}
