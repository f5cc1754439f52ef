/**
 * Key context in text: at a `:` or `=`, or after a `--flag`, the key name
 * before it is read (at most 64 characters back) and, when it says secret,
 * the value after it (one quoted string, or one unquoted token, at most 4096
 * characters) is judged by its shape and masked. Callers never look at a
 * value region twice for a key, so the work stays linear.
 *
 * @module
 */

import { CLASS, classOf, DIGIT, isSpace, KEY, STOP } from "./chars.ts";
import type { KeyStrength } from "./key_names.ts";
import type { ScanPlan } from "./scanner.ts";
import { valueIsSecret } from "./value_shape.ts";

/**
 * A `:` or `=` at `at`: a value after a secret key name is masked. Returns
 * how far it read. The key is read in `units` (the text's code-unit bytes):
 * every character it looks for is ASCII.
 */
export function keyContext(
  plan: ScanPlan,
  text: string,
  units: Uint8Array,
  at: number,
  spans: number[],
): number {
  const code = units[at] ?? -1;
  const after = units[at + 1] ?? -1;
  let j = at - 1;
  let next = at + 1;
  if (code === 58) {
    if (after === 58 || after === 61 || units[j] === 58) return at;
  } else {
    const before = units[j] ?? -1;
    if (after === 61 || before === 61 || before === 33 || before === 60 || before === 62) return at;
    if (after === 62) next++;
    if (before === 58 || before === 63 || before === 43) j--;
  }
  for (let spaces = 0; j >= 0 && spaces < 16 && (units[j] === 32 || units[j] === 9); spaces++) j--;
  const quote = units[j] ?? -1;
  if (quote === 34 || quote === 39 || quote === 96) {
    j--;
    if (units[j] === 92) j--;
  }
  const keyEnd = j + 1;
  // Read the name backwards, hashing it (FNV-1a) and counting its digits.
  let hash = 0x811c9dc5;
  let digits = 0;
  for (; j >= 0 && keyEnd - j <= 65; j--) {
    const char = units[j] ?? 0;
    const kind = CLASS[char] ?? 0;
    if ((kind & KEY) === 0) break;
    if ((kind & DIGIT) !== 0) digits++;
    hash = Math.imul(hash ^ char, 0x01000193);
  }
  const keyStart = j + 1;
  // Base64 before its padding is no key name: a name has few digits.
  if (keyStart === keyEnd || keyEnd - keyStart > 64 || digits >= 4) return at;
  const strength = strengthAt(plan, text, units, keyStart, keyEnd, hash >>> 0);
  if (strength === "none") return at;
  return valueAt(text, next, strength, false, spans);
}

/** A direct-mapped cache of key verdicts (see `ScanPlan.verdicts`). */
export interface KeyVerdicts {
  /** The name in each slot ("" for none). */
  readonly keys: string[];
  /** Its strength, as an index into `STRENGTHS`. */
  readonly strengths: Uint8Array;
}

/** How many key verdicts a plan keeps (a power of two). */
const VERDICT_SLOTS = 1024;
const STRENGTHS: readonly KeyStrength[] = ["none", "weak", "strong"];

/** An empty verdict cache, one per scan plan. */
export function keyVerdicts(): KeyVerdicts {
  return {
    keys: new Array<string>(VERDICT_SLOTS).fill(""),
    strengths: new Uint8Array(VERDICT_SLOTS),
  };
}

function strengthAt(
  plan: ScanPlan,
  text: string,
  units: Uint8Array,
  start: number,
  end: number,
  hash: number,
): KeyStrength {
  const { keys, strengths } = plan.verdicts;
  const slot = hash & (VERDICT_SLOTS - 1);
  const known = keys[slot] ?? "";
  if (known.length === end - start) {
    let same = true;
    for (let index = 0; index < known.length && same; index++) {
      same = known.charCodeAt(index) === units[start + index];
    }
    if (same) return STRENGTHS[strengths[slot] ?? 0] ?? "none";
  }
  const key = text.slice(start, end);
  const strength = plan.strengthOf?.(key) ?? "none";
  keys[slot] = key;
  strengths[slot] = STRENGTHS.indexOf(strength);
  return strength;
}

/** `--token VALUE`: the flag's name is `text[from, to)`, its value follows the spaces. */
export function flagContext(
  plan: ScanPlan,
  text: string,
  from: number,
  to: number,
  spans: number[],
): number {
  const strength = plan.strengthOf?.(text.slice(from, to)) ?? "none";
  if (strength === "none") return to;
  return valueAt(text, to, strength, true, spans);
}

const SCHEME = /^(?:bearer|basic|token|digest|negotiate|apikey|sso-key|key|dpop)[ \t]+/iu;

/** Reads the value starting at `from` (after spaces), masks it if it is a secret, returns its end. */
function valueAt(
  text: string,
  from: number,
  strength: KeyStrength,
  flag: boolean,
  spans: number[],
): number {
  const n = text.length;
  let s = from;
  for (let spaces = 0; s < n && spaces < 16 && isSpace(text.charCodeAt(s)); spaces++) s++;
  if (s >= n) return s;
  let code = text.charCodeAt(s);
  let escaped = false;
  if (code === 92 && (text.charCodeAt(s + 1) === 34 || text.charCodeAt(s + 1) === 39)) {
    escaped = true;
    code = text.charCodeAt(++s);
  }
  if (code === 34 || code === 39 || code === 96) {
    const start = s + 1;
    let e = start;
    for (const limit = Math.min(n, start + 4096); e < limit; e++) {
      const char = text.charCodeAt(e);
      if (char === 10 || char === 13) break;
      if (char === 92) {
        if (escaped && text.charCodeAt(e + 1) === code) break;
        e++;
        continue;
      }
      if (char === code && !escaped) break;
    }
    let from = start;
    const scheme = strength === "strong" ? SCHEME.exec(text.slice(start, start + 24)) : null;
    if (scheme !== null) from += scheme[0].length;
    if (valueIsSecret(text.slice(from, e), strength, true, 0)) spans.push(from, e);
    return e;
  }
  if (flag && code === 45) return s;
  if (strength === "strong") {
    const scheme = SCHEME.exec(text.slice(s, s + 24));
    if (scheme !== null) s += scheme[0].length;
  }
  let e = s;
  let pair = false;
  for (const limit = Math.min(n, s + 1024); e < limit; e++) {
    const char = text.charCodeAt(e);
    if ((classOf(char) & STOP) !== 0) break;
    // `Cookie: theme=dark`: a `name=value` pair; the `=` is judged as a key of its own.
    if (char === 61 && e > s && text.charCodeAt(e + 1) !== 61 && text.charCodeAt(e - 1) !== 61) {
      pair = true;
      break;
    }
  }
  let end = e;
  while (end > s && (text.charCodeAt(end - 1) === 46 || text.charCodeAt(end - 1) === 58)) end--;
  const value = text.slice(s, end);
  if (valueIsSecret(value, strength, false, text.charCodeAt(e))) spans.push(s, end);
  return pair ? e - 1 : e;
}
