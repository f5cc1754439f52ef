/**
 * Trying one token format at a position: its sticky expression, then the
 * checks that turn away documentation samples and, for weak prefixes,
 * bodies that do not look random; and formats found by an inner literal.
 *
 * @module
 */

import { isAlnum } from "./chars.ts";
import type { TokenRule } from "./scanner.ts";
import { fewDistinct } from "./value_shape.ts";

/** The body after the prefix is a documentation sample, not a key: few distinct characters, EXAMPLE, xxxx. */
export function tokenIsSample(body: string): boolean {
  return SAMPLE.test(body) || fewDistinct(body);
}

// Three capitalised words in a row (`PersonalAccessToken`) or a run of zeros name a sample;
// random bodies hardly ever hold either.
const SAMPLE = /EXAMPLE|example|xxxx|XXXX|0{8}|1234567890|(?:[A-Z][a-z]{4,}){3}/u;

/** Letters and digits, or upper and lower case, mixed: what a random body of 16 or more has. */
function mixed(body: string): boolean {
  return /[A-Za-z]/u.test(body) && /[0-9]/u.test(body) ||
    /[a-z]/u.test(body) && /[A-Z]/u.test(body);
}

export function tryRule(rule: TokenRule, text: string, start: number, spans: number[]): number {
  rule.re.lastIndex = start;
  const match = rule.re.exec(text);
  if (match === null) return -1;
  const token = match[0];
  const body = token.slice(rule.prefix.length);
  if (tokenIsSample(body) || (rule.weak && !mixed(body))) return -1;
  const end = start + token.length;
  spans.push(start + rule.kept, end);
  return end;
}

/** The anchored formats whose literal lies in the run `[start, end)`. */
export function anchorsInRun(
  rules: readonly TokenRule[],
  text: string,
  start: number,
  end: number,
  kinds: number,
  spans: number[],
): void {
  let run: string | undefined;
  for (const rule of rules) {
    const literal = rule.anchor?.literal ?? "";
    // The run must hold every kind of character the literal has (`~` for `Q~`).
    const need = rule.anchor?.kinds ?? 0;
    if ((kinds & need) !== need) continue;
    run ??= text.slice(start, end);
    let done = -1;
    for (let hit = run.indexOf(literal); hit !== -1; hit = run.indexOf(literal, hit + 1)) {
      if (start + hit >= done) done = anchorAt(rule, text, start + hit, done, spans);
    }
  }
}

/** Whether `glued` (a word such as `bot`) ends at `start`, itself after a word break. */
function gluedAt(glued: string, text: string, start: number): boolean {
  const from = start - glued.length;
  return glued !== "" && from >= 0 && text.startsWith(glued, from) &&
    !isAlnum(text.charCodeAt(from - 1));
}

/** Tries an anchored format whose literal is at `hit`; the end of a match, or `done`. */
export function anchorAt(
  rule: TokenRule,
  text: string,
  hit: number,
  done: number,
  spans: number[],
): number {
  const anchor = rule.anchor;
  if (anchor === undefined) return done;
  for (let lead = anchor.max; lead >= anchor.min; lead--) {
    const start = hit - lead;
    if (start < 0 || start < done) continue;
    if (isAlnum(text.charCodeAt(start - 1)) && !gluedAt(rule.glued, text, start)) continue;
    const end = tryRule(rule, text, start, spans);
    if (end >= 0) return end;
  }
  return done;
}
