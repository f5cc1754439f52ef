/**
 * Helpers on JSON values that the compiled checks call: equality, string
 * length in code points, `multipleOf`, and JSON paths for messages.
 *
 * A property whose value is `undefined` counts as absent everywhere, as it
 * does in `JSON.stringify`.
 *
 * @module
 */

/** A JSON object (not an array, not null). */
export type JsonObject = Record<string, unknown>;

/** Whether `value` is a JSON object: not null and not an array. */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether `object` has `key` as an own property that is not `undefined`. */
export function hasProperty(object: JsonObject, key: string): boolean {
  return Object.hasOwn(object, key) && object[key] !== undefined;
}

/** JSON equality: numbers by value, arrays in order, objects by key set. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      if (!jsonEqual(a[i], b[i])) return false;
    }
    return true;
  }
  if (!isJsonObject(a) || !isJsonObject(b)) return false;
  let unmatched = 0;
  for (const key in a) {
    const value = a[key];
    if (value === undefined) continue;
    if (!Object.hasOwn(b, key) || !jsonEqual(value, b[key])) return false;
    unmatched++;
  }
  for (const key in b) {
    if (b[key] !== undefined) unmatched--;
  }
  return unmatched === 0;
}

/** The indexes of the first two equal items, or `undefined` when all differ. */
export function findDuplicate(items: readonly unknown[]): [number, number] | undefined {
  for (let j = 1; j < items.length; j++) {
    const item = items[j];
    for (let i = 0; i < j; i++) {
      if (jsonEqual(items[i], item)) return [i, j];
    }
  }
  return undefined;
}

/** The length of `text` in Unicode code points (a surrogate pair counts once). */
export function codePointLength(text: string): number {
  let length = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        length--;
        i++;
      }
    }
  }
  return length;
}

/**
 * Whether `value` is an integer multiple of `divisor`. Decimal divisors are
 * inexact in binary (0.0075 / 0.0001 is 74.99999999999999), so the quotient
 * may miss an integer by a few units in its last place.
 */
export function isMultipleOf(value: number, divisor: number): boolean {
  if (Number.isInteger(value) && Number.isInteger(divisor)) return value % divisor === 0;
  const quotient = value / divisor;
  if (!Number.isFinite(quotient)) return false;
  return Math.abs(quotient - Math.round(quotient)) <= Math.abs(quotient) * 4 * Number.EPSILON;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** The JSON path step to a property: `.name`, or `["odd key"]`. */
export function propertyStep(key: string): string {
  return IDENTIFIER.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

/** A value as short JSON for a message, cut after 60 characters. */
export function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** `count` with its noun, plural unless it is 1: "1 item", "3 items". */
export function plural(count: number, noun: string, nouns = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : nouns}`;
}
