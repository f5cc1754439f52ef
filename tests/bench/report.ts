/**
 * The benchmark report: medians and ratios to the raw loop as a markdown
 * table, the micro-benchmarks as another, and the targets judged
 * PASS or MISS.
 *
 * Ratios are paired: each round's figure is divided by the raw loop's figure
 * from the same round, and the median of those quotients is shown, so that
 * a burst of load from another process moves both sides of a ratio alike.
 *
 * @module
 */

import { type Measurement, median } from "./harness.ts";
import { microAvg, type MicroResult } from "./micro.ts";

/** One reference server and its measurements, one per round. */
export interface ServerSamples {
  /** The column heading. */
  readonly label: string;
  /** One measurement per round, in round order. */
  readonly samples: readonly Measurement[];
}

/** How each figure is shown. */
const FIGURES: readonly {
  key: keyof Measurement;
  label: string;
  format: (value: number) => string;
}[] = [
  { key: "sequentialPerSecond", label: "sequential calls/s", format: count },
  { key: "pipelinedPerSecond", label: "pipelined calls/s (64 in flight)", format: count },
  { key: "largeRoundTripMs", label: "1 MiB argument round trip, ms", format: decimals },
  { key: "coldStartMs", label: "cold start to initialize reply, ms", format: decimals },
  { key: "peakRssMiB", label: "peak RSS, MiB", format: decimals },
  { key: "cpuMicrosPerCall", label: "server CPU per call, µs", format: decimals },
  { key: "writesPerCall", label: "server write syscalls per pipelined call", format: decimals3 },
];

function count(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

function decimals3(value: number): string {
  return value.toFixed(3);
}

function decimals(value: number): string {
  return value.toFixed(value < 10 ? 2 : 1);
}

/** The median of `figure` over the rounds. */
export function medianOf(server: ServerSamples, figure: keyof Measurement): number {
  return median(server.samples.map((sample) => sample[figure]));
}

/** The median over rounds of `server`'s figure divided by `reference`'s in the same round. */
export function pairedRatio(
  server: ServerSamples,
  reference: ServerSamples,
  figure: keyof Measurement,
): number {
  return median(server.samples.flatMap((sample, round) => {
    const base = reference.samples[round]?.[figure];
    return base === undefined ? [] : [sample[figure] / base];
  }));
}

/** The stdio table: one row per figure, one column per server, `median (ratio×)` in each cell. */
export function stdioTable(servers: readonly ServerSamples[], raw: ServerSamples): string {
  const header = `| figure | ${servers.map((server) => server.label).join(" | ")} |`;
  const rule = `| --- | ${servers.map(() => "---").join(" | ")} |`;
  const rows = FIGURES.map(({ key, label, format }) => {
    const cells = servers.map((server) =>
      `${format(medianOf(server, key))} (${pairedRatio(server, raw, key).toFixed(2)}×)`
    );
    return `| ${label} | ${cells.join(" | ")} |`;
  });
  return [header, rule, ...rows].join("\n");
}

function duration(ns: number): string {
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(2)} µs`;
  return `${ns.toFixed(1)} ns`;
}

/** The micro-benchmark table: mean time per iteration, and the ratio to its group's baseline. */
export function microTable(results: readonly MicroResult[]): string {
  const rows = results.map((result) => {
    const baseline = results.find((other) => other.group === result.group && other.baseline);
    const ratio = baseline === undefined ? "" : `${(result.avgNs / baseline.avgNs).toFixed(2)}×`;
    return `| ${result.group} | ${result.name} | ${duration(result.avgNs)} | ${ratio} |`;
  });
  return [
    "| group | benchmark | time/iter (mean) | vs group baseline |",
    "| --- | --- | --- | --- |",
  ]
    .concat(rows).join("\n");
}

/** One target of the issue, judged. */
export interface TargetResult {
  /** What is held, e.g. `pipelined ≥ 0.70`. */
  readonly target: string;
  /** The measured value, formatted. */
  readonly measured: string;
  /** Whether it was met. */
  readonly pass: boolean;
}

/** What the targets are judged from. */
export interface TargetInputs {
  readonly raw: ServerSamples;
  readonly warden: ServerSamples;
  readonly guarded: ServerSamples;
  readonly micro: readonly MicroResult[] | undefined;
}

function atMost(target: string, value: number, limit: number, unit = "×"): TargetResult {
  return { target, measured: `${value.toFixed(2)}${unit}`, pass: value <= limit };
}

function atLeast(target: string, value: number, limit: number, unit = "×"): TargetResult {
  return { target, measured: `${value.toFixed(2)}${unit}`, pass: value >= limit };
}

/** Judges the nine targets (the two micro ones only when micro results are given). */
export function judgeTargets({ raw, warden, guarded, micro }: TargetInputs): TargetResult[] {
  const ratio = (figure: keyof Measurement) => pairedRatio(warden, raw, figure);
  const guardCost = 1 - pairedRatio(guarded, warden, "pipelinedPerSecond");
  const results = [
    atLeast("sequential ≥ 0.90", ratio("sequentialPerSecond"), 0.9),
    atLeast("pipelined ≥ 0.70", ratio("pipelinedPerSecond"), 0.7),
    atMost("1 MiB round trip ≤ 1.3×", ratio("largeRoundTripMs"), 1.3),
    atMost("cold start ≤ 2×", ratio("coldStartMs"), 2),
    atMost("peak RSS ≤ 1.3×", ratio("peakRssMiB"), 1.3),
    atMost("CPU/call ≤ 2×", ratio("cpuMicrosPerCall"), 2),
    {
      target: "guardrails cost ≤ 15%",
      measured: `${(guardCost * 100).toFixed(1)}%`,
      pass: guardCost <= 0.15,
    },
  ];
  if (micro === undefined) return results;
  const lines = "line splitter: one long line";
  const lineRatio = microAvg(micro, lines, "one 8 MiB line") /
    microAvg(micro, lines, "one 1 MiB line");
  const reference = "line splitter: reference";
  const referenceRatio = microAvg(micro, reference, "reference splitter, one 8 MiB line") /
    microAvg(micro, reference, "reference splitter, one 1 MiB line");
  results.push({
    ...atMost("8 MiB line ≤ 8× 1 MiB line", lineRatio, 8),
    measured: `${lineRatio.toFixed(2)}×; minimal reference splitter ${referenceRatio.toFixed(2)}×`,
  });
  // The slowest showing across the schema groups: ajv's time over compileSchema()'s.
  const speeds = micro.filter((result) => result.group.startsWith("schema: ") && result.baseline)
    .map((result) => microAvg(micro, result.group, "ajv 8.20.0 (allErrors)") / result.avgNs);
  results.push(atLeast("validator ≥ ajv speed", Math.min(...speeds), 1, "× ajv"));
  return results;
}

/** One line listing every target with PASS or MISS. */
export function targetsLine(results: readonly TargetResult[]): string {
  return `Targets: ${
    results.map(({ target, measured, pass }) => `${target} ${pass ? "PASS" : "MISS"} (${measured})`)
      .join(" · ")
  }`;
}
