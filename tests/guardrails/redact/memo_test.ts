/**
 * The per-call memo of large masked texts: a remembered result is read only
 * inside the step that reads the record, for the same redactor and mask,
 * and nothing is remembered outside a recording step.
 */

import assert from "node:assert/strict";
import { compiledOf, compileRedactor, maskText } from "../../../src/guardrails/redact/engine.ts";
import {
  MEMO_MIN_UNITS,
  readingMasks,
  recordingMasks,
} from "../../../src/guardrails/redact/memo.ts";

const SECRET = "ghp_R8mZ2kQ7vX4nB1cT6yH3jW9pL5sD0fGaE2uK";
const LARGE = `${"words and more words ".repeat(MEMO_MIN_UNITS / 16)} ${SECRET}`;

/** How many scans `body` runs over exactly `text` (the scanner encodes each text it scans once). */
function scansOf(text: string, body: () => void): number {
  const original = TextEncoder.prototype.encodeInto;
  let scans = 0;
  TextEncoder.prototype.encodeInto = function (source, destination) {
    if (source === text) scans++;
    return original.call(this, source, destination);
  };
  try {
    body();
  } finally {
    TextEncoder.prototype.encodeInto = original;
  }
  return scans;
}

Deno.test("a recorded large text is read back for the same redactor and mask, and only there", () => {
  const redactor = compileRedactor();
  const compiled = compiledOf(redactor);
  const { value, record } = recordingMasks(
    compiled,
    redactor.mask,
    () => maskText(compiled, redactor.mask, LARGE),
  );
  assert.ok(record !== undefined && !value.includes(SECRET));
  // Read inside the reading step: no scan, the same result.
  let again = "";
  assert.equal(
    scansOf(LARGE, () => {
      again = readingMasks(record, () => maskText(compiled, redactor.mask, LARGE));
    }),
    0,
  );
  assert.equal(again, value);
  // Outside it, with another mask, or another redactor: scanned as usual.
  assert.equal(scansOf(LARGE, () => maskText(compiled, redactor.mask, LARGE)), 1);
  assert.equal(
    scansOf(LARGE, () => readingMasks(record, () => maskText(compiled, "***", LARGE))),
    1,
  );
  const other = compiledOf(compileRedactor({ presets: ["jwt"] }));
  assert.equal(
    scansOf(LARGE, () => readingMasks(record, () => maskText(other, redactor.mask, LARGE))),
    1,
  );
});

Deno.test("small texts are not recorded; a step that masked no large text leaves no record", () => {
  const redactor = compileRedactor();
  const compiled = compiledOf(redactor);
  const { record } = recordingMasks(
    compiled,
    redactor.mask,
    () => maskText(compiled, redactor.mask, `token ${SECRET}`),
  );
  assert.equal(record, undefined);
});
