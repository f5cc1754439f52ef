/**
 * The benchmark's statistics and report: the headline is the ratio of the
 * medians, the per-round median only cross-checks it, and a disagreement
 * beyond the threshold marks the row noisy rather than picking a number.
 */

import assert from "node:assert/strict";
import {
  formatRatio,
  judge,
  median,
  NOISY_THRESHOLD,
  perRoundRatios,
  rangeOf,
  summarizeRatio,
} from "./stats.ts";
import { cell, httpTable, judgeTargets, memoryTable, targetsTable } from "./report.ts";
import { schedstatNanos } from "./harness.ts";

Deno.test("median() takes the middle value, or the mean of the two middle ones", () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.ok(Number.isNaN(median([])));
});

Deno.test("rangeOf() gives min and max, NaN for nothing", () => {
  assert.deepEqual(rangeOf([5, 2, 9]), { min: 2, max: 9 });
  assert.ok(Number.isNaN(rangeOf([]).min));
});

Deno.test("perRoundRatios() pairs rounds and skips missing or zero references", () => {
  assert.deepEqual(perRoundRatios([10, 20, 30], [5, 0]), [2]);
  assert.deepEqual(perRoundRatios([1, Number.NaN, 3], [1, 1, 1]), [1, 3]);
});

Deno.test("summarizeRatio() reports the ratio of the medians, not the per-round median", () => {
  const warden = [50, 90, 95];
  const ceiling = [100, 95, 100];
  const summary = summarizeRatio(warden, ceiling);
  assert.equal(summary.ratio, 90 / 100);
  assert.equal(summary.perRoundMedian, 90 / 95);
  assert.deepEqual(summary.perRound, { min: 0.5, max: 0.95 });
  assert.deepEqual(summary.values, { min: 50, max: 95 });
  assert.equal(summary.rounds, 3);
  assert.equal(summary.noisy, false);
});

Deno.test("summarizeRatio() is noisy exactly when the two statistics disagree beyond the threshold", () => {
  assert.equal(summarizeRatio([90, 91, 89], [100, 101, 99]).noisy, false);
  // Ratio of medians 2, per-round median 1: they disagree by exactly 50%.
  const loud = summarizeRatio([1, 2, 4], [1, 4, 1]);
  assert.equal(loud.ratio, 2);
  assert.equal(loud.perRoundMedian, 1);
  assert.equal(loud.noisy, true);
  assert.equal(summarizeRatio([1, 2, 4], [1, 4, 1], 0.5).noisy, false);
  assert.equal(summarizeRatio([1, 2, 4], [1, 4, 1], 0.49).noisy, true);
  assert.ok(NOISY_THRESHOLD < 0.5);
});

Deno.test("summarizeRatio() of nothing is NaN and noisy, and formats as n/a", () => {
  const summary = summarizeRatio([], []);
  assert.ok(Number.isNaN(summary.ratio));
  assert.equal(formatRatio(summary), "n/a");
});

Deno.test("formatRatio() shows the ratio, the per-round range and the noisy flag", () => {
  assert.equal(formatRatio(summarizeRatio([90, 91, 89], [100, 100, 100])), "0.90× (0.89–0.91)");
  assert.equal(formatRatio(summarizeRatio([90], [100])), "0.90×");
  assert.equal(
    formatRatio(summarizeRatio([1, 2, 4], [1, 4, 1])),
    "2.00× (0.50–4.00; noisy, per-round median 1.00)",
  );
});

Deno.test("judge() passes floors and ceilings inclusively and says n/a for NaN", () => {
  assert.equal(judge(0.9, "at-least", 0.9), "PASS");
  assert.equal(judge(0.89, "at-least", 0.9), "MISS");
  assert.equal(judge(1.5, "at-most", 1.5), "PASS");
  assert.equal(judge(1.51, "at-most", 1.5), "MISS");
  assert.equal(judge(Number.NaN, "at-most", 1.5), "n/a");
});

Deno.test("judgeTargets() judges on the ratio of medians even when the per-round median passes", () => {
  const [result] = judgeTargets([{
    figure: "pipelined",
    server: [50, 90, 95],
    reference: [100, 95, 100],
    direction: "at-least",
    limit: 0.93,
  }]);
  assert.equal(result?.verdict, "MISS");
  assert.ok((result?.summary.perRoundMedian ?? 0) >= 0.93);
  assert.match(
    targetsTable(judgeTargets([{
      figure: "x",
      server: [1, 2, 4],
      reference: [1, 4, 1],
      direction: "at-most",
      limit: 2,
    }])),
    /\| PASS \(noisy\) \|$/m,
  );
});

Deno.test("cell() and the tables say n/a with the reason when nothing was measured", () => {
  assert.equal(cell([Number.NaN], [1], String, "era not served"), "n/a (era not served)");
  assert.equal(cell([2, 4], [1, 2], String), "3 · 2.00× (2.00–2.00)");
  const same = [1, 2];
  assert.equal(cell(same, same, String), "1.5", "the reference shows only its median");
  const series = (values: number[]) => ({ label: "s", values });
  const table = httpTable([{
    label: "Warden, 2026-07-28 era",
    perSecond: series([Number.NaN]),
    peakRss: series([Number.NaN]),
    ceiling: { perSecond: series([100]), peakRss: series([50]) },
    unmeasured: "era not served",
  }]);
  assert.match(
    table,
    /\| Warden, 2026-07-28 era \| n\/a \(era not served\) \| n\/a \(era not served\) \|/,
  );
  assert.match(
    memoryTable([{ load: "10 sessions", server: series([60, 66]), ceiling: series([30, 30]) }]),
    /\| 10 sessions \| s \| 63.0 · 2.10× \(2.00–2.20\) \| 30.0 \|/,
  );
});

Deno.test("schedstatNanos() sums the run time of every thread and rejects garbage", () => {
  assert.equal(schedstatNanos("2664551 479937 2\n1000 5 1\n"), 2665551);
  assert.equal(schedstatNanos(""), 0);
  assert.throws(() => schedstatNanos("abc 1 2\n"), /Cannot read schedstat line/);
});
