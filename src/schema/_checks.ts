/**
 * The closures a schema compiles into. Every check has two halves: `test`,
 * a lean yes/no that allocates nothing and runs on every call, and
 * `report`, which runs only after `test` said no and records each
 * violation with its path. Paths are therefore built only along the
 * branches that failed.
 *
 * @module
 */

import type { SchemaViolation } from "./compile.ts";
import type { JsonTypeName } from "./types.ts";
import { FALSE_MESSAGE } from "./_messages.ts";
import { isJsonObject, type JsonObject } from "./_values.ts";

/** Whether a value passes. */
export type Test<T> = (value: T) => boolean;
/** Records why a value that failed `test` failed; `path` is its JSON path. */
export type Report<T> = (value: T, path: string, out: SchemaViolation[]) => void;

/** One keyword (or a few that work together) compiled for values of type `T`. */
export interface Check<T> {
  readonly test: Test<T>;
  readonly report: Report<T>;
}

/**
 * A compiled schema. Mutable so that a `$ref` can point at a node before its
 * target is compiled (recursion), and filled in once it is.
 */
export interface Node {
  test: Test<unknown>;
  report: Report<unknown>;
}

/** The test of a schema that accepts everything (`true`, `{}`). */
export const pass: Test<unknown> = () => true;

/** The compiled `true` schema. */
export const TRUE_NODE: Node = { test: pass, report: () => {} };

/** The compiled `false` schema. */
export const FALSE_NODE: Node = {
  test: () => false,
  report: (_value, path, out) => {
    out.push({ path, keyword: "false", message: FALSE_MESSAGE });
  },
};

/** Whether a node accepts everything, so a loop applying it can be skipped. */
export function acceptsAll(node: Node): boolean {
  return node.test === pass;
}

/** A check that fails with one fixed (or value-dependent) message. */
export function leaf<T>(
  keyword: string,
  message: string | ((value: T) => string),
  test: Test<T>,
): Check<T> {
  const report: Report<T> = typeof message === "string"
    ? (_value, path, out) => {
      out.push({ path, keyword, message });
    }
    : (value, path, out) => {
      out.push({ path, keyword, message: message(value) });
    };
  return { test, report };
}

/** All of `checks` as one, or `undefined` when there are none. */
export function joinChecks<T>(checks: readonly Check<T>[]): Check<T> | undefined {
  const [first, second] = checks;
  if (first === undefined) return undefined;
  if (second === undefined) return first;
  const tests = checks.map((check) => check.test);
  const test: Test<T> = tests.length === 2
    ? (value) => first.test(value) && second.test(value)
    : (value) => {
      for (let i = 0; i < tests.length; i++) {
        if (!tests[i]!(value)) return false;
      }
      return true;
    };
  const report: Report<T> = (value, path, out) => {
    for (const check of checks) {
      if (!check.test(value)) check.report(value, path, out);
    }
  };
  return { test, report };
}

/** The checks of one schema, grouped by the kind of value they apply to. */
export interface CheckGroups {
  /** The `type` keyword, when the schema has one. */
  type: Check<unknown> | undefined;
  /** The one type `type` names, if it names exactly one. */
  only: JsonTypeName | undefined;
  /** Checks for every value (enum, const, applicators, `$ref`). */
  readonly any: Check<unknown>[];
  readonly string: Check<string>[];
  readonly number: Check<number>[];
  readonly array: Check<readonly unknown[]>[];
  readonly object: Check<JsonObject>[];
}

/**
 * Fills `node` with one test and one report for all groups. Keywords that
 * only constrain one kind of value share a single `typeof` dispatch, and a
 * schema of one container type (`type: "object"`, the usual tool input)
 * skips the dispatch altogether.
 */
export function fillNode(node: Node, groups: CheckGroups): void {
  const any = joinChecks(groups.type === undefined ? groups.any : [groups.type, ...groups.any]);
  const rest = joinChecks(groups.any);
  const string = joinChecks(groups.string);
  const number = joinChecks(groups.number);
  const array = joinChecks(groups.array);
  const object = joinChecks(groups.object);
  node.report = (value, path, out) => {
    if (any !== undefined && !any.test(value)) any.report(value, path, out);
    if (typeof value === "string") {
      if (string !== undefined && !string.test(value)) string.report(value, path, out);
    } else if (typeof value === "number") {
      if (number !== undefined && !number.test(value)) number.report(value, path, out);
    } else if (Array.isArray(value)) {
      if (array !== undefined && !array.test(value)) array.report(value, path, out);
    } else if (isJsonObject(value)) {
      if (object !== undefined && !object.test(value)) object.report(value, path, out);
    }
  };
  if (groups.only === "object") {
    node.test = (value) =>
      isJsonObject(value) && (rest === undefined || rest.test(value)) &&
      (object === undefined || object.test(value));
  } else if (groups.only === "array") {
    node.test = (value) =>
      Array.isArray(value) && (rest === undefined || rest.test(value)) &&
      (array === undefined || array.test(value));
  } else if (groups.only === "string") {
    node.test = (value) =>
      typeof value === "string" && (rest === undefined || rest.test(value)) &&
      (string === undefined || string.test(value));
  } else if (!string && !number && !array && !object) {
    node.test = any?.test ?? pass;
  } else {
    node.test = (value) => {
      if (any !== undefined && !any.test(value)) return false;
      switch (typeof value) {
        case "string":
          return string === undefined || string.test(value);
        case "number":
          return number === undefined || number.test(value);
        case "object":
          if (Array.isArray(value)) return array === undefined || array.test(value);
          // null is not a JSON object, so it passes here.
          return object === undefined || !isJsonObject(value) || object.test(value);
        default:
          return true;
      }
    };
  }
}
