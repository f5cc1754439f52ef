/**
 * Suggestions for misspelt keywords in the compiler's error messages.
 *
 * @module
 */

/** " (did you mean 'required'?)" for a near miss of a known keyword, else "". */
export function suggestion(key: string, known: Iterable<string>): string {
  if (key.length < 4) return "";
  let best = "";
  let bestDistance = 3;
  for (const keyword of known) {
    const distance = editDistance(key.toLowerCase(), keyword.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [keyword, distance];
  }
  return best === "" ? "" : ` (did you mean '${best}'?)`;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      row.push(Math.min(previous[j]! + 1, row[j - 1]! + 1, substitution));
    }
    previous = row;
  }
  return previous[b.length]!;
}
