/**
 * The wording of every violation, in one place so that both backends
 * (closures and generated code) report the same text. Messages are short
 * enough for a model to act on.
 *
 * @module
 */

import type { JsonTypeName } from "./types.ts";
import type { BoundKeyword } from "./_tree.ts";
import { plural, preview } from "./_values.ts";

/** A failure no keyword reported (a report that disagreed with its test). */
export const SCHEMA_MESSAGE = "must match the schema";

/** `type`. */
export function typeMessage(types: readonly JsonTypeName[]): string {
  return `must be ${types.join(" or ")}`;
}

/** `enum`: the first ten members, then how many more. */
export function enumMessage(members: readonly unknown[]): string {
  const shown = members.slice(0, 10).map(preview).join(", ");
  const more = members.length > 10 ? `, ... (${members.length - 10} more)` : "";
  return `must be one of ${shown}${more}`;
}

/** `const`. */
export function constMessage(expected: unknown): string {
  return `must be equal to ${preview(expected)}`;
}

/** `anyOf`. */
export const ANY_OF_MESSAGE = "must match at least one schema in anyOf";

/** `oneOf`, with how many subschemas matched. */
export function oneOfMessage(matches: number): string {
  return `must match exactly one schema in oneOf (matches ${matches === 0 ? "none" : matches})`;
}

/** `not`. */
export const NOT_MESSAGE = "must NOT match the schema in not";

/** The `false` schema. */
export const FALSE_MESSAGE = "is not allowed";

const BOUND_OPERATORS: Readonly<Record<BoundKeyword, string>> = {
  minimum: ">=",
  maximum: "<=",
  exclusiveMinimum: ">",
  exclusiveMaximum: "<",
};

/** `minimum`, `maximum`, `exclusiveMinimum` and `exclusiveMaximum`. */
export function boundMessage(keyword: BoundKeyword, limit: number): string {
  return `must be ${BOUND_OPERATORS[keyword]} ${limit}`;
}

/** `multipleOf`. */
export function multipleOfMessage(divisor: number): string {
  return `must be a multiple of ${divisor}`;
}

/** `minLength`, `minItems` and `minProperties`: "must NOT have fewer than 3 items". */
export function fewerMessage(limit: number, noun: string, nouns?: string): string {
  return `must NOT have fewer than ${plural(limit, noun, nouns)}`;
}

/** `maxLength`, `maxItems`, `maxProperties` and `items: false`. */
export function moreMessage(limit: number, noun: string, nouns?: string): string {
  return `must NOT have more than ${plural(limit, noun, nouns)}`;
}

/** `pattern`. */
export function patternMessage(source: string): string {
  return `must match pattern "${source}"`;
}

/** `format`, when asserted. */
export function formatMessage(name: string): string {
  return `must match format "${name}"`;
}

/** `contains` (too few matches). */
export function containsMessage(min: number): string {
  return `must contain at least ${plural(min, "item")} matching contains`;
}

/** `maxContains`. */
export function maxContainsMessage(max: number): string {
  return `must contain at most ${plural(max, "item")} matching contains`;
}

/** `uniqueItems`, with the first two equal items. */
export function duplicateMessage(first: number, second: number): string {
  return `must NOT have duplicate items (items ${first} and ${second} are equal)`;
}

/** `propertyNames`. */
export function propertyNameMessage(key: string): string {
  return `property name '${key}' is invalid`;
}

/** `additionalProperties: false`. */
export function additionalMessage(key: string): string {
  return `must NOT have additional property '${key}'`;
}

/** `unevaluatedProperties: false`. */
export function unevaluatedMessage(key: string): string {
  return `must NOT have unevaluated property '${key}'`;
}

/** `unevaluatedItems: false`, when evaluated items depend on the value. */
export function unevaluatedItemMessage(index: number): string {
  return `must NOT have unevaluated item ${index}`;
}

/** `required`. */
export function requiredMessage(key: string): string {
  return `must have required property '${key}'`;
}

/** `dependentRequired`. */
export function dependentRequiredMessage(key: string, when: string): string {
  return `must have property '${key}' when property '${when}' is present`;
}
