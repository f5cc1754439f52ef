/**
 * The benchmark's statistics, as pure functions: medians, the ratio of two
 * servers' medians over interleaved rounds, each round's spread, and the
 * "noisy" flag raised when the median of per-round ratios tells a different
 * story from the ratio of the medians.
 *
 * The headline figure is always the ratio of the medians. The median of the
 * per-round ratios is computed only to check it: on a quiet machine the two
 * agree, and when they disagree by more than the threshold the row says
 * "noisy" instead of quoting whichever is more flattering.
 *
 * @module
 */

/** The median; NaN for no values. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle] ?? Number.NaN;
  return sorted.length % 2 === 1 ? upper : ((sorted[middle - 1] ?? upper) + upper) / 2;
}

/** The smallest and largest of some values; NaN for both when there are none. */
export interface Range {
  /** The smallest value. */
  readonly min: number;
  /** The largest value. */
  readonly max: number;
}

/** The range of `values`. */
export function rangeOf(values: readonly number[]): Range {
  if (values.length === 0) return { min: Number.NaN, max: Number.NaN };
  return { min: Math.min(...values), max: Math.max(...values) };
}

/**
 * Each round's `server` value over the `reference` value of the same round;
 * rounds missing on either side, or with a reference of 0, are skipped.
 */
export function perRoundRatios(
  server: readonly number[],
  reference: readonly number[],
): number[] {
  const ratios: number[] = [];
  for (const [round, value] of server.entries()) {
    const base = reference[round];
    if (base === undefined || base === 0 || !Number.isFinite(value)) continue;
    ratios.push(value / base);
  }
  return ratios;
}

/** The default disagreement (10%) between the two statistics above which a row is noisy. */
export const NOISY_THRESHOLD = 0.1;

/** A server's figure against a reference's, over interleaved rounds. */
export interface RatioSummary {
  /** The median of the server's per-round values over the median of the reference's. */
  readonly ratio: number;
  /** The median of the per-round ratios: a cross-check, never the headline. */
  readonly perRoundMedian: number;
  /** The range of the per-round ratios. */
  readonly perRound: Range;
  /** The range of the server's own per-round values. */
  readonly values: Range;
  /** How many rounds were paired. */
  readonly rounds: number;
  /**
   * True when `perRoundMedian` differs from `ratio` by more than the
   * threshold, relative to `ratio`: the machine's load moved between rounds.
   */
  readonly noisy: boolean;
}

/**
 * Summarises `server` against `reference`, both one value per interleaved
 * round in round order.
 *
 * @param threshold The relative disagreement that makes the summary noisy.
 */
export function summarizeRatio(
  server: readonly number[],
  reference: readonly number[],
  threshold: number = NOISY_THRESHOLD,
): RatioSummary {
  const ratio = median(server) / median(reference);
  const ratios = perRoundRatios(server, reference);
  const perRoundMedian = median(ratios);
  const disagreement = Math.abs(perRoundMedian - ratio) / Math.abs(ratio);
  return {
    ratio,
    perRoundMedian,
    perRound: rangeOf(ratios),
    values: rangeOf(server),
    rounds: ratios.length,
    noisy: !(disagreement <= threshold),
  };
}

/** Whether a target is a floor (higher is better) or a ceiling (lower is better). */
export type Direction = "at-least" | "at-most";

/** A ratio judged against a target. */
export type Verdict = "PASS" | "MISS" | "n/a";

/** Judges a ratio against a target; NaN (nothing measured) is "n/a". */
export function judge(ratio: number, direction: Direction, limit: number): Verdict {
  if (Number.isNaN(ratio)) return "n/a";
  const pass = direction === "at-least" ? ratio >= limit : ratio <= limit;
  return pass ? "PASS" : "MISS";
}

/**
 * A ratio as a table shows it: `0.73× (0.65–0.96)`, the ratio of medians and
 * the per-round range, with `; noisy, per-round median 0.96` inside the
 * bracket when the two statistics disagree; `n/a` when nothing was measured.
 */
export function formatRatio(summary: RatioSummary): string {
  if (Number.isNaN(summary.ratio)) return "n/a";
  const { min, max } = summary.perRound;
  const notes: string[] = [];
  if (summary.rounds > 1) notes.push(`${min.toFixed(2)}–${max.toFixed(2)}`);
  if (summary.noisy) notes.push(`noisy, per-round median ${summary.perRoundMedian.toFixed(2)}`);
  return `${summary.ratio.toFixed(2)}×${notes.length === 0 ? "" : ` (${notes.join("; ")})`}`;
}
