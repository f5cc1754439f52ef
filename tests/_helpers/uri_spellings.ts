/**
 * Random spellings of one URI, as an attacker would write them to slip past
 * a rule: percent-escapes of any character in either hex case, dot
 * segments, the case of the scheme and host, all mixed; some of them
 * (an encoded `/`, a dot segment spelt `%2E`) a server must refuse.
 */

/** RFC 3986's unreserved characters. */
export const UNRESERVED = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~";
const SUB_DELIMS = "!$&'()*+,;=:@";

export { seededRandom } from "./seeded_random.ts";

/** One spelling, and whether a server must refuse it rather than resolve it. */
export interface Spelling {
  readonly uri: string;
  readonly refuse: boolean;
}

/** What a spelling may change. */
export interface SpellingOptions {
  /** Vary the case of the host (a custom scheme's host keeps its case as an identifier). */
  readonly hostCase?: boolean;
  /** Include the spellings that must be refused (encoded `/`, encoded dot segments). */
  readonly refusals?: boolean;
}

function randomCase(text: string, random: () => number): string {
  let out = "";
  for (const char of text) out += random() < 0.5 ? char.toUpperCase() : char.toLowerCase();
  return out;
}

function escape(char: string, random: () => number): string {
  return `%${randomCase(char.charCodeAt(0).toString(16).padStart(2, "0"), random)}`;
}

/** `text` with some unreserved and sub-delimiter characters percent-encoded. */
function encodeSome(text: string, random: () => number, rate: number): string {
  let out = "";
  for (const char of text) {
    const encodable = UNRESERVED.includes(char) || SUB_DELIMS.includes(char);
    out += encodable && random() < rate ? escape(char, random) : char;
  }
  return out;
}

/** Splits `scheme://authority/path` (targets are written so); the rest stays as it is. */
function parts(target: string): { scheme: string; authority: string; path: string; tail: string } {
  const match = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)(.*)$/.exec(target);
  if (match === null) throw new Error(`Not a target URI: ${target}`);
  const [, scheme = "", authority = "", path = "", tail = ""] = match;
  return { scheme, authority, path, tail };
}

/** Inserts a dot segment (`./`, `zz/../`, or a refused `%2E%2E`) before a random path segment. */
function dotted(path: string, random: () => number, refusals: boolean): Spelling {
  const slashes = [...path.matchAll(/\//g)].map((match) => match.index ?? 0);
  const at = (slashes[Math.floor(random() * slashes.length)] ?? 0) + 1;
  const roll = random();
  const refuse = refusals && roll < 0.15;
  const dot = refuse
    ? `zz/${escape(".", random)}${random() < 0.5 ? "." : escape(".", random)}/`
    : roll < 0.55
    ? "./"
    : "zz/../";
  return { uri: `${path.slice(0, at)}${dot}${path.slice(at)}`, refuse };
}

/** One random spelling of `target` (`scheme://authority/path…`). */
export function randomSpelling(
  target: string,
  random: () => number,
  options: SpellingOptions = {},
): Spelling {
  const { scheme, authority, path, tail } = parts(target);
  const refusals = options.refusals ?? true;
  let refuse = false;
  let host = authority;
  if (options.hostCase === true && random() < 0.5) host = randomCase(host, random);
  host = encodeSome(host, random, 0.15);
  let spelt = encodeSome(path, random, 0.35);
  if (random() < 0.4) {
    const dots = dotted(spelt, random, refusals);
    spelt = dots.uri;
    refuse = dots.refuse;
  }
  if (refusals && random() < 0.08) {
    const slash = spelt.lastIndexOf("/");
    if (slash > 0) {
      spelt = `${spelt.slice(0, slash)}${random() < 0.5 ? "%2F" : "%2f"}${spelt.slice(slash + 1)}`;
      refuse = true;
    }
  }
  const schemeCase = random() < 0.5 ? randomCase(scheme, random) : scheme;
  return { uri: `${schemeCase}://${host}${spelt}${tail}`, refuse };
}

/** `count` distinct random spellings of `target`, the target itself first. */
export function spellings(
  target: string,
  random: () => number,
  count: number,
  options: SpellingOptions = {},
): Spelling[] {
  const seen = new Set([target]);
  const out: Spelling[] = [{ uri: target, refuse: false }];
  for (let tries = 0; out.length < count && tries < count * 20; tries++) {
    const spelling = randomSpelling(target, random, options);
    if (seen.has(spelling.uri)) continue;
    seen.add(spelling.uri);
    out.push(spelling);
  }
  return out;
}
