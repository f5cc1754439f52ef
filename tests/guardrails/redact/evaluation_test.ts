/**
 * The redactor measured with data Warden did not write: secrets generated
 * from another scanner's published rule set (gitleaks' default
 * configuration, from npm), that rule set's own look-alikes, and over 50 MB
 * of real text gathered from this machine, where every mask is a false
 * positive. Each test prints its figures (docs/redaction.md quotes them)
 * and asserts the targets of issue 23.
 */

import assert from "node:assert/strict";
import { compileRedactor, redactText } from "../../../src/guardrails/redact/engine.ts";
import { redactResult } from "../../../src/guardrails/redact/guardrail.ts";
import {
  FOREIGN_CONTEXTS,
  foreignLookalikes,
  foreignSecrets,
  RULE_SOURCE,
} from "../../_helpers/redact_eval_secrets.ts";
import { benignCorpus } from "../../_helpers/redact_eval_benign.ts";

// A mask no real text holds, so counting masks is counting occurrences.
const MASK = "\u27e6M\u27e7";
const redactor = compileRedactor({ mask: MASK });

/** What a code assistant's tool returns: the text as one text block, through the guardrail. */
function throughGuardrail(text: string): string {
  const result = redactResult(redactor, "tool", { content: [{ type: "text", text }] });
  const [block] = result.content as { text: string }[];
  return block?.text ?? "";
}

function countMasks(text: string): number {
  let count = 0;
  for (let at = text.indexOf(MASK); at >= 0; at = text.indexOf(MASK, at + 1)) count++;
  return count;
}

function percent(part: number, whole: number): string {
  return `${(100 * part / Math.max(1, whole)).toFixed(1)}%`;
}

Deno.test("the redactor catches a scanner's real-format secrets in every context (recall targets)", async () => {
  const { samples, skipped } = await foreignSecrets();
  const cells = new Map<string, { hit: number; all: number }>();
  const families = new Map<string, { hit: number; all: number }>();
  const misses: string[] = [];
  for (const sample of samples) {
    for (const [context, wrap] of Object.entries(FOREIGN_CONTEXTS)) {
      const text = wrap(sample);
      const masked = throughGuardrail(text);
      const hit = !masked.includes(sample.secret);
      const cell = `${sample.kind}\t${context}`;
      const counts = cells.get(cell) ?? { hit: 0, all: 0 };
      counts.all++;
      if (hit) counts.hit++;
      cells.set(cell, counts);
      if (sample.kind === "identifier") continue;
      const family = families.get(sample.family) ?? { hit: 0, all: 0 };
      family.all++;
      if (hit) family.hit++;
      families.set(sample.family, family);
      if (!hit) misses.push(`${sample.rule} (${context}): ${text.replaceAll("\n", "\\n")}`);
    }
  }
  console.log(
    `${RULE_SOURCE}: ${samples.length} samples from ${
      new Set(samples.map((s) => s.rule)).size
    } rules, ${skipped.length} rules left out (${skipped.join(", ")})`,
  );
  for (const [cell, { hit, all }] of [...cells].sort()) {
    console.log(`  ${cell}\t${percent(hit, all)} of ${all}`);
  }
  const weak = [...families].filter(([, { hit, all }]) => hit < all)
    .map(([family, { hit, all }]) => `${family} ${hit}/${all}`);
  console.log(`  families with a miss: ${weak.join(", ") || "none"} (of ${families.size})`);
  for (const miss of misses.slice(0, 30)) console.log(`  missed ${miss.slice(0, 200)}`);
  assert.ok(families.size >= 60, `only ${families.size} families`);
  for (const [cell, { hit, all }] of cells) {
    const [kind] = cell.split("\t");
    if (kind === "self") assert.ok(hit / all >= 0.97, `${cell}: ${percent(hit, all)}`);
    if (kind === "keyword") assert.ok(hit / all >= 0.95, `${cell}: ${percent(hit, all)}`);
  }
});

Deno.test("the redactor masks few of the look-alikes the scanner's rule set declares not secret", async () => {
  const lookalikes = await foreignLookalikes();
  const masked = lookalikes.filter((item) => redactText(redactor, item.text) !== item.text);
  const form = lookalikes.filter((item) => item.kind === "form");
  const formMasked = masked.filter((item) => item.kind === "form");
  const listed = lookalikes.length - form.length;
  console.log(
    `look-alikes: ${percent(masked.length, lookalikes.length)} of ${lookalikes.length} masked; ` +
      `by form ${percent(formMasked.length, form.length)} of ${form.length}, ` +
      `listed literals ${masked.length - formMasked.length} of ${listed}`,
  );
  for (const item of masked) console.log(`  masked (${item.kind}) ${item.rule}: ${item.text}`);
  assert.ok(form.length >= 150, `only ${form.length} look-alikes`);
  assert.ok(formMasked.length / form.length <= 0.05, percent(formMasked.length, form.length));
});

Deno.test("the redactor masks at most 1 thing per MiB of real text from this machine", async () => {
  const started = performance.now();
  const files = await benignCorpus();
  const read = performance.now() - started;
  let bytes = 0;
  let masks = 0;
  let time = 0;
  const found: string[] = [];
  for (const { path, text } of files) {
    bytes += new TextEncoder().encode(text).length;
    const before = performance.now();
    const masked = throughGuardrail(text);
    time += performance.now() - before;
    const count = countMasks(masked) - countMasks(text);
    if (count <= 0) continue;
    masks += count;
    const at = masked.indexOf(MASK);
    found.push(`${path}: …${masked.slice(Math.max(0, at - 60), at + 20).replaceAll("\n", "\\n")}…`);
  }
  const mib = bytes / 1048576;
  console.log(
    `benign: ${mib.toFixed(1)} MiB in ${files.length} files (read in ${
      (read / 1000).toFixed(1)
    } s), ` +
      `${masks} masks = ${(masks / mib).toFixed(2)} per MiB, ${
        (mib / (time / 1000)).toFixed(1)
      } MiB/s ` +
      "through the guardrail (JSON files parsed)",
  );
  for (const line of found) console.log(`  ${line}`);
  assert.ok(bytes >= 50 * 1000 * 1000, `only ${mib.toFixed(1)} MiB of text on this machine`);
  assert.ok(masks / mib <= 1, `${(masks / mib).toFixed(2)} false masks per MiB`);
});

/** Real text with a real-format secret every 2 KiB or so: what a busy tool result looks like. */
async function mixedText(bytes: number): Promise<string> {
  const files = await benignCorpus(bytes);
  const { samples } = await foreignSecrets(5, 1);
  const contexts = Object.values(FOREIGN_CONTEXTS);
  const parts: string[] = [];
  let size = 0;
  let next = 0;
  for (const { text } of files) {
    for (let at = 0; at < text.length && size < bytes; at += 2048) {
      const sample = samples[next % samples.length];
      const wrap = contexts[next % contexts.length];
      next++;
      const piece = text.slice(at, at + 2048) + "\n" + (sample && wrap ? wrap(sample) : "") + "\n";
      parts.push(piece);
      size += piece.length;
    }
  }
  return parts.join("");
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

Deno.test("the redactor's throughput on mixed text, against a one-regex scan of the same text", async () => {
  const text = await mixedText(8 * 1024 * 1024);
  const mib = text.length / 1048576;
  // The ceiling: one sticky-free global regex over the runs the scanner looks at, doing nothing else.
  const runs = /[A-Za-z0-9_+\/.~-]{11,}/g;
  const ceiling: number[] = [];
  const redactor = compileRedactor();
  const ours: number[] = [];
  let sink = 0;
  for (let round = 0; round < 5; round++) {
    let started = performance.now();
    runs.lastIndex = 0;
    while (runs.exec(text) !== null) sink++;
    ceiling.push(mib / ((performance.now() - started) / 1000));
    started = performance.now();
    sink += redactText(redactor, text).length;
    ours.push(mib / ((performance.now() - started) / 1000));
  }
  const rate = median(ours);
  const top = median(ceiling);
  console.log(
    `throughput: ${rate.toFixed(1)} MiB/s on ${mib.toFixed(1)} MiB of mixed text (median of 5, ` +
      `range ${Math.min(...ours).toFixed(1)}-${Math.max(...ours).toFixed(1)}); one-regex scan ` +
      `${top.toFixed(1)} MiB/s; ratio ${
        (rate / top).toFixed(2)
      } (indicative: the machine is shared)`,
  );
  assert.ok(sink > 0);
  // A floor far under the target, so a loaded machine does not fail it; the figure is what counts.
  assert.ok(rate >= 5, `${rate.toFixed(1)} MiB/s`);
});
