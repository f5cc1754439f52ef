/**
 * The scanner: one pass over the text that finds every built-in secret.
 *
 * Linear by construction. The main loop reads each character once, keeping
 * the current run of token characters (`[A-Za-z0-9_+/.~-]`). A run long
 * enough to hold a token is looked at where a word starts in it: the two
 * characters there pick the few provider formats whose prefix starts with
 * them, and a format's sticky expression (bounded lengths, one character
 * class per part) runs only where the whole prefix is present. A `:` or `=`
 * looks back at most 64 characters for a key name and forward over one
 * value, and a value region is never looked at twice for a key. Rare
 * literals (`://`, `-----BEGIN `, `bearer`, the anchors of prefix-less
 * formats) are found with `indexOf`, and each hit reads a bounded window.
 *
 * Spans are pushed as `start, end` pairs onto a flat array.
 *
 * @module
 */

import {
  fewDistinct,
  isCode,
  isPlaceholder,
  type KeyStrength,
  looksRandom,
  valueIsSecret,
} from "./keys.ts";

/** A compiled token format (see `providers.ts`). */
export interface TokenRule {
  /** The row's id. */
  readonly id: string;
  /** The literal the token starts with; "" for anchored formats. */
  readonly prefix: string;
  /** Sticky expression matching the whole token at its start. */
  readonly re: RegExp;
  /** How many leading characters stay readable. */
  readonly kept: number;
  /** Whether the part after the prefix must look random. */
  readonly weak: boolean;
  /** The inner literal of an anchored format, and how far before it the token starts. */
  readonly anchor:
    | { readonly literal: string; readonly min: number; readonly max: number }
    | undefined;
}

/** What one redactor's scan looks for. */
export interface ScanPlan {
  /** Token rules by their first two characters, `(c0 << 7) | c1`. */
  readonly buckets: readonly (readonly TokenRule[] | undefined)[];
  /** Per bucket: 0 no rules, 1 a prefix of two characters, 2 only longer prefixes (see `triples`). */
  readonly starts: Uint8Array;
  /** The first three characters of the prefixes of buckets marked 2, `(index << 7) | c2`. */
  readonly triples: ReadonlySet<number>;
  /** Token rules found by an inner literal within a run (`Q~`, `-us`). */
  readonly anchoredInRun: readonly TokenRule[];
  /** Token rules found by an inner literal at a colon (`:AA`). */
  readonly anchoredAtColon: readonly TokenRule[];
  /** The strength of a key name, or `undefined` when key context is off. */
  readonly strengthOf: ((key: string) => KeyStrength) | undefined;
  /** Words that, shortly before a random-looking token in prose, mark it as a secret. */
  readonly proseWords: RegExp | undefined;
  readonly pem: boolean;
  readonly url: boolean;
  readonly bearer: boolean;
}

/** The shortest run the token rules look at (the shortest leading run of any format). */
export const MIN_RUN = 11;
/** The shortest random-looking token the prose rule looks at. */
const MIN_PROSE = 12;

const RUN = 1;
const ALNUM = 2;
const SEP = 4;
const ASSIGN = 8;
const KEY = 16;
const STOP = 32;
const DIGIT = 64;
const UPPER = 128;
const LOWER = 256;
const TILDE = 512;
const DASH = 1024;
const DOT = 2048;
const UNDERSCORE = 4096;
// One entry per UTF-16 code unit, so the hot loop needs no range check.
const CLASS = new Uint16Array(65536);
for (let code = 0; code < 128; code++) {
  const char = String.fromCharCode(code);
  let kind = 0;
  if (/[A-Za-z0-9]/u.test(char)) kind = RUN | ALNUM | KEY;
  if (/[0-9]/u.test(char)) kind |= DIGIT;
  if (/[A-Z]/u.test(char)) kind |= UPPER;
  if (/[a-z]/u.test(char)) kind |= LOWER;
  if (/[+\/.~-]/u.test(char)) kind = RUN | SEP;
  if (char === "_") kind = RUN;
  if (char === "_" || char === "." || char === "-") kind |= KEY;
  if (char === "~") kind |= TILDE;
  if (char === "-") kind |= DASH;
  if (char === ".") kind |= DOT;
  if (char === "_") kind |= UNDERSCORE;
  if (char === ":" || char === "=") kind = ASSIGN;
  if (/[\s,;&"'`<>()[\]{}\\]/u.test(char) || code < 32) kind |= STOP;
  CLASS[code] = kind;
}

function classOf(code: number): number {
  return CLASS[code] ?? 0;
}

/** Finds every built-in secret in `text`, pushing `start, end` pairs onto `spans`. */
export function scanText(plan: ScanPlan, text: string, spans: number[]): void {
  const n = text.length;
  const keyed = plan.strengthOf !== undefined;
  const starts = plan.starts;
  const anchored = plan.anchoredInRun.length > 0;
  let keyUntil = -1;
  let i = 0;
  while (i < n) {
    const kind = CLASS[text.charCodeAt(i)] ?? 0;
    if ((kind & RUN) === 0) {
      if ((kind & ASSIGN) !== 0) {
        keyUntil = assignment(plan, text, i, keyed && i > keyUntil, keyUntil, spans);
      }
      i++;
      continue;
    }
    // Consume the whole run; the character after it is looked at in the next turn.
    const start = i;
    let kinds = kind;
    while (++i < n) {
      const next = CLASS[text.charCodeAt(i)] ?? 0;
      if ((next & RUN) === 0) break;
      kinds |= next;
    }
    const length = i - start;
    if (length < 2) continue;
    const code = i < n ? text.charCodeAt(i) : 0;
    if (
      keyed && (code === 32 || code === 9) && i > keyUntil && length > 3 &&
      text.charCodeAt(start) === 45 && text.charCodeAt(start + 1) === 45
    ) {
      keyUntil = flagContext(plan, text, start + 2, i, spans);
    }
    if (length >= MIN_RUN) examineRun(plan, text, start, i, kinds, start > keyUntil, spans);
    // A short run may still start a token that goes on past it (`b_abc=…`, `access_token$…`).
    else if (starts[(text.charCodeAt(start) << 7) | (text.charCodeAt(start + 1) & 127)] !== 0) {
      tryBucket(plan, text, start, spans);
    }
    if (length >= MIN_ANCHORED && anchored) {
      anchorsInRun(plan.anchoredInRun, text, start, i, kinds, spans);
    }
    if (code === 32 || code === 9) {
      if (plan.pem && length >= 10 && text.startsWith("-----BEGIN", i - 10)) {
        pemAt(text, i - 10, spans);
      }
      if (plan.bearer && length === 6 && isBearer(text, start)) bearerAt(text, i, spans);
    }
  }
}

/** A `:` or `=` at `i`: a URL's credentials, a Telegram token, or a key's value. Returns `keyUntil`. */
function assignment(
  plan: ScanPlan,
  text: string,
  i: number,
  keyed: boolean,
  keyUntil: number,
  spans: number[],
): number {
  if (text.charCodeAt(i) === 58) {
    const next = text.charCodeAt(i + 1);
    if (next === 47 && plan.url && text.charCodeAt(i + 2) === 47) urlAt(text, i + 3, spans);
    else if (next === 65 && text.charCodeAt(i + 2) === 65) {
      for (const rule of plan.anchoredAtColon) anchorAt(rule, text, i, -1, spans);
    }
  }
  return keyed ? keyContext(plan, text, i, spans) : keyUntil;
}

/** The shortest run an anchored format fits in. */
const MIN_ANCHORED = 20;

function isAlnum(code: number): boolean {
  return (classOf(code) & ALNUM) !== 0;
}

/** The body after the prefix is a documentation sample, not a key: few distinct characters, EXAMPLE, xxxx. */
function tokenIsSample(body: string): boolean {
  return SAMPLE.test(body) || fewDistinct(body);
}

const SAMPLE = /EXAMPLE|example|xxxx|XXXX|0000000000|1234567890/u;

/** Letters and digits, or upper and lower case, mixed: what a random body of 16 or more has. */
function mixed(body: string): boolean {
  return /[A-Za-z]/u.test(body) && /[0-9]/u.test(body) ||
    /[a-z]/u.test(body) && /[A-Z]/u.test(body);
}

function tryRule(rule: TokenRule, text: string, start: number, spans: number[]): number {
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

/** Tries the rules whose prefix starts with the two characters at `p`; the end of a match, or -1. */
function tryBucket(plan: ScanPlan, text: string, p: number, spans: number[]): number {
  const second = text.charCodeAt(p + 1);
  if (second >= 128) return -1;
  const index = (text.charCodeAt(p) << 7) | second;
  // Most words start with two characters no prefix starts with: one byte says so; where
  // every prefix there is longer, the third character must fit one of them too.
  const start = plan.starts[index];
  if (start === 0) return -1;
  if (start === 2 && !plan.triples.has((index << 7) | (text.charCodeAt(p + 2) & 127))) return -1;
  const bucket = plan.buckets[index];
  if (bucket === undefined) return -1;
  for (const rule of bucket) {
    if (!text.startsWith(rule.prefix, p)) continue;
    const found = tryRule(rule, text, p, spans);
    if (found >= 0) return found;
  }
  return -1;
}

function examineRun(
  plan: ScanPlan,
  text: string,
  start: number,
  end: number,
  kinds: number,
  prose: boolean,
  spans: number[],
): void {
  const starts = plan.starts;
  let matchedEnd = tryBucket(plan, text, start, spans);
  // Words start inside the run only after `-+/.~`.
  if ((kinds & SEP) !== 0) {
    for (let q = start; q < end - 1; q++) {
      if ((classOf(text.charCodeAt(q)) & SEP) === 0) continue;
      const p = q + 1;
      const first = text.charCodeAt(p);
      if (p < matchedEnd || !isAlnum(first)) continue;
      if (starts[(first << 7) | (text.charCodeAt(p + 1) & 127)] === 0) continue;
      const found = tryBucket(plan, text, p, spans);
      if (found >= 0) matchedEnd = found;
    }
  }
  // A value the key context has judged already is not judged again as prose;
  // random key material mixes letters and digits, or cases.
  if (
    prose && matchedEnd < 0 && plan.proseWords !== undefined && end - start >= MIN_PROSE &&
    ((kinds & DIGIT) !== 0 && (kinds & (UPPER | LOWER)) !== 0 ||
      (kinds & UPPER) !== 0 && (kinds & LOWER) !== 0)
  ) {
    proseContext(plan.proseWords, text, start, end, spans);
  }
}

function sep(code: number): boolean {
  return (classOf(code) & SEP) !== 0;
}

/** A random-looking token shortly after "token", "api key", a provider's name… on the same line. */
function proseContext(
  words: RegExp,
  text: string,
  start: number,
  end: number,
  spans: number[],
): void {
  while (end > start && sep(text.charCodeAt(end - 1))) end--;
  if (end - start < MIN_PROSE) return;
  // Only the window is searched for a line break: searching the whole text back would be quadratic.
  let window = text.slice(Math.max(0, start - 48), start);
  const line = window.lastIndexOf("\n");
  if (line >= 0) window = window.slice(line + 1);
  if (!words.test(window)) return;
  const token = text.slice(start, end);
  if (!looksRandom(token) || isPlaceholder(token) || isCode(token, 0)) return;
  spans.push(start, end);
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9;
}

/** A `:` or `=` at `at`: a value after a secret key name is masked. Returns how far it read. */
function keyContext(plan: ScanPlan, text: string, at: number, spans: number[]): number {
  const code = text.charCodeAt(at);
  const after = text.charCodeAt(at + 1);
  let j = at - 1;
  let next = at + 1;
  if (code === 58) {
    if (after === 58 || after === 61 || text.charCodeAt(j) === 58) return at;
  } else {
    const before = text.charCodeAt(j);
    if (after === 61 || before === 61 || before === 33 || before === 60 || before === 62) return at;
    if (after === 62) next++;
    if (before === 58 || before === 63 || before === 43) j--;
  }
  for (let spaces = 0; j >= 0 && spaces < 16 && isSpace(text.charCodeAt(j)); spaces++) j--;
  const quote = text.charCodeAt(j);
  if (quote === 34 || quote === 39 || quote === 96) {
    j--;
    if (text.charCodeAt(j) === 92) j--;
  }
  const keyEnd = j + 1;
  // Read the name backwards, hashing it (FNV-1a) and counting its digits.
  let hash = 0x811c9dc5;
  let digits = 0;
  for (; j >= 0 && keyEnd - j <= 65; j--) {
    const char = text.charCodeAt(j);
    const kind = classOf(char);
    if ((kind & KEY) === 0) break;
    if ((kind & DIGIT) !== 0) digits++;
    hash = Math.imul(hash ^ char, 0x01000193);
  }
  const keyStart = j + 1;
  // Base64 before its padding is no key name: a name has few digits.
  if (keyStart === keyEnd || keyEnd - keyStart > 64 || digits >= 4) return at;
  const strength = strengthAt(plan, text, keyStart, keyEnd, hash >>> 0);
  if (strength === "none") return at;
  return valueAt(text, next, strength, false, spans);
}

/** Verdicts on key names by hash, checked against the name itself: names repeat, slicing costs. */
const verdicts = new WeakMap<ScanPlan, Map<number, { key: string; strength: KeyStrength }>>();

function strengthAt(
  plan: ScanPlan,
  text: string,
  start: number,
  end: number,
  hash: number,
): KeyStrength {
  let cache = verdicts.get(plan);
  if (cache === undefined) verdicts.set(plan, cache = new Map());
  const known = cache.get(hash);
  if (known !== undefined && known.key.length === end - start) {
    let same = true;
    for (let index = 0; index < known.key.length && same; index++) {
      same = known.key.charCodeAt(index) === text.charCodeAt(start + index);
    }
    if (same) return known.strength;
  }
  const key = text.slice(start, end);
  const strength = plan.strengthOf?.(key) ?? "none";
  if (cache.size >= 4096) cache.clear();
  cache.set(hash, { key, strength });
  return strength;
}

/** `--token VALUE`: the flag's name is `text[from, to)`, its value follows the spaces. */
function flagContext(
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

const SCHEME = /^(?:bearer|basic|token|digest|negotiate|apikey|sso-key|key)[ \t]+/iu;

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
  for (const limit = Math.min(n, s + 1024); e < limit; e++) {
    const char = text.charCodeAt(e);
    if (char < 128 && ((CLASS[char] ?? 0) & STOP) !== 0) break;
  }
  let end = e;
  while (end > s && (text.charCodeAt(end - 1) === 46 || text.charCodeAt(end - 1) === 58)) end--;
  const value = text.slice(s, end);
  if (valueIsSecret(value, strength, false, text.charCodeAt(e))) spans.push(s, end);
  return e;
}

/** The anchored formats whose literal lies in the run `[start, end)`. */
function anchorsInRun(
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
    const need = literalKinds(literal);
    if ((kinds & need) !== need) continue;
    run ??= text.slice(start, end);
    let done = -1;
    for (let hit = run.indexOf(literal); hit !== -1; hit = run.indexOf(literal, hit + 1)) {
      if (start + hit >= done) done = anchorAt(rule, text, start + hit, done, spans);
    }
  }
}

const kindsOfLiterals = new Map<string, number>();

function literalKinds(literal: string): number {
  let kinds = kindsOfLiterals.get(literal);
  if (kinds === undefined) {
    kinds = 0;
    for (let index = 0; index < literal.length; index++) {
      kinds |= classOf(literal.charCodeAt(index));
    }
    kindsOfLiterals.set(literal, kinds);
  }
  return kinds;
}

/** Tries an anchored format whose literal is at `hit`; the end of a match, or `done`. */
function anchorAt(
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
    if (start < 0 || start < done || isAlnum(text.charCodeAt(start - 1))) continue;
    const end = tryRule(rule, text, start, spans);
    if (end >= 0) return end;
  }
  return done;
}

// The body runs up to the next five dashes, so a block cut short is masked up to where it stops.
const PEM = new RegExp(
  String.raw`-----BEGIN (?:[A-Za-z0-9]+ ){0,3}(?:PRIVATE KEY(?: BLOCK)?|Static key V1)-----` +
    String.raw`(?:[A-Za-z0-9+\/=\s:,.\\]|-(?!----))*` +
    String.raw`(?:-----END (?:[A-Za-z0-9]+ ){0,3}(?:PRIVATE KEY(?: BLOCK)?|Static key V1)-----)?`,
  "uy",
);

function pemAt(text: string, at: number, spans: number[]): void {
  PEM.lastIndex = at;
  const match = PEM.exec(text);
  if (match !== null) spans.push(at, at + match[0].length);
}

/** `scheme://user:password@host`: the password, from the user part at `from`. */
function urlAt(text: string, from: number, spans: number[]): void {
  let colon = -1;
  let e = from;
  for (const limit = Math.min(text.length, from + 512); e < limit; e++) {
    const code = text.charCodeAt(e);
    if (code === 64 /* @ */) break;
    if (code === 58 && colon < 0) colon = e;
    // A path, query, fragment, space or quote ends the authority: no `@`, no password.
    if (code <= 32 || code === 47 || code === 63 || code === 35 || (classOf(code) & STOP) !== 0) {
      return;
    }
  }
  if (text.charCodeAt(e) !== 64 || colon < 0) return;
  const password = text.slice(colon + 1, e);
  if (!isPlaceholder(password)) spans.push(colon + 1, e);
}

function isBearer(text: string, at: number): boolean {
  return (text.charCodeAt(at) | 32) === 98 && (text.charCodeAt(at + 1) | 32) === 101 &&
    (text.charCodeAt(at + 2) | 32) === 97 && (text.charCodeAt(at + 3) | 32) === 114 &&
    (text.charCodeAt(at + 4) | 32) === 101 && (text.charCodeAt(at + 5) | 32) === 114;
}

const BEARER_TOKEN = /[A-Za-z0-9._~+\/-]+=*/uy;

/** The token after the word `Bearer` at `after` (8 or more characters with a digit, or 20 or more). */
function bearerAt(text: string, after: number, spans: number[]): void {
  let s = after;
  while (s < after + 16 && isSpace(text.charCodeAt(s))) s++;
  BEARER_TOKEN.lastIndex = s;
  const match = BEARER_TOKEN.exec(text);
  if (match === null) return;
  const token = match[0];
  const bare = token.replace(/=+$/u, "");
  if (bare.length < 8 || (bare.length < 20 && !/\d/u.test(bare))) return;
  if (isPlaceholder(bare) || /^[A-Z]?[a-z]+$/u.test(bare)) return;
  spans.push(s, s + token.length);
}
