/**
 * The per-call memo of large masked texts: a remembered result is read only
 * inside the step that reads the record, for the same redactor and mask,
 * and nothing is remembered outside a recording step.
 */

import assert from "node:assert/strict";
import {
  type Compiled,
  compiledOf,
  compileRedactor,
  maskText,
} from "../../../src/guardrails/redact/engine.ts";
import {
  type MaskedTexts,
  MEMO_MIN_UNITS,
  readingMasks,
  startRecording,
  stopRecording,
} from "../../../src/guardrails/redact/memo.ts";
import { scansOf } from "../../_helpers/scan_counter.ts";

const SECRET = "ghp_R8mZ2kQ7vX4nB1cT6yH3jW9pL5sD0fGaE2uK";
const LARGE = `${"words and more words ".repeat(MEMO_MIN_UNITS / 16)} ${SECRET}`;

/** Masks `text` as a recording step; the result and the record. */
function recorded(compiled: Compiled, mask: string, text: string) {
  const outer = startRecording(compiled, mask);
  const value = maskText(compiled, mask, text);
  return { value, record: stopRecording(outer) };
}

/** Masks `text` as the step reading `record` does. */
function read(record: MaskedTexts, compiled: Compiled, mask: string, text: string): string {
  return readingMasks(
    record,
    <V>(value: V): V => maskText(compiled, mask, String(value)) as V,
    text,
  );
}

Deno.test("a recorded large text is read back for the same redactor and mask, and only there", () => {
  const redactor = compileRedactor();
  const compiled = compiledOf(redactor);
  const { value, record } = recorded(compiled, redactor.mask, LARGE);
  assert.ok(record !== undefined && !value.includes(SECRET));
  // Read inside the reading step: no scan, the same result.
  let again = "";
  assert.equal(
    scansOf(LARGE, () => void (again = read(record, compiled, redactor.mask, LARGE))),
    0,
  );
  assert.equal(again, value);
  // Outside it, with another mask, or another redactor: scanned as usual.
  assert.equal(scansOf(LARGE, () => maskText(compiled, redactor.mask, LARGE)), 1);
  assert.equal(scansOf(LARGE, () => read(record, compiled, "***", LARGE)), 1);
  const other = compiledOf(compileRedactor({ presets: ["jwt"] }));
  assert.equal(scansOf(LARGE, () => read(record, other, redactor.mask, LARGE)), 1);
});

Deno.test("small texts are not recorded; a step that masked no large text leaves no record", () => {
  const redactor = compileRedactor();
  const compiled = compiledOf(redactor);
  assert.equal(recorded(compiled, redactor.mask, `token ${SECRET}`).record, undefined);
  // After a step, nothing records: a later large text leaves nothing behind.
  const outer = startRecording(compiled, redactor.mask);
  assert.equal(stopRecording(outer), undefined);
  maskText(compiled, redactor.mask, LARGE);
  assert.equal(stopRecording(undefined), undefined);
});
