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

import { isCode, isPlaceholder, type KeyStrength, looksRandom, valueIsSecret } from "./keys.ts";

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
  /** Token rules found by an inner literal. */
  readonly anchored: readonly TokenRule[];
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
const CLASS = new Uint8Array(128);
for (let code = 0; code < 128; code++) {
  const char = String.fromCharCode(code);
  let kind = 0;
  if (/[A-Za-z0-9]/u.test(char)) kind = RUN | ALNUM | KEY;
  if (/[+\/.~-]/u.test(char)) kind = RUN | SEP;
  if (char === "_") kind = RUN;
  if (char === "_" || char === "." || char === "-") kind |= KEY;
  if (char === ":" || char === "=") kind = ASSIGN;
  if (/[\s,;&"'`<>()[\]{}\\]/u.test(char) || code < 32) kind |= STOP;
  CLASS[code] = kind;
}

/** Finds every built-in secret in `text`, pushing `start, end` pairs onto `spans`. */
export function scanText(plan: ScanPlan, text: string, spans: number[]): void {
  const n = text.length;
  const keyed = plan.strengthOf !== undefined;
  let runStart = -1;
  let keyUntil = -1;
  for (let i = 0; i <= n; i++) {
    const code = i < n ? text.charCodeAt(i) : 32;
    const kind = code < 128 ? CLASS[code] ?? 0 : 0;
    if ((kind & RUN) !== 0) {
      if (runStart < 0) runStart = i;
      continue;
    }
    if (runStart >= 0) {
      if (
        keyed && (code === 32 || code === 9) && i > keyUntil && i - runStart > 3 &&
        text.charCodeAt(runStart) === 45 && text.charCodeAt(runStart + 1) === 45
      ) {
        keyUntil = flagContext(plan, text, runStart + 2, i, spans);
      }
      if (i - runStart >= MIN_RUN) examineRun(plan, text, runStart, i, runStart > keyUntil, spans);
      // A short run may still start a token that goes on past it (`b_abc=…`, `access_token$…`).
      else if (i - runStart >= 2) tryBucket(plan, text, runStart, spans);
      runStart = -1;
    }
    if ((kind & ASSIGN) !== 0 && keyed && i > keyUntil) {
      keyUntil = keyContext(plan, text, i, spans);
    }
  }
  for (const rule of plan.anchored) scanAnchor(rule, text, spans);
  if (plan.pem) scanPem(text, spans);
  if (plan.url) scanUrls(text, spans);
  if (plan.bearer) {
    scanBearer(text, "earer", spans);
    scanBearer(text, "EARER", spans);
  }
}

function isAlnum(code: number): boolean {
  return code < 128 && ((CLASS[code] ?? 0) & ALNUM) !== 0;
}

/** The body after the prefix is a documentation sample, not a key: few distinct characters, EXAMPLE, xxxx. */
function tokenIsSample(body: string): boolean {
  return /EXAMPLE|example|xxxx|XXXX|0000000000|1234567890/u.test(body) ||
    (body.length >= 8 && isPlaceholder(body) && !/[^A-Za-z0-9_.=+\/-]/u.test(body) &&
      new Set(body).size <= 3);
}

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
  const bucket = second < 128 ? plan.buckets[(text.charCodeAt(p) << 7) | second] : undefined;
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
  prose: boolean,
  spans: number[],
): void {
  let matchedEnd = start;
  for (let p = start; p < end;) {
    if (p >= matchedEnd) {
      const found = tryBucket(plan, text, p, spans);
      if (found >= 0) matchedEnd = found;
    }
    // The next word start inside the run: a letter or digit after `-+/.~`.
    p++;
    while (p < end && !(isAlnum(text.charCodeAt(p)) && sep(text.charCodeAt(p - 1)))) p++;
  }
  // A value the key context has judged already is not judged again as prose.
  if (prose && matchedEnd === start && plan.proseWords !== undefined && end - start >= MIN_PROSE) {
    proseContext(plan.proseWords, text, start, end, spans);
  }
}

function sep(code: number): boolean {
  return code < 128 && ((CLASS[code] ?? 0) & SEP) !== 0;
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
  while (j >= 0 && keyEnd - j <= 65 && isKeyChar(text.charCodeAt(j))) j--;
  const keyStart = j + 1;
  if (keyStart === keyEnd || keyEnd - keyStart > 64) return at;
  const key = text.slice(keyStart, keyEnd);
  // Base64 before its padding is no key name: a name has few digits.
  if (countDigits(key) >= 4) return at;
  const strength = plan.strengthOf?.(key) ?? "none";
  if (strength === "none") return at;
  return valueAt(text, next, strength, false, spans);
}

function countDigits(key: string): number {
  let digits = 0;
  for (let index = 0; index < key.length; index++) {
    const code = key.charCodeAt(index);
    if (code >= 48 && code <= 57) digits++;
  }
  return digits;
}

function isKeyChar(code: number): boolean {
  return code < 128 && ((CLASS[code] ?? 0) & KEY) !== 0;
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

function scanAnchor(rule: TokenRule, text: string, spans: number[]): void {
  const anchor = rule.anchor;
  if (anchor === undefined) return;
  let done = -1;
  for (
    let hit = text.indexOf(anchor.literal);
    hit !== -1;
    hit = text.indexOf(anchor.literal, hit + 1)
  ) {
    if (hit < done) continue;
    for (let lead = anchor.max; lead >= anchor.min; lead--) {
      const start = hit - lead;
      if (start < 0 || start < done || isAlnum(text.charCodeAt(start - 1))) continue;
      const end = tryRule(rule, text, start, spans);
      if (end >= 0) {
        done = end;
        break;
      }
    }
  }
}

// The body runs up to the next five dashes, so a block cut short is masked up to where it stops.
const PEM = new RegExp(
  String.raw`-----BEGIN (?:[A-Za-z0-9]+ ){0,3}(?:PRIVATE KEY(?: BLOCK)?|Static key V1)-----` +
    String.raw`(?:[A-Za-z0-9+\/=\s:,.\\]|-(?!----))*` +
    String.raw`(?:-----END (?:[A-Za-z0-9]+ ){0,3}(?:PRIVATE KEY(?: BLOCK)?|Static key V1)-----)?`,
  "uy",
);

function scanPem(text: string, spans: number[]): void {
  let done = -1;
  for (
    let hit = text.indexOf("-----BEGIN ");
    hit !== -1;
    hit = text.indexOf("-----BEGIN ", hit + 1)
  ) {
    if (hit < done) continue;
    PEM.lastIndex = hit;
    const match = PEM.exec(text);
    if (match === null) continue;
    done = hit + match[0].length;
    spans.push(hit, done);
  }
}

/** `scheme://user:password@host`: the password. */
function scanUrls(text: string, spans: number[]): void {
  for (let hit = text.indexOf("://"); hit !== -1; hit = text.indexOf("://", hit + 3)) {
    const from = hit + 3;
    let colon = -1;
    let e = from;
    for (const limit = Math.min(text.length, from + 512); e < limit; e++) {
      const code = text.charCodeAt(e);
      if (code === 64 /* @ */) break;
      if (code === 58 && colon < 0) colon = e;
      if (code <= 32 || "/?#\"'<>`\\".includes(text[e] ?? "")) {
        e = limit;
        break;
      }
    }
    if (text.charCodeAt(e) !== 64 || colon < 0) continue;
    const password = text.slice(colon + 1, e);
    if (!isPlaceholder(password)) spans.push(colon + 1, e);
  }
}

const BEARER_TOKEN = /[A-Za-z0-9._~+\/-]+=*/uy;

/** The token after the word `Bearer` (8 or more characters with a digit, or 20 or more). */
function scanBearer(text: string, tail: string, spans: number[]): void {
  for (let hit = text.indexOf(tail); hit !== -1; hit = text.indexOf(tail, hit + 5)) {
    const b = text.charCodeAt(hit - 1);
    if ((b !== 66 && b !== 98) || isAlnum(text.charCodeAt(hit - 2))) continue;
    let s = hit + 5;
    if (!isSpace(text.charCodeAt(s))) continue;
    while (s < hit + 21 && isSpace(text.charCodeAt(s))) s++;
    BEARER_TOKEN.lastIndex = s;
    const match = BEARER_TOKEN.exec(text);
    if (match === null) continue;
    const token = match[0];
    const bare = token.replace(/=+$/u, "");
    if (bare.length < 8 || (bare.length < 20 && !/\d/u.test(bare))) continue;
    if (isPlaceholder(bare) || /^[A-Z]?[a-z]+$/u.test(bare)) continue;
    spans.push(s, s + token.length);
  }
}
