import assert from "node:assert/strict";
import { compileRedactor, redactText } from "../../../src/guardrails/redact/engine.ts";
import { parseFormat } from "../../../src/guardrails/redact/formats.ts";
import { PROVIDER_FORMATS } from "../../../src/guardrails/redact/providers.ts";
import { CONTEXTS, prng, sampleOf } from "../../_helpers/redact_samples.ts";

const M = "[REDACTED]";
const redactor = compileRedactor();

/** Flips the case of the letters of the format's literal prefix (or anchor). */
function flipped(text: string, literal: string): string {
  const at = text.indexOf(literal);
  const swapped = Array.from(
    literal,
    (c) => c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase(),
  )
    .join("");
  return text.slice(0, at) + swapped + text.slice(at + literal.length);
}

Deno.test("PROVIDER_FORMATS has unique ids, a prefix or an anchor, and over 100 families", () => {
  const ids = new Set(PROVIDER_FORMATS.map((row) => row.id));
  assert.equal(ids.size, PROVIDER_FORMATS.length);
  for (const row of PROVIDER_FORMATS) {
    const parsed = parseFormat(row.format);
    const lead = parsed.kept + parsed.prefix;
    assert.ok(lead.length >= 2 || (row.anchor ?? "").length >= 2, row.id);
    if (row.anchor !== undefined) assert.ok(row.format.includes(row.anchor), row.id);
  }
  const families = new Set(PROVIDER_FORMATS.map((row) => row.family));
  assert.ok(families.size > 100, `${families.size} families`);
});

for (const row of PROVIDER_FORMATS) {
  Deno.test(`redactText() masks ${row.family} (${row.id}) in every context, and not its look-alikes`, () => {
    const random = prng(row.id.length * 7919 + row.id.charCodeAt(0));
    const parsed = parseFormat(row.format);
    for (let round = 0; round < 4; round++) {
      const sample = sampleOf(parsed, random);
      for (const [name, context] of Object.entries(CONTEXTS)) {
        const text = context(sample.text);
        const masked = redactText(redactor, text);
        assert.ok(!masked.includes(sample.secret), `${name}: ${text}\n→ ${masked}`);
        assert.ok(masked.includes(M), `${name}: ${text}`);
        if (parsed.kept !== "" && name !== "envSecret") {
          assert.ok(masked.includes(parsed.kept), `${name} keeps the host`);
        }
      }
      // The built-in preset of the row finds it alone too.
      const alone = compileRedactor({ presets: [row.preset], defaultKeys: false });
      assert.equal(redactText(alone, `see ${sample.text} here`), `see ${parsed.kept}${M} here`);
    }
    // Look-alikes, judged by the row's own preset alone (the corpus test judges the whole redactor).
    const own = compileRedactor({ presets: [row.preset], defaultKeys: false });
    const sample = sampleOf(parsed, random);
    const literal = row.anchor ?? parsed.kept + parsed.prefix;
    const at = sample.text.indexOf(literal);
    const xs = (part: string): string => part.replace(/[A-Za-z0-9]/gu, "x");
    const lookalikes = [
      // Glued to a word: no token starts there.
      `zz${sample.text}`,
      // A documentation placeholder: the random part written as x's.
      xs(sample.text.slice(0, at)) + literal + xs(sample.text.slice(at + literal.length)),
    ];
    // The prefix in the wrong case.
    if (/[A-Za-z]/u.test(literal)) lookalikes.push(flipped(sample.text, literal));
    for (const lookalike of lookalikes) {
      const text = `The build log mentions ${lookalike} near the end`;
      assert.equal(redactText(own, text), text, `${row.id} look-alike ${lookalike}`);
    }
  });
}

Deno.test("redactText() masks a Telegram bot token glued to /bot in an API URL", () => {
  const token = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawQ";
  assert.equal(
    redactText(redactor, `GET https://api.telegram.org/bot${token}/getMe`),
    `GET https://api.telegram.org/bot${M}/getMe`,
  );
  const text = `see robot${token}`;
  assert.equal(redactText(compileRedactor({ presets: ["providers"] }), text), text);
});
