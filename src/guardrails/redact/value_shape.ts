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

// References and templates (`${X}`, `$X`, `%X%`, `{{ x }}`, `<x>`, `<%= x %>`), YAML tags and
// aliases (`!Ref X`, `*anchor`), masks already applied, and words samples are made of.
const PLACEHOLDER = new RegExp(
  String.raw`^(?:\$\{[^}]*\}|\$\(|\$[A-Za-z_]|%[A-Za-z_][\w]*%|\{\{|<[^>]*>$|<%|` +
    String.raw`\[[^\]]*\]$|\*{3,}|x{3,}$|X{3,}$|\.{3}|![A-Za-z]|[&*][A-Za-z])|` +
    String.raw`example|placeholder|your[_-]?|changeme|change[_-]me|redacted|dummy|sample|` +
    String.raw`insert[_-]|replace[_-]?me|xxxx|XXXX|\*\*\*`,
  "iu",
);
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
  return fewDistinct(value) || sequential(value);
}

/** At most 3 distinct characters in 8 or more: `aaaaaaaa`, `0000-0000`. */
export function fewDistinct(value: string): boolean {
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

/** Code rather than data: `process.env.X`, `self.token`, `getToken`, `req.body`. */
export function isCode(value: string, next: number): boolean {
  if (next === 40 /* ( */ || next === 91 /* [ */ || next === 60 /* < */) return true;
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
  return switchyPiece(value, 0, value.length) && entropy(value) >= 3;
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
): boolean {
  // Cheap checks first: most values next to a key are words, code or short.
  if (strength === "none") return false;
  if (strength === "weak") {
    return looksRandom(value) && !isCode(value, next) && !isPlaceholder(value);
  }
  if (quoted) return !isPlaceholder(value);
  if (value.length < 4) return false;
  return !isWord(value) && !isCode(value, next) && !isPlaceholder(value);
}
