/**
 * Secrets found from a rare literal the main pass meets: PEM private key
 * blocks after `-----BEGIN`, passwords in `scheme://user:password@host`
 * URLs, and the token after the word `Bearer`.
 *
 * @module
 */

import { classOf, isSpace, STOP } from "./chars.ts";
import { isPlaceholder } from "./value_shape.ts";

// The body runs up to the next five dashes, so a block cut short is masked up to where it stops.
const PEM = new RegExp(
  String.raw`-----BEGIN (?:[A-Za-z0-9]+ ){0,3}(?:PRIVATE KEY(?: BLOCK)?|Static key V1)-----` +
    String.raw`(?:[A-Za-z0-9+\/=\s:,.\\]|-(?!----))*` +
    String.raw`(?:-----END (?:[A-Za-z0-9]+ ){0,3}(?:PRIVATE KEY(?: BLOCK)?|Static key V1)-----)?`,
  "uy",
);

export function pemAt(text: string, at: number, spans: number[]): void {
  PEM.lastIndex = at;
  const match = PEM.exec(text);
  // A block whose body is a sample (`XXXX`, `...`) shows the format, it holds no key.
  if (match !== null && !/XXXX|xxxx|\.\.\.|\u2026/u.test(match[0])) {
    spans.push(at, at + match[0].length);
  }
}

/** `scheme://user:password@host`: the password, from the user part at `from`. */
export function urlAt(text: string, from: number, spans: number[]): void {
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

export function isBearer(text: string, at: number): boolean {
  return (text.charCodeAt(at) | 32) === 98 && (text.charCodeAt(at + 1) | 32) === 101 &&
    (text.charCodeAt(at + 2) | 32) === 97 && (text.charCodeAt(at + 3) | 32) === 114 &&
    (text.charCodeAt(at + 4) | 32) === 101 && (text.charCodeAt(at + 5) | 32) === 114;
}

const BEARER_TOKEN = /[A-Za-z0-9._~+\/-]+=*/uy;

/** The token after the word `Bearer` at `after` (8 or more characters with a digit, or 20 or more). */
export function bearerAt(text: string, after: number, spans: number[]): void {
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
