import assert from "node:assert/strict";
import { compileRedactor, redactText } from "../../../src/guardrails/redact/engine.ts";
import { redactValue } from "../../../src/guardrails/redact/value.ts";
import { PROVIDER_FORMATS } from "../../../src/guardrails/redact/providers.ts";
import { KEYED_FAMILIES, lookalikeCorpus, secretCorpus } from "../../_helpers/redact_corpus.ts";

const redactor = compileRedactor();

Deno.test("redactText() masks at least 95% of a generated corpus of real-format secrets", () => {
  const corpus = secretCorpus();
  const missed = corpus.filter((item) =>
    redactText(redactor, item.text).includes(item.secret ?? "")
  );
  const families = new Set([
    ...PROVIDER_FORMATS.map((row) => row.family),
    ...KEYED_FAMILIES.map((row) => row.family),
  ]);
  const rate = 1 - missed.length / corpus.length;
  console.log(
    `detection: ${(rate * 100).toFixed(2)}% of ${corpus.length} secrets, ${families.size} families`,
  );
  for (const item of missed.slice(0, 20)) {
    console.log(`  missed ${item.family} (${item.context}): ${item.text}`);
  }
  assert.ok(families.size > 100);
  assert.ok(rate >= 0.95, `detection ${rate}`);
});

Deno.test("redactText() changes at most 2% of a generated corpus of look-alikes", () => {
  const corpus = lookalikeCorpus();
  const changed = corpus.filter((item) => redactText(redactor, item.text) !== item.text);
  const rate = changed.length / corpus.length;
  console.log(`false positives: ${(rate * 100).toFixed(2)}% of ${corpus.length} look-alikes`);
  for (const item of changed.slice(0, 20)) {
    console.log(
      `  changed ${item.family} (${item.context}): ${item.text.slice(0, 160)}\n    → ${
        redactText(redactor, item.text).slice(0, 160)
      }`,
    );
  }
  assert.ok(rate <= 0.02, `false positives ${rate}`);
});

Deno.test("redactText() is idempotent, and redactValue() masks what it does in JSON text", () => {
  // Every outgoing channel may pass text through the masker more than once (a reply, then its
  // audit entry): a second pass must change nothing.
  const corpus = [...secretCorpus(99, 1), ...lookalikeCorpus(99, 2)];
  for (const item of corpus) {
    const once = redactText(redactor, item.text);
    assert.equal(redactText(redactor, once), once, item.text);
    if (item.context === "json" || item.context === "jsonNested") {
      const masked = JSON.stringify(redactValue(redactor, JSON.parse(item.text)));
      assert.ok(!masked.includes(item.secret ?? "\u0000"), `${item.family}: ${masked}`);
    }
  }
});
