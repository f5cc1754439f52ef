/**
 * The benchmark report as markdown: tables of medians over interleaved
 * rounds with each figure's ratio to its ceiling (the ratio of the medians,
 * the range of the per-round ratios, and "noisy" when the two statistics
 * disagree), the micro-benchmarks, and the issue's targets judged against
 * the same statistic. Pure functions of the samples, so they are tested
 * without running anything.
 *
 * @module
 */

import type { Measurement } from "./harness.ts";
import type { MicroResult } from "./micro.ts";
import {
  type Direction,
  formatRatio,
  judge,
  median,
  NOISY_THRESHOLD,
  type RatioSummary,
  summarizeRatio,
} from "./stats.ts";

/** One reference server and its stdio measurements, one per round. */
export interface ServerSamples {
  /** The column heading. */
  readonly label: string;
  /** One measurement per round, in round order. */
  readonly samples: readonly Measurement[];
}

/** Anything measured once per round: a label and its per-round values. */
export interface Series {
  /** The row or column heading. */
  readonly label: string;
  /** One value per round, in round order (NaN where it was not measured). */
  readonly values: readonly number[];
}

/** The per-round values of one stdio figure. */
export function seriesOf(server: ServerSamples, figure: keyof Measurement): Series {
  return { label: server.label, values: server.samples.map((sample) => sample[figure]) };
}

/** How each stdio figure is shown. */
export const STDIO_FIGURES: readonly {
  key: keyof Measurement;
  label: string;
  format: (value: number) => string;
}[] = [
  { key: "sequentialPerSecond", label: "sequential calls/s", format: count },
  { key: "pipelinedPerSecond", label: "pipelined calls/s (64 in flight)", format: count },
  { key: "largeRoundTripMs", label: "1 MiB argument round trip, ms", format: decimals },
  { key: "coldStartMs", label: "cold start to initialize reply, ms", format: decimals },
  { key: "peakRssMiB", label: "peak RSS, MiB", format: decimals },
  { key: "cpuMicrosPerCall", label: "server CPU per pipelined call, µs", format: decimals },
  { key: "writesPerCall", label: "write syscalls per pipelined call", format: decimals3 },
];

/** A whole number with thousands separators. */
export function count(value: number): string {
  return Number.isNaN(value) ? "n/a" : Math.round(value).toLocaleString("en-US");
}

/** Two decimals below 10, one above. */
export function decimals(value: number): string {
  return Number.isNaN(value) ? "n/a" : value.toFixed(value < 10 ? 2 : 1);
}

function decimals3(value: number): string {
  return value.toFixed(3);
}

/**
 * One table cell: the median of the rounds, then the ratio of medians to the
 * reference with the per-round range (only the median for the reference
 * itself); `n/a` (with `why`) when the figure was not measured.
 */
export function cell(
  values: readonly number[],
  reference: readonly number[],
  format: (value: number) => string,
  why = "",
): string {
  const value = median(values);
  if (Number.isNaN(value)) return `n/a${why === "" ? "" : ` (${why})`}`;
  if (values === reference) return format(value);
  return `${format(value)} · ${formatRatio(summarizeRatio(values, reference))}`;
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

/** The stdio table: one row per figure, one column per server. */
export function stdioTable(servers: readonly ServerSamples[], ceiling: ServerSamples): string {
  const rows = STDIO_FIGURES.map(({ key, label, format }) => [
    label,
    ...servers.map((server) => {
      const values = seriesOf(server, key).values;
      return cell(values, server === ceiling ? values : seriesOf(ceiling, key).values, format);
    }),
  ]);
  return table(["figure", ...servers.map((server) => server.label)], rows);
}

/** One HTTP row: a server under one kind of traffic, against a ceiling under the same. */
export interface HttpRow {
  /** What ran, e.g. `Warden, legacy session + 4 guardrails`. */
  readonly label: string;
  /** Requests per second, per round. */
  readonly perSecond: Series;
  /** Peak RSS in MiB at the end of the load, per round. */
  readonly peakRss: Series;
  /** The ceiling's figures under the same traffic. */
  readonly ceiling: { readonly perSecond: Series; readonly peakRss: Series };
  /** Why nothing was measured, when nothing was. */
  readonly unmeasured?: string;
}

/** The HTTP table: one row per server and traffic. */
export function httpTable(rows: readonly HttpRow[]): string {
  return table(
    ["server, traffic", "tools/call req/s (16 connections)", "peak RSS, MiB"],
    rows.map((row) => [
      row.label,
      cell(row.perSecond.values, row.ceiling.perSecond.values, count, row.unmeasured),
      cell(row.peakRss.values, row.ceiling.peakRss.values, decimals, row.unmeasured),
    ]),
  );
}

/** One memory row: a server's peak RSS under a load, against the ceiling's. */
export interface MemoryRow {
  /** The load, e.g. `10,000 legacy HTTP sessions`. */
  readonly load: string;
  /** The server's per-round peak RSS, MiB. */
  readonly server: Series;
  /** The ceiling's per-round peak RSS, MiB. */
  readonly ceiling: Series;
}

/** The memory table: one row per load and server. */
export function memoryTable(rows: readonly MemoryRow[]): string {
  return table(
    ["load", "server", "peak RSS, MiB", "ceiling's peak RSS, MiB"],
    rows.map((row) => [
      row.load,
      row.server.label,
      cell(row.server.values, row.ceiling.values, decimals),
      decimals(median(row.ceiling.values)),
    ]),
  );
}

function duration(ns: number): string {
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(2)} µs`;
  return `${ns.toFixed(1)} ns`;
}

/** The micro-benchmark table: mean time per iteration, and the ratio to its group's baseline. */
export function microTable(results: readonly MicroResult[]): string {
  return table(
    ["group", "benchmark", "time/iter (mean)", "vs group baseline"],
    results.map((result) => {
      const baseline = results.find((other) => other.group === result.group && other.baseline);
      const ratio = baseline === undefined ? "" : `${(result.avgNs / baseline.avgNs).toFixed(2)}×`;
      return [result.group, result.name, duration(result.avgNs), ratio];
    }),
  );
}

/** One target of the issue: a ratio, which way is better, and the limit. */
export interface Target {
  /** The figure, as the issue names it. */
  readonly figure: string;
  /** The server's per-round values. */
  readonly server: readonly number[];
  /** The reference's per-round values. */
  readonly reference: readonly number[];
  /** Whether higher (at-least) or lower (at-most) is better. */
  readonly direction: Direction;
  /** The limit the ratio must reach. */
  readonly limit: number;
}

/** A target judged on the ratio of the medians. */
export interface TargetResult {
  /** The figure. */
  readonly figure: string;
  /** The statistics behind the verdict. */
  readonly summary: RatioSummary;
  /** The target, e.g. `≥ 0.90`. */
  readonly target: string;
  /** PASS or MISS on the ratio of the medians; n/a when nothing was measured. */
  readonly verdict: "PASS" | "MISS" | "n/a";
}

/** Judges every target on the ratio of the medians (never on the per-round median). */
export function judgeTargets(targets: readonly Target[]): TargetResult[] {
  return targets.map((target) => {
    const summary = summarizeRatio(target.server, target.reference);
    return {
      figure: target.figure,
      summary,
      target: `${target.direction === "at-least" ? "≥" : "≤"} ${target.limit.toFixed(2)}`,
      verdict: judge(summary.ratio, target.direction, target.limit),
    };
  });
}

/** The targets table. */
export function targetsTable(results: readonly TargetResult[]): string {
  return table(
    ["figure", "measured: ratio of medians (per-round range)", "target", "verdict"],
    results.map((result) => [
      result.figure,
      formatRatio(result.summary),
      result.target,
      result.verdict + (result.summary.noisy && result.verdict !== "n/a" ? " (noisy)" : ""),
    ]),
  );
}

/** How the statistics are computed, for the report's reader. */
export const STATISTICS_NOTE =
  `Each cell is the median over the interleaved rounds, then (after the dot) the ratio of that ` +
  `median to the ceiling's median, with the lowest and highest per-round ratio in brackets. A ` +
  `figure is marked noisy ` +
  `when the median of the per-round ratios differs from the ratio of the medians by more than ` +
  `${NOISY_THRESHOLD * 100}%: the machine's load moved between rounds, and neither statistic ` +
  `should be trusted alone. Targets are judged on the ratio of the medians.`;
