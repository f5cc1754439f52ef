/**
 * Secrets split across two parts of one result: two adjacent text blocks,
 * two adjacent string fields of an object or items of an array
 * (`["ghp_R8mZ2kQ7vX4n", "B1cT6yH3jW9pL5sD0fGaE2uK"]`). The end of one part
 * and the start of the next are scanned together; a secret found across the
 * seam is masked in both parts, and a value whose key ends the first part
 * (`"password:"`, then `"hunter2x9"`) in the second. Each part is looked at
 * twice at most, `SEAM` characters on each side and the rest of a word cut
 * there (at most `LONGEST` more).
 *
 * @module
 */

import { type Compiled, findSecrets } from "./engine.ts";

/** How far from the seam a split secret is looked for, on each side. */
const SEAM = 256;

/** How far a token cut at the seam is followed past `SEAM` (long tokens, such as 1Password's). */
const LONGEST = 4096;

/** Where the word around `at` starts (a token is not cut at the window's edge), within `LONGEST`. */
function wordStart(text: string, at: number): number {
  let start = Math.max(0, at);
  const limit = Math.max(0, at - LONGEST);
  while (start > limit && text.charCodeAt(start - 1) > 32) start--;
  return start;
}

/** Where the word around `at` ends, within `LONGEST`. */
function wordEnd(text: string, at: number): number {
  let end = Math.min(text.length, at);
  const limit = Math.min(text.length, at + LONGEST);
  while (end < limit && text.charCodeAt(end) > 32) end++;
  return end;
}

/** Masks what spans the seam between `first` and `second`; the parts and how many secrets were split. */
export function maskSeam(
  compiled: Compiled,
  mask: string,
  first: string,
  second: string,
): { first: string; second: string; split: number } | undefined {
  if (first === "" || second === "") return undefined;
  const tail = first.slice(wordStart(first, first.length - SEAM));
  const head = second.slice(0, wordEnd(second, SEAM));
  const spans = findSecrets(compiled, tail + head);
  if (spans === undefined) return undefined;
  let cutFirst = first.length;
  let split = 0;
  // Ranges of `second` to mask, as `start, end` pairs in its own offsets.
  const ranges: number[] = [];
  let alone: number[] | undefined | null = null;
  for (let index = 0; index < spans.length; index += 2) {
    const start = spans[index] ?? 0;
    const end = spans[index + 1] ?? 0;
    if (end <= tail.length) continue; // wholly in the first part: found there already
    if (start < tail.length) {
      split++;
      cutFirst = Math.min(cutFirst, first.length - tail.length + start);
      ranges.push(0, end - tail.length);
      continue;
    }
    // Wholly in the second part: masked here only when the first part's words made it a secret.
    if (alone === null) alone = findSecrets(compiled, head);
    if (!covers(alone, start - tail.length, end - tail.length)) {
      ranges.push(start - tail.length, end - tail.length);
    }
  }
  if (ranges.length === 0) return undefined;
  return {
    first: cutFirst < first.length ? first.slice(0, cutFirst) + mask : first,
    second: maskRanges(second, ranges, mask),
    split,
  };
}

/** Whether a span of `spans` covers `[start, end)`. */
function covers(spans: readonly number[] | undefined, start: number, end: number): boolean {
  for (let index = 0; spans !== undefined && index < spans.length; index += 2) {
    if ((spans[index] ?? 0) <= start && (spans[index + 1] ?? 0) >= end) return true;
  }
  return false;
}

/** `text` with each `start, end` range replaced by `mask` (overlapping ranges share one). */
function maskRanges(text: string, ranges: number[], mask: string): string {
  const pairs: [number, number][] = [];
  for (let index = 0; index < ranges.length; index += 2) {
    pairs.push([ranges[index] ?? 0, ranges[index + 1] ?? 0]);
  }
  pairs.sort((a, b) => a[0] - b[0]);
  let out = "";
  let cursor = 0;
  for (const [start, end] of pairs) {
    if (end <= cursor) continue;
    if (start >= cursor) out += text.slice(cursor, start) + mask;
    cursor = end;
  }
  return out + text.slice(cursor);
}

/**
 * Masks secrets split across adjacent strings of `parts` (in place) and
 * returns how many were split. `undefined` entries break adjacency.
 */
export function maskSplits(
  compiled: Compiled,
  mask: string,
  parts: (string | undefined)[],
): number {
  let split = 0;
  for (let index = 0; index + 1 < parts.length; index++) {
    const first = parts[index];
    const second = parts[index + 1];
    if (first === undefined || second === undefined) continue;
    const masked = maskSeam(compiled, mask, first, second);
    if (masked === undefined) continue;
    parts[index] = masked.first;
    parts[index + 1] = masked.second;
    split += masked.split;
  }
  return split;
}
