/**
 * What a compiled schema checks, as plain data: the compiler's output and
 * the input of both backends (closures in `_closures.ts`, generated code in
 * `_codegen.ts`). Every value here was validated by the compiler, so the
 * backends only decide how to run the rules, never whether they are sound.
 *
 * @module
 */

import type { JsonTypeName } from "./types.ts";

/** A compiled schema: `true` and `false` stay booleans. */
export type Schema = boolean | SchemaNode;

/**
 * The rules of one schema object, grouped by the kind of value they apply
 * to, each group in the order the keywords are read (which is the order
 * violations are reported in).
 */
export interface SchemaNode {
  /** The `type` keyword, when the schema has one. */
  types: readonly JsonTypeName[] | undefined;
  /** Rules for every value: `const`, `enum`, `$ref` and the applicators. */
  readonly any: AnyRule[];
  readonly number: NumberRule[];
  readonly string: StringRule[];
  readonly array: ArrayRule[];
  readonly object: ObjectRule[];
  /**
   * `unevaluatedProperties` whose evaluated names depend on which branches
   * of `anyOf`, `oneOf`, `if` or `dependentSchemas` pass, so they are
   * collected at run time (`_annotations.ts`). When they can be known from
   * the schema alone, the compiler folds the keyword into a keys rule
   * instead and this stays `undefined`.
   */
  unevaluatedProperties: Schema | undefined;
  /** `unevaluatedItems` needing run-time annotations, as for `unevaluatedProperties`. */
  unevaluatedItems: Schema | undefined;
  /**
   * Whether the schema can be applied to one value along two paths of
   * in-place applicators (`anyOf: [{ $ref: "#/$defs/a" }, { $ref: "#/$defs/a" }]`,
   * nested). Its results are then remembered for the rest of the
   * validation, by value: nested, such sharing would otherwise cost time
   * (and violations) exponential in the depth.
   */
  memo: boolean;
}

/** `$ref`: `target` is filled in once every schema is compiled (recursion). */
export interface RefRule {
  readonly kind: "ref";
  target: Schema | undefined;
}

/** Rules that apply to any value. */
export type AnyRule =
  | { readonly kind: "const"; readonly value: unknown }
  | { readonly kind: "enum"; readonly members: readonly unknown[] }
  | RefRule
  | { readonly kind: "allOf" | "anyOf" | "oneOf"; readonly schemas: readonly Schema[] }
  | { readonly kind: "not"; readonly schema: Schema }
  | {
    /** Kept without `then` and `else` too: a passing `if` evaluates properties and items. */
    readonly kind: "if";
    readonly condition: Schema;
    readonly then: Schema | undefined;
    readonly otherwise: Schema | undefined;
  };

/** The number bounds, by keyword. */
export type BoundKeyword = "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum";

/** Rules for numbers; every number is finite. */
export type NumberRule =
  | { readonly kind: "bound"; readonly keyword: BoundKeyword; readonly limit: number }
  | { readonly kind: "multipleOf"; readonly divisor: number };

/** Rules for strings; lengths count code points. */
export type StringRule =
  | { readonly kind: "minLength" | "maxLength"; readonly limit: number }
  | {
    readonly kind: "pattern";
    readonly source: string;
    readonly regex: RegExp;
    /**
     * The schema's `maxLength`, if any: a longer string is never matched
     * (it already fails), so a hostile pattern cannot be run on it.
     */
    readonly maxLength: number | undefined;
  }
  | {
    /** `format`, asserted (only when asked to: it is an annotation by default). */
    readonly kind: "format";
    readonly name: string;
    readonly check: (text: string) => boolean;
  };

/** Rules for arrays. */
export type ArrayRule =
  | {
    readonly kind: "items";
    /** `unevaluatedItems` when folded (see {@linkcode SchemaNode}): its prefix is all `true`. */
    readonly keyword: "items" | "unevaluatedItems";
    readonly prefix: readonly Schema[];
    readonly rest: Schema | undefined;
  }
  | {
    readonly kind: "contains";
    readonly schema: Schema;
    readonly min: number;
    /** `Infinity` without `maxContains`. */
    readonly max: number;
  }
  | { readonly kind: "minItems" | "maxItems"; readonly limit: number }
  | { readonly kind: "uniqueItems" };

/** A `patternProperties` entry. */
export interface PatternRule {
  readonly source: string;
  readonly regex: RegExp;
  readonly schema: Schema;
}

/** The keywords checked in one pass over an object's keys. */
export interface KeysRule {
  readonly kind: "keys";
  /**
   * Which keyword `additional` stands for: `unevaluatedProperties` when
   * folded (see {@linkcode SchemaNode}), with the evaluated names and
   * patterns as `true` schemas.
   */
  readonly keyword: "additionalProperties" | "unevaluatedProperties";
  readonly properties: readonly (readonly [string, Schema])[];
  readonly required: readonly string[];
  readonly patterns: readonly PatternRule[];
  readonly additional: Schema | undefined;
  readonly names: Schema | undefined;
}

/** Rules for objects. */
export type ObjectRule =
  | KeysRule
  | { readonly kind: "minProperties" | "maxProperties"; readonly limit: number }
  | {
    readonly kind: "dependentRequired";
    readonly rules: readonly (readonly [string, readonly string[]])[];
  }
  | { readonly kind: "dependentSchemas"; readonly rules: readonly (readonly [string, Schema])[] };

/** A schema with no rules yet, to be filled by the compiler. */
export function emptyNode(): SchemaNode {
  return {
    types: undefined,
    any: [],
    number: [],
    string: [],
    array: [],
    object: [],
    unevaluatedProperties: undefined,
    unevaluatedItems: undefined,
    memo: false,
  };
}

/** Whether a schema accepts every value (`true`, `{}`, annotations only). */
export function acceptsAll(schema: Schema): boolean {
  if (typeof schema === "boolean") return schema;
  return schema.types === undefined && schema.any.length === 0 && schema.number.length === 0 &&
    schema.string.length === 0 && schema.array.length === 0 && schema.object.length === 0 &&
    !needsAnnotations(schema);
}

/** Whether a schema has `unevaluated*` keywords that collect annotations at run time. */
export function needsAnnotations(schema: Schema): boolean {
  return typeof schema !== "boolean" &&
    (schema.unevaluatedProperties !== undefined || schema.unevaluatedItems !== undefined);
}
