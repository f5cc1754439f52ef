/**
 * The scanner reads the text as one byte per UTF-16 code unit. These tests
 * hold that view to the string it stands for, whatever the text holds
 * (accents, CJK, emoji, lone surrogates), and check that redaction finds the
 * same secrets at the same offsets whatever non-ASCII text surrounds them.
 */

import assert from "node:assert/strict";
import { unitBytes } from "../../../src/guardrails/redact/units.ts";
import { compileRedactor, redactText } from "../../../src/guardrails/redact/engine.ts";
import { lookalikeCorpus, secretCorpus } from "../../_helpers/redact_corpus.ts";
import { prng } from "../../_helpers/redact_samples.ts";

/** Pieces that take 1, 2, 3 and 4 UTF-8 bytes, and both lone surrogates. */
const PIECES = ["a", "=", " ", "é", "ß", "ü", "—", "中", "文", "€", "😀", "🔑", "\ud800", "\udc00"];

function randomText(random: () => number, length: number): string {
  let text = "";
  while (text.length < length) text += PIECES[Math.floor(random() * PIECES.length)] ?? "";
  return text;
}

Deno.test("unitBytes() gives one byte per code unit: ASCII as itself, anything else as 0x80", () => {
  const random = prng(5);
  for (let round = 0; round < 500; round++) {
    const text = randomText(random, Math.floor(random() * 300));
    const units = unitBytes(text);
    assert.equal(units.length, text.length, JSON.stringify(text));
    for (let index = 0; index < text.length; index++) {
      const code = text.charCodeAt(index);
      assert.equal(units[index], code < 128 ? code : 0x80, `${JSON.stringify(text)} at ${index}`);
    }
  }
});

Deno.test("unitBytes() ends where the text ends, after a longer text filled the buffer", () => {
  unitBytes("x".repeat(100_000));
  const units = unitBytes("ab");
  assert.equal(units.length, 2);
  assert.equal(units[2], undefined);
  // Texts beyond the kept buffer get their own, and still map exactly.
  const large = "é🔑a".repeat(400_000);
  const view = unitBytes(large);
  assert.equal(view.length, large.length);
  assert.deepEqual([view[0], view[1], view[2], view[3], view.at(-1)], [0x80, 0x80, 0x80, 97, 97]);
});

Deno.test("unitBytes() maps every short length exactly, before and after the buffer grows", () => {
  // Short texts reuse views made once per buffer: each must end where its text ends, and a
  // grown buffer must get views of its own.
  for (const grow of [0, 200_000]) {
    if (grow > 0) unitBytes("y".repeat(grow));
    // A text past the short ones is encoded into the shared buffer itself.
    const shared = unitBytes("z".repeat(100)).buffer;
    for (let length = 0; length <= 30; length++) {
      const text = "é".repeat(length % 3) + "k".repeat(length - (length % 3));
      const units = unitBytes(text);
      assert.equal(units.length, length);
      assert.equal(units.buffer, shared, "a view of the shared buffer");
      for (let index = 0; index < length; index++) {
        assert.equal(units[index], text.charCodeAt(index) < 128 ? text.charCodeAt(index) : 0x80);
      }
      assert.equal(units[length], undefined);
    }
  }
});

Deno.test("a scan leaves no copy of the text in the reused buffer, ASCII or not", () => {
  const redactor = compileRedactor();
  // Non-ASCII before the secret pushes its UTF-8 bytes past the compacted units; the last text
  // fits the shared buffer as ASCII would, but its UTF-8 needs a buffer of its own.
  const texts = [
    "api_token=Zq9xL2m4Wv7Rt1Kp and more",
    `${"🔑".repeat(12)} api_token=Zq9xL2m4Wv7Rt1Kp`,
    `api_token=Zq9xL2m4Wv7Rt1Kp ${"é".repeat(500_000)}`,
  ];
  for (const text of texts) {
    redactText(redactor, text);
    // An empty text's view writes nothing and shows the whole shared buffer.
    const whole = new Uint8Array(unitBytes("").buffer);
    assert.ok(whole.length > 0);
    assert.ok(!new TextDecoder().decode(whole).includes("Zq9x"), `no trace of ${text}`);
  }
});

Deno.test("redaction masks the same secrets whatever non-ASCII text comes before and after", () => {
  const redactor = compileRedactor();
  const random = prng(9);
  const items = [...secretCorpus(3, 1), ...lookalikeCorpus(3, 1)];
  for (const item of items) {
    const plain = redactText(redactor, item.text);
    const before = randomText(random, 1 + Math.floor(random() * 12));
    const after = randomText(random, 1 + Math.floor(random() * 12));
    // A space on each side keeps the pieces from running into the item's tokens.
    const wrapped = redactText(redactor, `${before} ${item.text} ${after}`);
    assert.equal(wrapped, `${before} ${plain} ${after}`, `${item.family} (${item.context})`);
  }
});
