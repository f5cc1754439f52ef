/**
 * The redactor's throughput on mixed text: prose, log lines, JSON records,
 * `.env` lines, code and base64, with a real-format secret every 2 KiB or
 * so, generated from the redaction tests' corpora (seeded, so every run
 * reads the same text).
 *
 * Under `deno bench` (and so `deno task bench`) it registers one benchmark
 * per input shape. Run directly it measures rounds and prints MiB/s, the
 * median and the spread:
 *
 * `deno run tests/bench/redact_bench.ts [--rounds 15] [--mib 4]`
 *
 * @module
 */

import process from "node:process";
import { parseArgs } from "node:util";
import { compileRedactor, redactText } from "../../guardrails.ts";
import { lookalikeCorpus, PROSE_LOOKALIKES, secretCorpus } from "../redact_corpus.ts";
import { prng } from "../redact_samples.ts";

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

/**
 * MiB/s of one pass of `redactText` over `chunks`: by the wall clock, and by
 * the process's CPU time (what the pass costs when it has a core to itself;
 * on a shared machine the wall clock also counts other processes' turns).
 */
function passRate(chunks: readonly string[], total: number): [wall: number, cpu: number] {
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (const chunk of chunks) redactText(redactor, chunk);
  const used = process.cpuUsage(cpu);
  const mib = total / MIB;
  return [mib / ((performance.now() - started) / 1000), mib / ((used.user + used.system) / 1e6)];
}

/** A loop that only reads every character: how fast this machine scans text at all. */
function bareLoop(text: string): number {
  let colons = 0;
  for (let index = 0; index < text.length; index++) {
    if (text.charCodeAt(index) === 58) colons++;
  }
  return colons;
}

function chunked(text: string, size: number): string[] {
  const chunks: string[] = [];
  for (let at = 0; at < text.length; at += size) chunks.push(text.slice(at, at + size));
  return chunks;
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
    ["64 KiB texts", chunked(text, 64 * 1024)],
    ["4 KiB texts (a typical tool result)", chunked(text, 4 * 1024)],
  ];
  console.log(
    `redactText() on mixed text (${text.length} characters), ${rounds} rounds after 3 warm-up`,
  );
  console.log(
    "| input | median MiB/s (wall) | min–max (wall) | median MiB/s (CPU) | min–max (CPU) |",
  );
  console.log("| --- | ---: | ---: | ---: | ---: |");
  const row = (name: string, samples: [number, number][]): void => {
    const wall = samples.map(([rate]) => rate).sort((a, b) => a - b);
    const cpu = samples.map(([, rate]) => rate).sort((a, b) => a - b);
    const mid = (list: number[]): string => (list[Math.floor(list.length / 2)] ?? 0).toFixed(1);
    const span = (list: number[]): string =>
      `${(list[0] ?? 0).toFixed(1)}–${(list.at(-1) ?? 0).toFixed(1)}`;
    console.log(`| ${name} | ${mid(wall)} | ${span(wall)} | ${mid(cpu)} | ${span(cpu)} |`);
  };
  const bare = (): [number, number] => {
    const started = performance.now();
    const cpu = process.cpuUsage();
    bareLoop(text);
    const used = process.cpuUsage(cpu);
    const mib = text.length / MIB;
    return [mib / ((performance.now() - started) / 1000), mib / ((used.user + used.system) / 1e6)];
  };
  for (let warm = 0; warm < 3; warm++) bare();
  row("(a bare loop over the text, for scale)", Array.from({ length: rounds }, bare));
  for (const [name, chunks] of shapes) {
    for (let warm = 0; warm < 3; warm++) passRate(chunks, text.length);
    row(name, Array.from({ length: rounds }, () => passRate(chunks, text.length)));
  }
} else {
  const text = mixedText(MIB);
  const group = "redaction: redactText() over 1 MiB of mixed text";
  Deno.bench({ name: "one 1 MiB text", group, baseline: true }, () => {
    redactText(redactor, text);
  });
  const small = chunked(text, 4 * 1024);
  Deno.bench({ name: "256 texts of 4 KiB", group }, () => {
    for (const chunk of small) redactText(redactor, chunk);
  });
}
