/**
 * Checks for the keywords that apply to any value (`type`, `enum`, `const`,
 * `$ref` and the applicators) and to numbers and strings. Each builder takes
 * values the compiler has already validated.
 *
 * Inside `anyOf`, `oneOf`, `not` and `if` only whether a subschema matches
 * matters, so each reports a single violation; `allOf`, `$ref`, `then` and
 * `else` report the violations of their subschemas, which are requirements
 * the value must meet.
 *
 * @module
 */

import type { JsonTypeName } from "./types.ts";
import { type Check, leaf, type Node, type Test } from "./_checks.ts";
import {
  ANY_OF_MESSAGE,
  boundMessage,
  constMessage,
  enumMessage,
  fewerMessage,
  formatMessage,
  moreMessage,
  multipleOfMessage,
  NOT_MESSAGE,
  oneOfMessage,
  patternMessage,
  typeMessage,
} from "./_messages.ts";
import type { BoundKeyword } from "./_tree.ts";
import { codePointLength, isJsonObject, isMultipleOf, jsonEqual } from "./_values.ts";

const TYPE_TESTS: Readonly<Record<JsonTypeName, Test<unknown>>> = {
  string: (value) => typeof value === "string",
  // NaN and Infinity are not JSON numbers.
  number: (value) => typeof value === "number" && Number.isFinite(value),
  // 1.0 is an integer: JSON does not tell the two apart.
  integer: (value) => Number.isInteger(value),
  boolean: (value) => typeof value === "boolean",
  null: (value) => value === null,
  array: (value) => Array.isArray(value),
  object: isJsonObject,
};

/** `type`: one name or several, any of which must match. */
export function typeCheck(types: readonly JsonTypeName[]): Check<unknown> {
  const tests = types.map((name) => TYPE_TESTS[name]);
  const [only] = tests;
  const test: Test<unknown> = tests.length === 1 && only !== undefined ? only : (value) => {
    for (let i = 0; i < tests.length; i++) {
      if (tests[i]!(value)) return true;
    }
    return false;
  };
  return leaf("type", typeMessage(types), test);
}

/** `enum`: primitives are looked up in a set, objects and arrays compared deeply. */
export function enumCheck(members: readonly unknown[]): Check<unknown> {
  const primitives = new Set<unknown>();
  const composites: unknown[] = [];
  for (const member of members) {
    if (typeof member === "object" && member !== null) composites.push(member);
    else primitives.add(member);
  }
  return leaf("enum", enumMessage(members), (value) => {
    if (typeof value !== "object" || value === null) return primitives.has(value);
    for (let i = 0; i < composites.length; i++) {
      if (jsonEqual(composites[i], value)) return true;
    }
    return false;
  });
}

/** `const`: JSON equality with one value. */
export function constCheck(expected: unknown): Check<unknown> {
  const test: Test<unknown> = typeof expected === "object" && expected !== null
    ? (value) => jsonEqual(expected, value)
    : (value) => value === expected;
  return leaf("const", constMessage(expected), test);
}

/** `$ref`: defers to `target`, which may be filled in after this check is built. */
export function refCheck(target: Node): Check<unknown> {
  return {
    test: (value) => target.test(value),
    report: (value, path, out) => target.report(value, path, out),
  };
}

/** `allOf`: every subschema must match; reports their violations. */
export function allOfCheck(nodes: readonly Node[]): Check<unknown> {
  return {
    test: (value) => {
      for (let i = 0; i < nodes.length; i++) {
        if (!nodes[i]!.test(value)) return false;
      }
      return true;
    },
    report: (value, path, out) => {
      for (const node of nodes) {
        if (!node.test(value)) node.report(value, path, out);
      }
    },
  };
}

/** `anyOf`: at least one subschema must match. */
export function anyOfCheck(nodes: readonly Node[]): Check<unknown> {
  return leaf("anyOf", ANY_OF_MESSAGE, (value) => {
    for (let i = 0; i < nodes.length; i++) {
      if (nodes[i]!.test(value)) return true;
    }
    return false;
  });
}

function countMatches(nodes: readonly Node[], value: unknown, stopAt: number): number {
  let matches = 0;
  for (let i = 0; i < nodes.length && matches < stopAt; i++) {
    if (nodes[i]!.test(value)) matches++;
  }
  return matches;
}

/** `oneOf`: exactly one subschema must match. */
export function oneOfCheck(nodes: readonly Node[]): Check<unknown> {
  return leaf(
    "oneOf",
    (value) => oneOfMessage(countMatches(nodes, value, Infinity)),
    (value) => countMatches(nodes, value, 2) === 1,
  );
}

/** `not`: the subschema must not match. */
export function notCheck(node: Node): Check<unknown> {
  return leaf("not", NOT_MESSAGE, (value) => !node.test(value));
}

/** `if`/`then`/`else`: the branch chosen by `if` must match. */
export function conditionalCheck(
  condition: Node,
  then: Node | undefined,
  otherwise: Node | undefined,
): Check<unknown> {
  return {
    test: (value) =>
      condition.test(value)
        ? then === undefined || then.test(value)
        : otherwise === undefined || otherwise.test(value),
    report: (value, path, out) => {
      const branch = condition.test(value) ? then : otherwise;
      branch?.report(value, path, out);
    },
  };
}

/** `minimum`, `maximum`, `exclusiveMinimum` or `exclusiveMaximum`. */
export function boundCheck(keyword: BoundKeyword, limit: number): Check<number> {
  const message = boundMessage(keyword, limit);
  switch (keyword) {
    case "minimum":
      return leaf(keyword, message, (value) => value >= limit);
    case "maximum":
      return leaf(keyword, message, (value) => value <= limit);
    case "exclusiveMinimum":
      return leaf(keyword, message, (value) => value > limit);
    case "exclusiveMaximum":
      return leaf(keyword, message, (value) => value < limit);
  }
}

/** `multipleOf`. */
export function multipleOfCheck(divisor: number): Check<number> {
  return leaf("multipleOf", multipleOfMessage(divisor), (value) => isMultipleOf(value, divisor));
}

/** `format`, when asserted: `check` is one of `_formats.ts`. */
export function formatCheck(name: string, check: (text: string) => boolean): Check<string> {
  return leaf("format", formatMessage(name), check);
}

/** `minLength`, in code points. A string has at least half as many as UTF-16 units. */
export function minLengthCheck(limit: number): Check<string> {
  return leaf(
    "minLength",
    fewerMessage(limit, "character"),
    (text) => Math.ceil(text.length / 2) >= limit || codePointLength(text) >= limit,
  );
}

/** `maxLength`, in code points. A string has at most as many as UTF-16 units. */
export function maxLengthCheck(limit: number): Check<string> {
  return leaf(
    "maxLength",
    moreMessage(limit, "character"),
    (text) => text.length <= limit || codePointLength(text) <= limit,
  );
}

/**
 * `pattern`: the regular expression must match somewhere in the string. A
 * string longer than `maxLength` (which fails that) is not matched.
 */
export function patternCheck(
  source: string,
  pattern: RegExp,
  maxLength: number | undefined,
): Check<string> {
  const message = patternMessage(source);
  if (maxLength === undefined) return leaf("pattern", message, (text) => pattern.test(text));
  return leaf(
    "pattern",
    message,
    (text) => (text.length > maxLength && codePointLength(text) > maxLength) || pattern.test(text),
  );
}
