/**
 * The one canonical form of a resource URI, so that the access policy, the
 * rate limiter, the audit log and the handler all decide on the same name:
 * RFC 3986 §6.2.2 syntax-based normalisation (percent-escapes of unreserved
 * characters decoded, the hex of the rest in upper case, the scheme in lower
 * case, dot segments removed) plus §6.2.3 scheme-based host case, and a
 * refusal of what cannot be normalised safely.
 *
 * @module
 */

/** Why a URI cannot be put in canonical form; each is a constant, so refusing allocates nothing. */
export interface UriRefusal {
  /** What is wrong, for an `Invalid params: uri …` message; never echoes the URI. */
  readonly refused: string;
}

function refusal(refused: string): UriRefusal {
  return Object.freeze({ refused });
}

const NOT_WELL_FORMED = refusal("holds a lone surrogate");
const CONTROL = refusal("holds a control character");
const BACKSLASH = refusal("holds a backslash");
const BAD_ESCAPE = refusal("holds an invalid percent-escape");
const NUL = refusal("holds an encoded NUL (%00)");
const ENCODED_SEPARATOR = refusal("encodes a path separator (%2F or %5C)");
const ENCODED_DOT = refusal("encodes a dot segment (%2E)");
const NOT_UTF8 = refusal("has percent-escapes that are not UTF-8");
const PLACEHOLDER = refusal("holds U+E000");
const DOTTED_EXPRESSION = refusal("has a dot segment that removes a template expression");

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
/** Schemes whose host is a DNS name or an IP address, and so case-insensitive (RFC 3986 §6.2.3). */
const DNS_SCHEMES: ReadonlySet<string> = new Set(["http", "https", "ws", "wss", "ftp", "file"]);
/** A path with a `.` or `..` segment. */
const DOT_SEGMENT = /(?:^|\/)\.\.?(?:\/|$)/;
/**
 * A URI that may have one: also right after the scheme's colon, where a
 * rootless path (`notes:./secret`) starts, so the shortcut never skips it.
 */
const DOT_SEGMENT_IN_URI = /(?:^|[/:])\.\.?(?:\/|$)/;
/** A template expression, replaced while the template's literal text is normalised. */
const EXPRESSION = /\{[^{}]*\}/g;
const HOLE = "\uE000";

/**
 * The canonical form of a resource URI, or why there is none.
 *
 * What changes: percent-escapes of unreserved characters (`A-Z a-z 0-9 - . _ ~`)
 * are decoded, the hex digits of every other escape are written in upper
 * case, the scheme is lower-cased, `.` and `..` path segments are removed
 * (RFC 3986 §5.2.4), and the host is lower-cased for the schemes where it is
 * a DNS name (`http`, `https`, `ws`, `wss`, `ftp`, `file`). The host of any
 * other scheme is an identifier (`orders://ORD-1`) and keeps its case.
 * Nothing else is decoded, so `%20` and a raw space stay two spellings; the
 * access policy decides on the decoded form as well (see docs/guardrails.md).
 *
 * What is refused: lone surrogates, raw control characters (U+0000 to U+001F,
 * U+007F), a raw backslash, an invalid escape (`%` not followed by two hex
 * digits), an encoded NUL (`%00`), an encoded `/` or `\` in the authority or
 * path (a template variable would decode it into a separator), a dot segment
 * spelt with `%2E`, and escapes whose bytes are not UTF-8.
 *
 * A URI already canonical is returned as is, without a copy.
 *
 * @param uri The URI as the client sent it, or as a server registers it.
 * @param template Whether `uri` is an RFC 6570 template: its `{…}`
 *   expressions are kept verbatim and only the literal text is normalised.
 * @returns The canonical URI, or a {@linkcode UriRefusal}.
 *
 * @example A percent-encoded letter and a dot segment
 * ```ts
 * import { canonicalUri } from "./canonical_uri.ts";
 * console.assert(canonicalUri("FILE:///data/x/../%73ecret.txt") === "file:///data/secret.txt");
 * console.assert(canonicalUri("orders://ORD-1") === "orders://ORD-1");
 * console.assert(typeof canonicalUri("file:///data/a%2F..%2Fsecret") !== "string");
 * ```
 */
export function canonicalUri(uri: string, template = false): string | UriRefusal {
  if (!uri.isWellFormed()) return NOT_WELL_FORMED;
  if (!template) return canonicalPlain(uri);
  if (uri.includes(HOLE)) return PLACEHOLDER;
  const expressions = uri.match(EXPRESSION);
  if (expressions === null) return canonicalPlain(uri);
  const canonical = canonicalPlain(uri.replace(EXPRESSION, HOLE));
  if (typeof canonical !== "string") return canonical;
  if (canonical.split(HOLE).length !== expressions.length + 1) return DOTTED_EXPRESSION;
  let next = 0;
  const restored = canonical.replace(/\uE000/g, () => expressions[next++] ?? "");
  return restored === uri ? uri : restored;
}

/**
 * The form the access policy decides on besides the canonical one: every
 * percent-escape decoded once, as a template variable's value is. Only
 * called on a canonical URI, whose escapes are known to be valid UTF-8.
 *
 * @param canonical A URI {@linkcode canonicalUri} returned.
 * @returns The URI with its escapes decoded, or `canonical` itself if it has none.
 */
export function decodedUri(canonical: string): string {
  if (!canonical.includes("%")) return canonical;
  try {
    return decodeURIComponent(canonical);
  } catch {
    // Unreachable for a canonical URI; deciding on it unchanged is the safe fallback.
    return canonical;
  }
}

/**
 * A canonical URI with its host lower-cased whatever the scheme: RFC 3986
 * calls every host case-insensitive, so a handler may treat `notes://INTERNAL`
 * as `notes://internal`, and the access policy decides on this form too
 * (against globs folded the same way). Only for decisions: the handler keeps
 * the case of a custom scheme's host, which is often an identifier.
 *
 * @param canonical A URI (or URI glob) {@linkcode canonicalUri} returned.
 * @returns The URI with its authority's letters outside escapes in lower case.
 */
export function foldedHost(canonical: string): string {
  const start = canonical.indexOf("://");
  // Only an authority right after the scheme: a later `://` (in a path or query) is no host.
  if (
    start === -1 || SCHEME.exec(canonical)?.[0].length !== start + 1 ||
    !upperInAuthority(canonical, start + 1)
  ) return canonical;
  const end = firstOf(canonical, "/?#", start + 3);
  const authority = canonical.slice(start + 3, end);
  const folded = lowerOutsideEscapes(authority);
  return folded === authority
    ? canonical
    : `${canonical.slice(0, start + 3)}${folded}${canonical.slice(end)}`;
}

/** {@linkcode canonicalUri} for a URI with no template expressions. */
function canonicalPlain(uri: string): string | UriRefusal {
  for (let at = 0; at < uri.length; at++) {
    const code = uri.charCodeAt(at);
    if (code < 0x20 || code === 0x7f) return CONTROL;
    if (code === 0x5c) return BACKSLASH;
  }
  const schemeMatch = SCHEME.exec(uri);
  const scheme = schemeMatch === null ? "" : schemeMatch[0].slice(0, -1).toLowerCase();
  // The common case, `orders://ORD-1`: nothing to decode, remove or fold.
  if (
    !uri.includes("%") && !DOT_SEGMENT_IN_URI.test(uri) && uri.startsWith(scheme) &&
    (!DNS_SCHEMES.has(scheme) || !upperInAuthority(uri, scheme.length + 1))
  ) return uri;
  let rest = schemeMatch === null ? uri : uri.slice(scheme.length + 1);
  let authority: string | undefined;
  if (rest.startsWith("//")) {
    const end = firstOf(rest, "/?#", 2);
    authority = rest.slice(2, end);
    rest = rest.slice(end);
  }
  const pathEnd = firstOf(rest, "?#", 0);
  const tail = normaliseEscapes(rest.slice(pathEnd), false);
  if (typeof tail !== "string") return tail;
  const path = canonicalPath(rest.slice(0, pathEnd));
  if (typeof path !== "string") return path;
  let host = "";
  if (authority !== undefined) {
    const normalised = normaliseEscapes(authority, true);
    if (typeof normalised !== "string") return normalised;
    host = `//${DNS_SCHEMES.has(scheme) ? lowerOutsideEscapes(normalised) : normalised}`;
  }
  const canonical = `${schemeMatch === null ? "" : `${scheme}:`}${host}${path}${tail}`;
  if (canonical.includes("%") && !isUtf8(canonical)) return NOT_UTF8;
  return canonical === uri ? uri : canonical;
}

/** The path with its escapes normalised and its dot segments removed. */
function canonicalPath(raw: string): string | UriRefusal {
  const path = normaliseEscapes(raw, true);
  if (typeof path !== "string") return path;
  if (!DOT_SEGMENT.test(path)) return path;
  // A dot segment spelt with `%2E` was hidden on purpose: refused, not resolved.
  for (const segment of raw.split("/")) {
    if (!segment.includes("%")) continue;
    const decoded = normaliseEscapes(segment, true);
    if (decoded === "." || decoded === "..") return ENCODED_DOT;
  }
  return removeDotSegments(path);
}

/**
 * Decodes escapes of unreserved characters and upper-cases the hex of the
 * rest; `separators` refuses an encoded `/` or `\` (the authority and path).
 */
function normaliseEscapes(text: string, separators: boolean): string | UriRefusal {
  let at = text.indexOf("%");
  if (at === -1) return text;
  let out = "";
  let from = 0;
  for (; at !== -1; at = text.indexOf("%", at + 3)) {
    const high = hexValue(text.charCodeAt(at + 1));
    const low = hexValue(text.charCodeAt(at + 2));
    if (high < 0 || low < 0) return BAD_ESCAPE;
    const byte = high * 16 + low;
    if (byte === 0) return NUL;
    if (separators && (byte === 0x2f || byte === 0x5c)) return ENCODED_SEPARATOR;
    out += text.slice(from, at);
    out += isUnreserved(byte)
      ? String.fromCharCode(byte)
      : `%${text.slice(at + 1, at + 3).toUpperCase()}`;
    from = at + 3;
  }
  return out + text.slice(from);
}

/** RFC 3986 §5.2.4, over a path whose escapes are already normalised. */
function removeDotSegments(path: string): string {
  const absolute = path.startsWith("/");
  const segments = (absolute ? path.slice(1) : path).split("/");
  const kept: string[] = [];
  for (const [index, segment] of segments.entries()) {
    const last = index === segments.length - 1;
    if (segment === "..") kept.pop();
    if (segment === "." || segment === "..") {
      // A final dot segment leaves the directory it names: `/a/b/..` is `/a/`.
      if (last) kept.push("");
      continue;
    }
    kept.push(segment);
  }
  return `${absolute ? "/" : ""}${kept.join("/")}`;
}

/** Lower-cases a DNS host, leaving the hex of its escapes in upper case. */
function lowerOutsideEscapes(text: string): string {
  if (!text.includes("%")) return text.toLowerCase();
  return text.replace(/(%[0-9A-F]{2})|[^%]+/g, (part, escape) => escape ?? part.toLowerCase());
}

/** Whether the authority after `//` at `at` has an upper-case letter; no copy is made. */
function upperInAuthority(uri: string, at: number): boolean {
  if (!uri.startsWith("//", at)) return false;
  for (let index = at + 2; index < uri.length; index++) {
    const code = uri.charCodeAt(index);
    if (code === 0x2f || code === 0x3f || code === 0x23) return false;
    if (code >= 0x41 && code <= 0x5a) return true;
  }
  return false;
}

/** The index of the first of `chars` in `text` at or after `from`, or its length. */
function firstOf(text: string, chars: string, from: number): number {
  for (let at = from; at < text.length; at++) {
    if (chars.includes(text.charAt(at))) return at;
  }
  return text.length;
}

function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code >= 0x41 && code <= 0x46) return code - 0x37;
  if (code >= 0x61 && code <= 0x66) return code - 0x57;
  return -1;
}

function isUnreserved(byte: number): boolean {
  return (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a) ||
    (byte >= 0x30 && byte <= 0x39) || byte === 0x2d || byte === 0x2e || byte === 0x5f ||
    byte === 0x7e;
}

/** Whether the escapes decode to UTF-8 (`decodeURI` throws on bytes that are not). */
function isUtf8(text: string): boolean {
  try {
    decodeURI(text);
    return true;
  } catch (error) {
    if (error instanceof URIError) return false;
    throw error;
  }
}
