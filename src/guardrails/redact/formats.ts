/**
 * Token formats: a compact, public description of a provider's token
 * (`ghp_{A:36}` is `ghp_` and 36 letters or digits) that compiles to the
 * regular expression the scanner runs, and that tests read to generate
 * real-format samples from, so the two can never disagree.
 *
 * Literal text stands for itself; `{C:n}` or `{C:min,max}` is a run of
 * characters of class `C` (see {@linkcode ALPHABETS}); a `|` marks where the
 * masked part starts when the text before it (a host and path) stays readable.
 *
 * @module
 */

/**
 * The character classes a format may use, by letter.
 *
 * @example
 * ```ts ignore
 * console.assert(ALPHABETS.h === "0123456789abcdef");
 * ```
 */
export const ALPHABETS: Readonly<Record<string, string>> = Object.freeze({
  A: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
  L: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
  a: "abcdefghijklmnopqrstuvwxyz0123456789",
  U: "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
  h: "0123456789abcdef",
  x: "0123456789abcdefABCDEF",
  d: "0123456789",
  b: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-",
  B: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
  s: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-",
  e: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_=-",
  z: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_~.-",
  p: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789%",
  f: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._",
  "2": "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
  g: "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L",
  q: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789=_.-",
  w: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_",
  n: "abcdefghijklmnopqrstuvwxyz0123456789-",
  k: "_-",
  "=": "=",
});

/** One part of a parsed format: literal text, or a run of one class. */
export type FormatPart =
  | { readonly literal: string }
  | { readonly alphabet: string; readonly min: number; readonly max: number };

/** A parsed format: its parts and how many leading characters stay readable. */
export interface ParsedFormat {
  /** The parts, in order. */
  readonly parts: readonly FormatPart[];
  /** The literal text before `|` (kept readable), or "" when the whole token is masked. */
  readonly kept: string;
  /** The literal text the token starts with (after any kept part). */
  readonly prefix: string;
}

const PART = /\{([^:}]+):(\d+)(?:,(\d+))?\}|\|/gu;

/**
 * Parses a format string.
 *
 * @throws {SyntaxError} An unknown class letter or a bad range.
 * @example
 * ```ts ignore
 * console.assert(parseFormat("ghp_{A:36}").prefix === "ghp_");
 * ```
 */
export function parseFormat(format: string): ParsedFormat {
  const parts: FormatPart[] = [];
  let kept = "";
  let cursor = 0;
  for (const match of format.matchAll(PART)) {
    if (match.index > cursor) parts.push({ literal: format.slice(cursor, match.index) });
    cursor = match.index + match[0].length;
    if (match[0] === "|") {
      kept = parts.map((part) => "literal" in part ? part.literal : "").join("");
      parts.length = 0;
      continue;
    }
    const [, letter = "", low = "", high] = match;
    const alphabet = Object.hasOwn(ALPHABETS, letter) ? ALPHABETS[letter] : undefined;
    const min = Number(low);
    const max = high === undefined ? min : Number(high);
    if (alphabet === undefined || max < min) {
      throw new SyntaxError(`Cannot parse token format '${format}': bad part '${match[0]}'`);
    }
    parts.push({ alphabet, min, max });
  }
  if (cursor < format.length) parts.push({ literal: format.slice(cursor) });
  const first = parts[0];
  const prefix = first !== undefined && "literal" in first ? first.literal : "";
  return { parts, kept, prefix };
}

const SYNTAX = /[\\^$.*+?()[\]{}|\/]/gu;
const CLASS_SYNTAX = /[\\\]^-]/gu;

/** A literal, escaped for use in a `u`-flag regular expression. */
export function escapeLiteral(text: string): string {
  return text.replace(SYNTAX, "\\$&");
}

/** The regular expression source of a format's parts (the kept part excluded). */
export function formatSource(parsed: ParsedFormat): string {
  return parsed.parts.map((part) => {
    if ("literal" in part) return escapeLiteral(part.literal);
    const range = part.min === part.max ? `{${part.min}}` : `{${part.min},${part.max}}`;
    return `[${part.alphabet.replace(CLASS_SYNTAX, "\\$&")}]${range}`;
  }).join("");
}
