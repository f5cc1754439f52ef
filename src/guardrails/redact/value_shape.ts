/**
 * Whether a value looks like a secret: placeholders and documentation
 * samples (`${API_KEY}`, `<YOUR_KEY>`, `xxxx…`, `…EXAMPLE`), plain words,
 * code (`process.env.X`, `getToken(`), and how random a value looks.
 *
 * A strong key's quoted value is masked unless it is a placeholder; an
 * unquoted one must not read as a word or as code. A weak key's value must
 * look random.
 *
 * @module
 */

import type { KeyStrength } from "./key_names.ts";

// References and templates (`${X}`, `$X`, `$1`, `%X%`, `%s`, `{0}`, `@X@`, `{{ x }}`, `<x>`,
// `<%= x %>`), YAML tags and aliases (`!Ref X`, `*anchor`), masks already applied, samples cut
// short (`eyJhbGci...`), paths under a system folder, and words samples are made of.
const PLACEHOLDER = new RegExp(
  String.raw`^(?:\$\{[^}]*\}|\$\{\{|\$\(|\$[A-Za-z_]|\$\d+$|%[^%\s]+%$|%[+\-# 0]?[A-Za-z]$|` +
    String
      .raw`\{\d{0,2}\}$|@[A-Za-z_]\w*@$|\{\{|<[^>]*>$|<%|\[[^\]]*\]$|\*{3,}|x{3,}$|X{3,}$|\.{3}|` +
    String
      .raw`![A-Za-z]|[&*][A-Za-z]|my[-_]|'?\x60|(?:~|\.{1,2})?\/(?:bin|etc|home|opt|tmp|usr|var|run|srv|mnt|` +
    String
      .raw`Users|Library|private|proc|dev|sys|data|app|workspace)(?:\/|$)|\/\^)|(?:\.{3}|\u2026)$|` +
    String.raw`\$\{[A-Za-z_][\w.]*\}|deadbeef|cafebabe|blahblah|foobar|` +
    String.raw`example|placeholder|your[_-]?|changeme|change[_-]me|redacted|dummy|sample|` +
    String.raw`insert[_-]|replace[_-]?me|xxxx|XXXX|\*\*\*`,
  "iu",
);
/** Words a value that only names a secret holds (`my-secret`, `invalid_token`, `apiKey`). */
const SELF_NAMED = /secret|passw|^[a-z]*pass$|token|api[-_]?key|credential/iu;
/**
 * Only letters, joined by `-` or `_`: a name. A digit or a symbol makes a
 * real password of it (`Password123!`, `passw0rd`), which must stay masked.
 */
const WORDS_ONLY = /^[A-Za-z]+(?:[-_][A-Za-z]+)*$/u;
const LITERALS: ReadonlySet<string> = new Set([
  "null",
  "nil",
  "none",
  "undefined",
  "true",
  "false",
  "string",
  "str",
  "int",
  "number",
  "bool",
  "boolean",
  "object",
  "required",
  "optional",
  "secret",
  "password",
  "token",
  "empty",
  "unset",
  "todo",
  "tbd",
  "n/a",
  "na",
  "hidden",
  "masked",
  "omitted",
  "env",
  "process",
  "anonymous",
  "anoncvs",
  "guest",
]);

/**
 * Whether a value is a placeholder or documentation sample rather than a
 * secret: `${API_KEY}`, `$TOKEN`, `<YOUR_KEY>`, `xxxx…`, `****`, anything
 * saying example/your/changeme/redacted, literal type names and a run of few
 * distinct characters.
 *
 * @example
 * ```ts ignore
 * console.assert(isPlaceholder("${API_KEY}") && !isPlaceholder("hunter2"));
 * ```
 */
export function isPlaceholder(value: string): boolean {
  if (value.length === 0 || LITERALS.has(value.toLowerCase())) return true;
  if (PLACEHOLDER.test(value)) return true;
  if (SELF_NAMED.test(value) && WORDS_ONLY.test(value) && !looksRandom(value)) return true;
  return fewDistinct(value) || sequential(value);
}

/** A version or a version range (`^2.4.0`, `>=1.2`, `v3.0.1-rc.1`): never a secret. */
export function isVersion(value: string): boolean {
  return /^(?:[\^~]|[<>]=?|=)?v?\d{1,6}(?:\.\d{1,6}){1,3}(?:[-+][\w.-]*)?$/u.test(value);
}

/**
 * Whether a value reads as a name in code: an identifier, or identifiers joined by `.`, whose
 * pieces (split at `_`, `$`, `.` and case changes) are all words or acronyms
 * (`StoredOAuthTokens`, `require_public.assertSecureTokenEndpoint`, `UnixGroupIDs`). Random key
 * material always has a piece no word looks like.
 */
export function isIdentifier(value: string): boolean {
  if (value.length < 2 || value.length > 120) return false;
  if (!/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/u.test(value)) return false;
  // A number inside a word (`dO9uZX3grja`) is key material; names put them at a word's end.
  if (/\d[a-z]/u.test(value)) return false;
  const pieces = value.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+/gu) ?? [];
  let letters = 0;
  let wordy = 0;
  let numbers = 0;
  let words = 0;
  let long = false;
  for (const piece of pieces) {
    const code = piece.charCodeAt(0);
    if (code >= 48 && code <= 57) {
      // A short number (`v2`, `base64`, `RFC3161`) reads as part of a name; many do not.
      if (piece.length > 4 || ++numbers > 2) return false;
      continue;
    }
    letters += piece.length;
    if (wordLike(piece)) {
      wordy += piece.length;
      if (piece.length >= 4) long = true;
      if (piece.length >= 2) words++;
    }
  }
  // A name of several pieces holds at least two words (`getToken`, `messageId`, `UnixGroupIDs`).
  if (pieces.length > 1 && words < 2) return false;
  // Names hold a short piece that is no word now and then (`Jwt`, `Ssh`, `kEnumerable`).
  return letters >= 2 && (wordy === letters || long && wordy >= letters * 0.7);
}

/** A word or an acronym: up to five capitals, or letters with a vowel and no long consonant run. */
function wordLike(piece: string): boolean {
  if (/^[A-Z]{1,5}$/u.test(piece)) return true;
  if (piece.length === 1) return /^[A-Za-z]$/u.test(piece) && /[aeiouAEIOU]/u.test(piece);
  return /[aeiouy]/iu.test(piece) && !/[^aeiouy\d]{5}/iu.test(piece);
}

/** One character repeated (`000000`), or at most 3 distinct in 8 or more (`0000-0000`). */
export function fewDistinct(value: string): boolean {
  if (value.length >= 4 && value.length < 8) return value === value[0]?.repeat(value.length);
  if (value.length < 8) return false;
  const seen = new Set<number>();
  for (let index = 0; index < value.length && seen.size <= 3; index++) {
    seen.add(value.charCodeAt(index));
  }
  return seen.size <= 3;
}

/** Mostly an ascending run such as `1234567890abcdef`: a made-up sample. */
function sequential(value: string): boolean {
  if (value.length < 10) return false;
  let steps = 0;
  for (let index = 1; index < value.length; index++) {
    if (value.charCodeAt(index) === value.charCodeAt(index - 1) + 1) steps++;
  }
  return steps >= value.length * 0.5;
}

/** A plain word: `Opening`, `required`, `READ-ONLY`, `not_set`. */
function isWord(value: string): boolean {
  return /^(?:[A-Z]?[a-z]+|[A-Z]+)(?:[-_ ](?:[A-Z]?[a-z]+|[A-Z]+))*[.,!?]?$/u.test(value);
}

/** Code rather than data: `process.env.X`, `self.token`, `getToken`, `req.body`, `readPassword`. */
export function isCode(value: string, next: number): boolean {
  if (next === 40 /* ( */ || next === 91 /* [ */ || next === 60 /* < */) return true;
  if (/^\??\.[A-Za-z_$][\w$]*$/u.test(value)) return true;
  if (isIdentifier(value) && /[a-z][A-Z]|[A-Za-z]\.[A-Za-z_$]|^[A-Z][a-z]+[A-Z]/u.test(value)) {
    return true;
  }
  return /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/u.test(value) &&
    !value.split(".").some(looksRandom);
}

const HEX_OR_UUID =
  /^(?:[0-9a-fA-F]{32,}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/u;

/** Whether a value is 32 or more hex digits or a UUID: a digest or an id as often as a key. */
export function isHexOrUuid(value: string): boolean {
  return HEX_OR_UUID.test(value);
}

/**
 * Whether a value looks like random key material: 32 or more hex digits or a
 * UUID, or a piece of 8 or more characters (between `._-/~+` separators)
 * that switches often between lower case, upper case and digits. Names
 * built from words and numbers (`user_42_profile_v3`, `gpt-4o-2024-08-06`,
 * `photo_001.jpg`) switch rarely and are not random.
 */
export function looksRandom(value: string): boolean {
  // Key material has no spaces; prose does.
  if (value.length < 8 || /\s/u.test(value)) return false;
  if (HEX_OR_UUID.test(value)) return true;
  if (!switchyPiece(value, 0, value.length) || entropy(value) < 3) return false;
  // Some piece between separators must be random, not a name (`TooTallNate/socksv5`).
  for (const piece of value.match(/[A-Za-z0-9]{8,}/gu) ?? []) {
    if (switchyPiece(piece, 0, piece.length) && !isIdentifier(piece)) return true;
  }
  return false;
}

/**
 * Whether `codes[start, end)` (a string, or the scanner's code-unit bytes)
 * has a piece that switches as often as key material does. Below 32
 * characters, `looksRandom` needs one: the scanner asks this first, on the
 * bytes, before slicing anything.
 */
export function switchyPiece(codes: string | Uint8Array, start: number, end: number): boolean {
  let piece = 0;
  let switches = 0;
  let last = 0;
  for (let index = start; index <= end; index++) {
    const code = index === end
      ? 46
      : typeof codes === "string"
      ? codes.charCodeAt(index)
      : codes[index] ?? 0;
    const kind = code >= 97 && code <= 122
      ? 1
      : code >= 65 && code <= 90
      ? 2
      : code >= 48 && code <= 57
      ? 3
      : 0;
    if (kind === 0) {
      if (code === 61 && index > start) continue; // base64 padding and `=` inside tokens
      if (piece >= 8 && switches >= Math.max(3, piece / 8)) return true;
      piece = 0;
      switches = 0;
      last = 0;
      continue;
    }
    if (last !== 0 && kind !== last) switches++;
    last = kind;
    piece++;
  }
  return false;
}

const COUNTS = new Int32Array(128);

/** Shannon entropy in bits per character. */
export function entropy(value: string): number {
  const length = value.length;
  let other: Map<number, number> | undefined;
  for (let index = 0; index < length; index++) {
    const code = value.charCodeAt(index);
    if (code < 128) COUNTS[code] = (COUNTS[code] ?? 0) + 1;
    else (other ??= new Map()).set(code, (other.get(code) ?? 0) + 1);
  }
  let bits = 0;
  for (let index = 0; index < length; index++) {
    const code = value.charCodeAt(index);
    if (code >= 128) continue;
    const count = COUNTS[code] ?? 0;
    if (count === 0) continue;
    const p = count / length;
    bits -= p * Math.log2(p);
    COUNTS[code] = 0;
  }
  for (const count of other?.values() ?? []) {
    const p = count / length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/**
 * Whether the value next to a key of this strength is to be masked.
 * `quoted` says whether the value was quoted (JSON, a quoted .env or YAML
 * value), `next` is the character code after an unquoted value (a `(` means
 * a call: code, not data).
 */
export function valueIsSecret(
  value: string,
  strength: KeyStrength,
  quoted: boolean,
  next: number,
  data = false,
): boolean {
  // Cheap checks first: most values next to a key are words, code or short.
  if (strength === "none") return false;
  if (strength === "weak") {
    return looksRandom(value) && !isCode(value, next) && !isPlaceholder(value);
  }
  // A value in data is what the key says it is; in text a quoted one may still be code.
  if (data) return !isPlaceholder(value) && !isVersion(value);
  // `accesskey="n"`, `"^2.4.0"`: too short or a version to be a credential.
  if (value.length < 4 || isVersion(value)) return false;
  if (quoted) {
    // `'include'`, `"Strict"`: a short lower-case word is an option, not a password; a value
    // that starts with punctuation is the rest of a line, not a value (`cookie:', error);`).
    if (/^[a-z]{1,10}$|^[A-Z][a-z]{1,9}$/u.test(value) || /^[\s,;)\]}]/u.test(value)) return false;
    return !isPlaceholder(value) && !isCode(value, next) && !encodesPlaceholder(value);
  }
  // `asp-`, `ruby_`: a short fragment that ends where a name would go on is no token.
  if (value.length <= 8 && /[-_]$/u.test(value)) return false;
  return !isWord(value) && !isCode(value, next) && !isPlaceholder(value) &&
    !encodesPlaceholder(value);
}

/**
 * Base64 of a placeholder (`bm90IG15IHJlYWwgcGFzc3dvcmQ=` is "not my real password"): a
 * documentation sample, encoded. Only values of base64's alphabet are decoded.
 */
export function encodesPlaceholder(value: string): boolean {
  if (value.length < 12 || value.length > 512 || !/^[A-Za-z0-9+/]+={0,2}$/u.test(value)) {
    return false;
  }
  const padded = value.length % 4 === 0 ? value : value + "=".repeat(4 - value.length % 4);
  // More than two `=` at the end is what `atob` refuses: refused here, it throws nothing (an
  // exception costs more than the rest of this check).
  if (padded.endsWith("===")) return false;
  let decoded: string;
  try {
    decoded = atob(padded);
  } catch {
    return false;
  }
  // Printable text only: random bytes decode to control and high characters.
  if (!/^[\x20-\x7e]+$/u.test(decoded)) return false;
  const password = decoded.slice(decoded.indexOf(":") + 1);
  return isPlaceholder(decoded) || / /u.test(password);
}
