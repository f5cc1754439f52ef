/**
 * The redactor's throughput on mixed text: prose, log lines, JSON records,
 * `.env` lines, code and base64, with a real-format secret every 2 KiB or
 * so, generated from the redaction tests' corpora (seeded, so every run
 * reads the same text).
 *
 * Under `deno bench` (and so `deno task bench`) it registers one benchmark
 * per input shape. Run directly it measures interleaved rounds (a bare
 * character loop over the same text, then each input shape, in an order
 * that rotates every round) and prints, per shape, the median MiB/s by the
 * process's CPU time with its range, and the median of the per-round ratios
 * to the bare loop with theirs:
 *
 * `deno run tests/bench/redact_bench.ts [--rounds 15] [--mib 4]`
 *
 * @module
 */

import process from "node:process";
import { parseArgs } from "node:util";
import { compileRedactor, redactText } from "../../src/guardrails/redact/engine.ts";
import { lookalikeCorpus, PROSE_LOOKALIKES, secretCorpus } from "../_helpers/redact_corpus.ts";
import { prng } from "../_helpers/redact_samples.ts";

const CODE = [
  "export async function getOrder(id: string): Promise<Order> {",
  "  const response = await fetch(`${BASE_URL}/orders/${id}`, { headers });",
  "  if (!response.ok) throw new Error(`HTTP ${response.status}`);",
  "  return (await response.json()) as Order;",
  "}",
];
const PROSE =
  "The order desk answers questions about orders, refunds and deliveries. A refund is issued " +
  "within five working days once the parcel is back at the warehouse, and the customer gets " +
  "an email with the tracking number and the expected date.";

/** About `bytes` characters of mixed text, one line per item. */
export function mixedText(bytes: number, seed = 7): string {
  const random = prng(seed);
  const secrets = secretCorpus(seed, 1).map((item) => item.text);
  const lookalikes = lookalikeCorpus(seed, 4).map((item) => item.text);
  const lines: string[] = [];
  let size = 0;
  let sinceSecret = 0;
  while (size < bytes) {
    const pick = random();
    let line: string;
    if (sinceSecret > 2048) {
      line = secrets[Math.floor(random() * secrets.length)] ?? "";
      sinceSecret = 0;
    } else if (pick < 0.3) line = PROSE;
    else if (pick < 0.55) line = lookalikes[Math.floor(random() * lookalikes.length)] ?? "";
    else if (pick < 0.7) line = CODE[Math.floor(random() * CODE.length)] ?? "";
    else if (pick < 0.85) {
      line = JSON.stringify({
        id: Math.floor(random() * 1e6),
        status: "shipped",
        items: [{ sku: "A-1", qty: 2 }],
        note: PROSE.slice(0, 80),
      });
    } else if (pick < 0.95) {
      line = `2026-12-03T07:30:00Z INFO order=${Math.floor(random() * 1e6)} status=200 ms=${
        Math.floor(random() * 500)
      } path=/api/v1/orders`;
    } else line = PROSE_LOOKALIKES[Math.floor(random() * PROSE_LOOKALIKES.length)] ?? "";
    lines.push(line);
    size += line.length + 1;
    sinceSecret += line.length + 1;
  }
  return lines.join("\n");
}

const MIB = 1024 * 1024;
const redactor = compileRedactor();

/** MiB/s of `pass` over `total` characters, by the process's CPU time (immune to other processes' turns). */
function cpuRate(pass: () => void, total: number): number {
  const cpu = process.cpuUsage();
  pass();
  const used = process.cpuUsage(cpu);
  return total / MIB / ((used.user + used.system) / 1e6);
}

/** A loop that only reads every character: how fast this runtime scans text at all. */
function bareLoop(text: string): number {
  let colons = 0;
  for (let index = 0; index < text.length; index++) {
    if (text.charCodeAt(index) === 58) colons++;
  }
  return colons;
}

/**
 * `text` cut into pieces of `size` characters, each a string of its own as a
 * tool's result is. (`slice()` alone returns views into `text`, which every
 * reader pays for: see the "slices" row.)
 */
function pieces(text: string, size: number, own: boolean): string[] {
  const chunks: string[] = [];
  for (let at = 0; at < text.length; at += size) {
    const chunk = text.slice(at, at + size);
    chunks.push(own ? JSON.parse(JSON.stringify(chunk)) : chunk);
  }
  return chunks;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function range(values: readonly number[], digits: number): string {
  const sorted = [...values].sort((a, b) => a - b);
  return `${(sorted[0] ?? 0).toFixed(digits)}–${(sorted.at(-1) ?? 0).toFixed(digits)}`;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { rounds: { type: "string", default: "15" }, mib: { type: "string", default: "4" } },
  });
  const rounds = Number(values.rounds);
  const text = mixedText(Number(values.mib) * MIB);
  const shapes: [string, string[]][] = [
    [`one ${values.mib} MiB text`, [text]],
    ["64 KiB texts", pieces(text, 64 * 1024, true)],
    ["4 KiB texts (a typical tool result)", pieces(text, 4 * 1024, true)],
    ["4 KiB slices of one text", pieces(text, 4 * 1024, false)],
  ];
  const passes = shapes.map(([, chunks]) => () => {
    for (const chunk of chunks) redactText(redactor, chunk);
  });
  const bare = (): void => void bareLoop(text);
  for (let warm = 0; warm < 3; warm++) {
    [bare, ...passes].forEach((pass) => cpuRate(pass, text.length));
  }
  const bareRates: number[] = [];
  const rates = shapes.map((): number[] => []);
  for (let round = 0; round < rounds; round++) {
    bareRates.push(cpuRate(bare, text.length));
    for (let turn = 0; turn < passes.length; turn++) {
      const index = (round + turn) % passes.length;
      rates[index]?.push(cpuRate(passes[index] ?? bare, text.length));
    }
  }
  console.log(
    `redactText() on mixed text (${text.length} characters), ${rounds} interleaved rounds after 3 warm-up`,
  );
  console.log("| input | median MiB/s (CPU) | range | × bare loop (median) | range |");
  console.log("| --- | ---: | ---: | ---: | ---: |");
  console.log(
    `| a bare loop over the text | ${median(bareRates).toFixed(1)} | ${
      range(bareRates, 0)
    } | 1 | |`,
  );
  shapes.forEach(([name], index) => {
    const own = rates[index] ?? [];
    const ratios = own.map((rate, round) => rate / (bareRates[round] ?? rate));
    console.log(
      `| ${name} | ${median(own).toFixed(1)} | ${range(own, 0)} | ${median(ratios).toFixed(2)} | ${
        range(ratios, 2)
      } |`,
    );
  });
} else {
  const text = mixedText(MIB);
  const group = "redaction: redactText() over 1 MiB of mixed text";
  Deno.bench({ name: "one 1 MiB text", group, baseline: true }, () => {
    redactText(redactor, text);
  });
  const small = pieces(text, 4 * 1024, true);
  Deno.bench({ name: "256 texts of 4 KiB", group }, () => {
    for (const chunk of small) redactText(redactor, chunk);
  });
}
