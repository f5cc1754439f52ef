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

import { ASSIGN, CLASS, DIGIT, DOT, isAlnum, LOWER, RUN, SEP, sep, TILDE, UPPER } from "./chars.ts";
import { decodedSecrets, MIN_ENCODED } from "./encoded.ts";
import { namesIdentity } from "./siblings.ts";
import { flagContext, keyContext, type KeyVerdicts } from "./key_context.ts";
import type { KeyStrength } from "./key_names.ts";
import { bearerAt, isBearer, pemAt, urlAt } from "./literals.ts";
import { anchorAt, anchorsInRun, tokenIsSample, tryRule } from "./tokens.ts";
import { unitBytes } from "./units.ts";
import {
  encodesPlaceholder,
  isCode,
  isHexOrUuid,
  isPlaceholder,
  looksRandom,
  switchyPiece,
} from "./value_shape.ts";

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
  /** A word the token may follow with no break, or "". */
  readonly glued: string;
  /** The inner literal of an anchored format, and how far before it the token starts. */
  readonly anchor:
    | {
      readonly literal: string;
      readonly min: number;
      readonly max: number;
      /** The character kinds of the literal: a run without them cannot hold it. */
      readonly kinds: number;
    }
    | undefined;
}

/** What one redactor's scan looks for. */
export interface ScanPlan {
  /** Token rules by their first two characters, `(c0 << 7) | c1`. */
  readonly buckets: readonly (readonly TokenRule[] | undefined)[];
  /**
   * Per bucket: 0 no rules, 1 a prefix of two characters, and `2 + slot`
   * when every prefix is longer (see `thirds`).
   */
  readonly starts: Uint16Array;
  /** Per slot, a 128-bit set of the third characters of its bucket's prefixes. */
  readonly thirds: Uint32Array;
  /** Token rules found by an inner literal within a run (`Q~`, `-us`). */
  readonly anchoredInRun: readonly TokenRule[];
  /** Token rules found by an inner literal at a colon (`:AA`). */
  readonly anchoredAtColon: readonly TokenRule[];
  /**
   * Verdicts on key names, in slots picked by the name's FNV-1a hash and
   * checked against the name itself on a hit (names repeat; slicing and
   * classifying each costs). A later name takes over its slot.
   */
  readonly verdicts: KeyVerdicts;
  /** The strength of a key name, or `undefined` when key context is off. */
  readonly strengthOf: ((key: string) => KeyStrength) | undefined;
  /** Words that, shortly before a random-looking token in prose, mark it as a secret. */
  readonly proseWords: RegExp | undefined;
  /** Words that do so only for a token of 20 or more characters. */
  readonly proseMaybe: RegExp | undefined;
  readonly pem: boolean;
  readonly url: boolean;
  readonly bearer: boolean;
}

/** The shortest run the token rules look at (the shortest leading run of any format). */
export const MIN_RUN = 11;
/** What a run of base64 holds: digits, capitals and small letters. */
const BASE64_KINDS = DIGIT | UPPER | LOWER;

/** The shortest random-looking token the prose rule looks at. */
const MIN_PROSE = 12;

/**
 * Finds every built-in secret in `text`, pushing `start, end` pairs onto `spans`. Base64 and
 * URL-encoded runs are decoded and scanned too, one level deep (`decoding` is false inside).
 */
export function scanText(plan: ScanPlan, text: string, spans: number[], decoding = true): void {
  // The loop reads bytes; what it finds is looked at in the string.
  const units = unitBytes(text);
  const encoded: number[] | undefined = decoding ? [] : undefined;
  try {
    scanUnits(plan, text, units, spans, encoded);
  } finally {
    // The buffer is reused: it keeps no copy of the text once the scan is done.
    units.fill(0);
  }
  // After the pass: scanning the decoded text reuses the byte buffer.
  if (encoded !== undefined && (encoded.length > 0 || text.includes("%"))) {
    decodedSecrets(text, encoded, (decoded, inner) => scanText(plan, decoded, inner, false), spans);
  }
}

function scanUnits(
  plan: ScanPlan,
  text: string,
  units: Uint8Array,
  spans: number[],
  encoded: number[] | undefined,
): void {
  const n = text.length;
  const keyed = plan.strengthOf !== undefined;
  const starts = plan.starts;
  const anchored = plan.anchoredInRun.length > 0;
  let keyUntil = -1;
  let i = 0;
  while (i < n) {
    const kind = CLASS[units[i] ?? 0] ?? 0;
    if ((kind & RUN) === 0) {
      if ((kind & ASSIGN) !== 0) {
        keyUntil = assignment(plan, text, units, i, keyed && i > keyUntil, keyUntil, spans);
      }
      i++;
      continue;
    }
    // Consume the whole run; the character after it is looked at in the next turn.
    const start = i;
    let kinds = kind;
    while (++i < n) {
      const next = CLASS[units[i] ?? 0] ?? 0;
      if ((next & RUN) === 0) break;
      kinds |= next;
    }
    const length = i - start;
    if (length < 2) continue;
    const code = i < n ? units[i] ?? 0 : 0;
    if (
      keyed && (code === 32 || code === 9) && i > keyUntil && length > 3 &&
      units[start] === 45 && units[start + 1] === 45
    ) {
      keyUntil = flagContext(plan, text, start + 2, i, spans);
    }
    if (length >= MIN_RUN) examineRun(plan, text, units, start, i, kinds, start > keyUntil, spans);
    // Base64 of text mixes cases and digits, and has no `.` or `~`.
    if (
      encoded !== undefined && length >= MIN_ENCODED && (kinds & BASE64_KINDS) === BASE64_KINDS &&
      (kinds & (DOT | TILDE)) === 0
    ) {
      encoded.push(start, i);
    } // A short run may still start a token that goes on past it (`b_abc=…`, `access_token$…`).
    else if (starts[((units[start] ?? 0) << 7) | ((units[start + 1] ?? 0) & 127)] !== 0) {
      tryBucket(plan, text, units, start, spans);
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
  units: Uint8Array,
  i: number,
  keyed: boolean,
  keyUntil: number,
  spans: number[],
): number {
  if (text.charCodeAt(i) === 58) {
    const next = text.charCodeAt(i + 1);
    if (next === 47 && plan.url && text.charCodeAt(i + 2) === 47) urlAt(text, i + 3, spans);
    else if (next === 65) {
      for (const rule of plan.anchoredAtColon) anchorAt(rule, text, i, -1, spans);
    }
  }
  return keyed ? keyContext(plan, text, units, i, spans) : keyUntil;
}

/** The shortest run an anchored format fits in. */
const MIN_ANCHORED = 20;

/** Tries the rules whose prefix starts with the two characters at `p`; the end of a match, or -1. */
function tryBucket(
  plan: ScanPlan,
  text: string,
  units: Uint8Array,
  p: number,
  spans: number[],
): number {
  const second = units[p + 1] ?? 128;
  if (second >= 128) return -1;
  const index = ((units[p] ?? 0) << 7) | second;
  // Most words start with two characters no prefix starts with: one entry says so; where
  // every prefix there is longer, the third character must fit one of them too.
  const start = plan.starts[index] ?? 0;
  if (start === 0) return -1;
  if (start >= 2) {
    const third = (units[p + 2] ?? 0) & 127;
    if (((plan.thirds[(start - 2) * 4 + (third >> 5)] ?? 0) & (1 << (third & 31))) === 0) return -1;
  }
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
  units: Uint8Array,
  start: number,
  end: number,
  kinds: number,
  prose: boolean,
  spans: number[],
): void {
  const starts = plan.starts;
  let matchedEnd = tryBucket(plan, text, units, start, spans);
  // Words start inside the run only after `-+/.~`.
  if ((kinds & SEP) !== 0) {
    for (let q = start; q < end - 1; q++) {
      if (((CLASS[units[q] ?? 0] ?? 0) & SEP) === 0) continue;
      const p = q + 1;
      const first = units[p] ?? 0;
      if (p < matchedEnd || !isAlnum(first)) continue;
      if (starts[(first << 7) | ((units[p + 1] ?? 0) & 127)] === 0) continue;
      const found = tryBucket(plan, text, units, p, spans);
      if (found >= 0) matchedEnd = found;
    }
  }
  // A value the key context has judged already is not judged again as prose;
  // random key material mixes letters and digits, or cases.
  if (
    prose && matchedEnd < 0 && plan.proseWords !== undefined && end - start >= MIN_PROSE &&
    ((kinds & DIGIT) !== 0 && (kinds & (UPPER | LOWER)) !== 0 ||
      (kinds & UPPER) !== 0 && (kinds & LOWER) !== 0) &&
    !covered(spans, start)
  ) {
    proseContext(plan, text, units, start, end, spans);
  }
}

/** Whether the last secret found covers `at` (a token the run continues, such as `…:AA…/getMe`). */
function covered(spans: readonly number[], at: number): boolean {
  const end = spans[spans.length - 1];
  const start = spans[spans.length - 2];
  return start !== undefined && end !== undefined && start <= at && at < end;
}

/** A random-looking token shortly after "token", "api key", a provider's name… on the same line. */
function proseContext(
  plan: ScanPlan,
  text: string,
  units: Uint8Array,
  start: number,
  end: number,
  spans: number[],
): void {
  while (end > start && sep(text.charCodeAt(end - 1))) end--;
  if (end - start < MIN_PROSE) return;
  // Most candidates are ids and names: the bytes rule them out before the words are searched.
  if (end - start < 32 && !switchyPiece(units, start, end)) return;
  // Only the window is searched for a line break: searching the whole text back would be quadratic.
  // The words are looked for first: most runs have none before them, and one search of at most 48
  // characters costs less than judging the token's shape.
  let window = text.slice(Math.max(0, start - 48), start);
  const line = window.lastIndexOf("\n");
  if (line >= 0) window = window.slice(line + 1);
  const sure = plan.proseWords?.test(window) === true;
  if (!sure && (end - start < 20 || plan.proseMaybe?.test(window) !== true)) return;
  const token = text.slice(start, end);
  // Paths and URLs' paths (`//host/avatar/…`, `./auth-CmOF.cjs`), hex literals, and short hex
  // (commit ids in changelogs, up to 15 digits) are not what prose hands over as a credential.
  if (/^(?:\.{1,2}\/|\/\/|\/[a-z]+\/|0x)|^[0-9a-fA-F]{1,15}$/u.test(token)) return;
  if (!looksRandom(token) || isPlaceholder(token) || isCode(token, 0)) return;
  if (tokenIsSample(token) || encodesPlaceholder(token)) return;
  // Inside a template expression (`${{ secrets.DEPLOY_KEY }}`): a reference, not a value.
  if (/\{\{[ \t]*$/u.test(window)) return;
  // A hex run after words that name a public key's id is that id (`GnuPG key: 7EC2…`).
  if (/^[0-9a-fA-F]+$/u.test(token) && PUBLIC_KEY_WORDS.test(window)) return;
  // After "key" alone, a digest or a UUID is as likely an id (`idempotency key 550e…`); so is
  // one that is the value of a key the key context did not find secret (`"shasum": "…"`).
  if (isHexOrUuid(token) && (!sure || keyedValue(text, start))) return;
  spans.push(start, end);
}

/** Words before a hex run that name a public key's id (`signing key 1988…`, `key ID: 6000…`). */
const PUBLIC_KEY_WORDS = /signing[ _-]?key|key[ _-]?id|\(id:|fingerprint|gpg|pgp|gnupg/iu;

/**
 * Whether the token at `start` is the value of a key that names an id or a digest
 * (`"shasum": "…"`, `commit=…`): such a hex run is that, whatever words stand before it.
 */
function keyedValue(text: string, start: number): boolean {
  let at = start - 1;
  for (let steps = 0; steps < 4 && at >= 0; steps++, at--) {
    const code = text.charCodeAt(at);
    if (code === 58 || code === 61) break;
    if (code !== 34 && code !== 39 && code !== 32) return false;
  }
  const assign = text.charCodeAt(at);
  if (assign !== 58 && assign !== 61) return false;
  let end = at;
  while (end > 0 && (text.charCodeAt(end - 1) === 34 || text.charCodeAt(end - 1) === 39)) end--;
  let begin = end;
  while (begin > 0 && begin > end - 64 && /[\w.-]/u.test(text[begin - 1] ?? "")) begin--;
  return begin < end && namesIdentity(text.slice(begin, end));
}
