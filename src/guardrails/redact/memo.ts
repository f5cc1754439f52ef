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

/** What a recording step records with; its record is made at the first large text. */
interface Recording {
  compiled: object | undefined;
  mask: string;
  record: MaskedTexts | undefined;
}

/** The recording step running, if any (steps are synchronous: one at a time). */
const recording: Recording = { compiled: undefined, mask: "", record: undefined };
/** What the running step may read from, if any. */
let reading: MaskedTexts | undefined;

/**
 * Starts recording the large texts masked with `compiled` and `mask`;
 * returns what was being recorded before (none, but for a nested step), for
 * {@linkcode stopRecording}. Nothing is allocated for a call without large texts.
 */
export function startRecording(compiled: object, mask: string): Recording | undefined {
  const outer = recording.compiled === undefined ? undefined : { ...recording };
  recording.compiled = compiled;
  recording.mask = mask;
  recording.record = undefined;
  return outer;
}

/** Stops recording, restoring `outer`; returns the record (undefined when no large text was masked). */
export function stopRecording(outer: Recording | undefined): MaskedTexts | undefined {
  const { record } = recording;
  recording.compiled = outer?.compiled;
  recording.mask = outer?.mask ?? "";
  recording.record = outer?.record;
  return record;
}

/** `mask(value)` with `record`'s texts remembered. */
export function readingMasks<T>(record: MaskedTexts, mask: <V>(value: V) => V, value: T): T {
  const outer = reading;
  reading = record;
  try {
    return mask(value);
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
  if (recording.compiled !== compiled || recording.mask !== mask) return;
  recording.record ??= { compiled, mask, texts: [], masked: [] };
  const { texts } = recording.record;
  if (texts.length >= MEMO_MAX_TEXTS) return;
  texts.push(text);
  recording.record.masked.push(masked);
}
