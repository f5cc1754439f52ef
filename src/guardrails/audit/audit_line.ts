/**
 * An audit entry as one bounded line of JSON. A line never exceeds its byte
 * bound: what does not fit is cut, the cut is marked (`truncated`, with the
 * size and SHA-256 digest of the whole entry as it would have been written),
 * and the line stays valid JSON with the key fields whole. U+2028 and
 * U+2029, which `JSON.stringify` leaves raw and some JSON-in-JavaScript
 * readers take for line ends, are escaped.
 *
 * @module
 */

import { createHash } from "node:crypto";
import type { AuditEntry } from "./audit.ts";

/** The default bound of one audit line, in bytes of UTF-8, line feed excluded. */
export const DEFAULT_MAX_LINE_BYTES = 65_536;
/** The smallest bound accepted: room for the key fields, each cut to {@linkcode FIELD_BYTES}. */
export const MIN_MAX_LINE_BYTES = 16_384;
/**
 * The largest bound accepted: a restart reads back at most 16 MiB of a log
 * to find its last line (log_tail.ts), so a line must fit well inside that.
 */
export const MAX_MAX_LINE_BYTES = 4 * 1024 * 1024;
/** Bytes kept free in every line for the chain fields (`chain`, `prev`, `hash`). */
export const CHAIN_RESERVE_BYTES = 256;
/** The most a short field (name, principal, method, client, request id) keeps once cut. */
const FIELD_BYTES = 1_024;
const CUT_MARK = "…";
/** The mark's UTF-8 length (U+2026). */
const CUT_MARK_BYTES = 3;

const SEPARATORS = /[\u2028\u2029]/g;

function escapeSeparator(char: string): string {
  return char === "\u2028" ? "\\u2028" : "\\u2029";
}

/** `json` with U+2028 and U+2029 escaped (only inside strings can JSON text hold them). */
export function escapeSeparators(json: string): string {
  // One scan in the common case; the replacement allocates only when there is one.
  return json.search(SEPARATORS) === -1 ? json : json.replace(SEPARATORS, escapeSeparator);
}

const NON_ASCII = /[\u0080-\uffff]/;

/** The UTF-8 length of `text`, without encoding it (a lone surrogate counts as U+FFFD). */
export function utf8Length(text: string): number {
  // Most lines are ASCII, one byte a unit: one native search says so (a counting loop reads
  // each unit in script, several times slower).
  if (!NON_ASCII.test(text)) return text.length;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit < 0xdc00 && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit < 0xe000;
}

/** Whether `text` (JSON) fits `max` bytes; exact counting only when it might not. */
function fits(text: string, max: number): boolean {
  // A UTF-16 code unit is at least 1 byte of UTF-8 and at most 3: counting is needed only
  // between the two bounds (a megabyte of arguments is refused without reading it).
  if (text.length > max) return false;
  return text.length * 3 <= max || utf8Length(text) <= max;
}

/**
 * The JSON string literal of the longest prefix of `text` (marked `…` when
 * cut) that fits `max` bytes, never splitting a surrogate pair.
 */
export function clipToJson(text: string, max: number): { json: string; cut: boolean } {
  // Its literal has the text's units and two quotes at least: too long a text is not serialised whole.
  if (text.length + 2 <= max) {
    const whole = escapeSeparators(JSON.stringify(text));
    if (fits(whole, max)) return { json: whole, cut: false };
  }
  let keep = Math.min(text.length, max);
  for (;;) {
    let end = keep;
    const last = text.charCodeAt(end - 1);
    if (last >= 0xd800 && last < 0xdc00) end--;
    // The mark goes in after the count: its one non-ASCII character would send a whole
    // clip of ASCII through the counting loop.
    const clip = escapeSeparators(JSON.stringify(text.slice(0, end)));
    const json = `${clip.slice(0, -1)}${CUT_MARK}"`;
    const size = utf8Length(clip) + CUT_MARK_BYTES;
    if (size <= max || end === 0) return { json, cut: true };
    // Shrink in proportion, a little more, so few rounds are needed.
    keep = Math.max(0, Math.floor((keep * max) / size) - 8);
  }
}

/**
 * An entry's JSON in three parts, whole when joined: what stands before the
 * arguments' JSON, that JSON, and what follows; `args` is undefined when the
 * serialiser wrote the entry whole (`head` then). Arguments that cannot be
 * serialised (a BigInt) are replaced, not the entry lost.
 */
interface EntryParts {
  readonly head: string;
  readonly args: string | undefined;
  readonly tail: string;
}

function entryParts(entry: AuditEntry, report: (error: unknown) => void): EntryParts {
  try {
    return builtEntryParts(entry) ?? { head: JSON.stringify(entry), args: undefined, tail: "" };
  } catch (error) {
    report(error);
    const head = JSON.stringify({ ...entry, arguments: "[unserializable]" });
    return { head, args: undefined, tail: "" };
  }
}

/** What `JSON.stringify` escapes in a string (lone surrogates included), and the line separators. */
// deno-lint-ignore no-control-regex
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff\u2028\u2029]/;

/**
 * A string's JSON literal with the line separators escaped: most fields of
 * an entry need no escaping, and no serialiser call.
 */
function stringJson(text: string): string {
  return ESCAPED.test(text) ? escapeSeparators(JSON.stringify(text)) : `"${text}"`;
}

/** Whether the serialiser would ask `value` for its JSON (a `toJSON`, own or inherited). */
function hasToJson(value: object): boolean {
  return typeof (value as { toJSON?: unknown }).toJSON === "function";
}

function isFiniteOrNull(value: unknown): value is number | null {
  return value === null || Number.isFinite(value);
}

/**
 * `JSON.stringify(entry)` in parts for an entry as `nextAuditEntry` builds it
 * (every entry the audit log writes), assembled field by field: only the
 * arguments go through the serialiser, which costs more than the rest of the
 * line (checked equal in audit_line_test.ts), and a large entry is never
 * joined into one string just to be measured and cut. Undefined for an
 * entry of any other shape (another order, extra fields, unexpected types),
 * which the serialiser writes.
 */
function builtEntryParts(entry: AuditEntry): EntryParts | undefined {
  let index = 0;
  for (const key in entry) {
    if (key !== (ENTRY_KEYS[index++] ?? "redaction")) return undefined;
  }
  const { seq, time, principal, client, method, name, outcome, redaction } = entry;
  const { error_code, duration_ms, request_id } = entry;
  const clientPlain = client === null ||
    (typeof client.name === "string" && typeof client.version === "string" &&
      Object.keys(client).length === 2 && !hasToJson(client));
  if (
    index < ENTRY_KEYS.length || !clientPlain || hasToJson(entry) || !Number.isFinite(seq) ||
    typeof time !== "string" || (principal !== null && typeof principal !== "string") ||
    typeof method !== "string" || (name !== null && typeof name !== "string") ||
    typeof outcome !== "string" || !isFiniteOrNull(error_code) || !Number.isFinite(duration_ms) ||
    (typeof request_id !== "string" && !isFiniteOrNull(request_id)) ||
    (redaction !== undefined && !Number.isFinite(redaction.split_secrets)) ||
    (index > ENTRY_KEYS.length &&
      (redaction === undefined || Object.keys(redaction).length !== 1 || hasToJson(redaction)))
  ) return undefined;
  const args: string | undefined = JSON.stringify(entry.arguments);
  const head = `{"seq":${seq},"time":${stringJson(time)},"principal":${
    principal === null ? "null" : stringJson(principal)
  },"client":${
    client === null
      ? "null"
      : `{"name":${stringJson(client.name)},"version":${stringJson(client.version)}}`
  },"method":${stringJson(method)},"name":${name === null ? "null" : stringJson(name)}`;
  const tail = `,"outcome":${
    stringJson(outcome)
  },"error_code":${error_code},"duration_ms":${duration_ms},"request_id":${
    typeof request_id === "string" ? stringJson(request_id) : request_id
  }${redaction === undefined ? "" : `,"redaction":{"split_secrets":${redaction.split_secrets}}`}}`;
  // An undefined argument (or one whose toJSON says so) leaves the field out, as the serialiser does.
  if (args === undefined) return { head: `${head}${tail}`, args: undefined, tail: "" };
  return { head: `${head},"arguments":`, args, tail };
}

/**
 * One entry as a line of JSON (no line feed) of at most `maxBytes - CHAIN_RESERVE_BYTES`
 * bytes, so that the chain fields still fit within `maxBytes`.
 *
 * @param entry The entry, already masked.
 * @param maxBytes The line bound, at least {@linkcode MIN_MAX_LINE_BYTES}.
 * @param report Where a serialisation failure goes.
 */
export function boundedEntryJson(
  entry: AuditEntry,
  maxBytes: number,
  report: (error: unknown) => void,
): string {
  const parts = entryParts(entry, report);
  // Separators never span parts: each part is escaped on its own, and a built entry's fields
  // around the arguments were escaped as they were written.
  const built = parts.args !== undefined;
  const head = built ? parts.head : escapeSeparators(parts.head);
  const args = escapeSeparators(parts.args ?? "");
  const tail = built ? parts.tail : escapeSeparators(parts.tail);
  const budget = maxBytes - CHAIN_RESERVE_BYTES;
  const units = head.length + args.length + tail.length;
  // A UTF-16 code unit is 1 to 3 bytes of UTF-8: counted only between the two bounds.
  if (
    units <= budget &&
    (units * 3 <= budget || utf8Length(head) + utf8Length(args) + utf8Length(tail) <= budget)
  ) return `${head}${args}${tail}`;
  return cutEntry(entry, [head, args, tail], budget, parts.args);
}

/** The short fields of an entry, in line order: cut only if the arguments alone cannot make room. */
const SHORT_FIELDS = ["principal", "client", "method", "name", "request_id"] as const;

/**
 * The entry cut to `budget` bytes: the arguments first, then overlong short
 * fields. `whole` is the entry's line in parts, and `args` the arguments'
 * JSON when it is at hand.
 */
function cutEntry(
  entry: AuditEntry,
  whole: readonly string[],
  budget: number,
  args = argumentsJson(entry.arguments),
): string {
  // Counted and digested part by part: the whole line of a megabyte of arguments is never built.
  const digest = createHash("sha256");
  let bytes = 0;
  for (const part of whole) {
    bytes += utf8Length(part);
    digest.update(part, "utf8");
  }
  const marker = { bytes, sha256: digest.digest("hex"), fields: ["arguments"] };
  // The arguments' place is held by a text no other field can hold (whatever order an entry
  // assembled by hand has), and the clipped arguments take its place.
  const hole = JSON.stringify(HOLE);
  const shell: Record<string, unknown> = { ...entry, arguments: HOLE, truncated: marker };
  let skeleton = escapeSeparators(JSON.stringify(shell));
  if (!fits(skeleton, budget)) {
    for (const field of SHORT_FIELDS) {
      if (cutShortField(shell, field)) marker.fields.push(field);
    }
    skeleton = escapeSeparators(JSON.stringify(shell));
  }
  // The arguments become a string: the start of their JSON text, as much as fits.
  const room = budget - utf8Length(skeleton) + hole.length;
  const { json } = clipToJson(args, Math.max(room, 2));
  const at = skeleton.indexOf(`"arguments":${hole}`) + '"arguments":'.length;
  return `${skeleton.slice(0, at)}${json}${skeleton.slice(at + hole.length)}`;
}

/** Cuts one short field of `shell` to {@linkcode FIELD_BYTES}; whether anything was cut. */
function cutShortField(
  shell: Record<string, unknown>,
  field: typeof SHORT_FIELDS[number],
): boolean {
  const value = shell[field];
  if (field === "client" && value !== null && typeof value === "object") {
    const name = cutString("name" in value ? value.name : null);
    const version = cutString("version" in value ? value.version : null);
    shell.client = { name: name.value, version: version.value };
    return name.cut || version.cut;
  }
  const cut = cutString(value);
  shell[field] = cut.value;
  return cut.cut;
}

/** The fields of an entry as `nextAuditEntry` builds it, in order (`redaction` may follow). */
const ENTRY_KEYS = [
  "seq",
  "time",
  "principal",
  "client",
  "method",
  "name",
  "arguments",
  "outcome",
  "error_code",
  "duration_ms",
  "request_id",
] as const;

/** Random per process, so no value in an entry holds it by chance or design. */
const HOLE = `arguments-${crypto.randomUUID()}`;

/** The arguments' JSON text, the text the cut keeps the start of. */
function argumentsJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return "[unserializable]"; // already reported when the whole entry was serialised
  }
}

function cutString(value: unknown): { value: unknown; cut: boolean } {
  if (typeof value !== "string") return { value, cut: false };
  const { json, cut } = clipToJson(value, FIELD_BYTES);
  if (!cut) return { value, cut };
  const parsed: unknown = JSON.parse(json);
  return { value: parsed, cut };
}

/**
 * Checks a configured line bound.
 *
 * @throws {RangeError} `value` is not an integer from {@linkcode MIN_MAX_LINE_BYTES} to
 * {@linkcode MAX_MAX_LINE_BYTES}.
 */
export function checkMaxLineBytes(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_LINE_BYTES;
  if (!Number.isSafeInteger(value) || value < MIN_MAX_LINE_BYTES || value > MAX_MAX_LINE_BYTES) {
    throw new RangeError(
      `Invalid audit maxLineBytes: expected an integer from ${MIN_MAX_LINE_BYTES} to ` +
        `${MAX_MAX_LINE_BYTES}, got ${value}`,
    );
  }
  return value;
}
