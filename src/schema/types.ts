/**
 * Types for JSON Schema literals and for the TypeScript type a schema
 * describes. Types only: the validator lives in `compile.ts`.
 *
 * @module
 */

/**
 * Any JSON value, as `JSON.parse` returns it, seen read-only (so `as const`
 * literals fit).
 *
 * @example Usage
 * ```ts
 * import type { JsonValue } from "@warden/mcp/schema";
 * const value: JsonValue = { tags: ["a", "b"], count: 2, note: null };
 * ```
 */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue };

/**
 * A JSON Schema (draft 2020-12) as a literal: `true`, `false` or an object of
 * the keywords Warden validates, plus annotations and `x-` extensions. Any
 * other key is a type error in an annotated literal, and `compileSchema`
 * refuses it at run time either way.
 *
 * @example Usage
 * ```ts
 * import type { JsonSchema } from "@warden/mcp/schema";
 * const quantity: JsonSchema = { type: "integer", minimum: 1, maximum: 100 };
 * ```
 */
export type JsonSchema = boolean | JsonSchemaObject;

/** A map from names to schemas (`properties`, `$defs` and the like). */
export type JsonSchemaMap = { readonly [name: string]: JsonSchema };

/** The names JSON Schema's `type` keyword accepts. */
export type JsonTypeName = Extract<NonNullable<JsonSchemaObject["type"]>, string>;

/**
 * The object form of {@linkcode JsonSchema}: every keyword Warden knows,
 * each optional.
 *
 * @example Usage
 * ```ts
 * import type { JsonSchemaObject } from "@warden/mcp/schema";
 * const code: JsonSchemaObject = { type: "string", pattern: "^ORD-[0-9]+$" };
 * ```
 */
export interface JsonSchemaObject {
  /**
   * The dialect's URI. A meta-schema given in the `schemas` option decides
   * by its `$vocabulary` which keywords apply; any other URI means 2020-12.
   */
  readonly $schema?: string;
  /** This schema's URI (absolute, or relative to the enclosing one), without a fragment. */
  readonly $id?: string;
  /**
   * A reference: `#`, a JSON pointer such as `#/$defs/item`, `#anchor`, or
   * a URI (relative to `$id`) of a schema in this document, in the
   * `schemas` option, or a bundled 2020-12 meta-schema. Never fetched.
   */
  readonly $ref?: string;
  /** A reference resolved in the dynamic scope when it names a `$dynamicAnchor`. */
  readonly $dynamicRef?: string;
  /** A name that `$ref: "#name"` can point at. */
  readonly $anchor?: string;
  /** A name that `$ref` and `$dynamicRef` can point at, overridable by an outer resource. */
  readonly $dynamicAnchor?: string;
  /** In a meta-schema: the vocabularies its dialect uses (`true`: required). */
  readonly $vocabulary?: { readonly [uri: string]: boolean };
  /** A comment for schema authors. */
  readonly $comment?: string;
  /** Schemas kept for `$ref`. */
  readonly $defs?: { readonly [name: string]: JsonSchema };
  /** The pre-2019 name of `$defs`. */
  readonly definitions?: { readonly [name: string]: JsonSchema };

  /** A short title (annotation). */
  readonly title?: string;
  /** What the value means (annotation; models read it). */
  readonly description?: string;
  /** A default value (annotation; never filled in). */
  readonly default?: unknown;
  /** Example values (annotation). */
  readonly examples?: readonly unknown[];
  /** Marks the value as deprecated (annotation). */
  readonly deprecated?: boolean;
  /** Marks the value as read-only (annotation). */
  readonly readOnly?: boolean;
  /** Marks the value as write-only (annotation). */
  readonly writeOnly?: boolean;
  /** A format name such as `"email"` (annotation: not asserted). */
  readonly format?: string;
  /** The media type of a string's content (annotation). */
  readonly contentMediaType?: string;
  /** The encoding of a string's content, e.g. `"base64"` (annotation). */
  readonly contentEncoding?: string;
  /** The schema of a string's decoded content (annotation: not applied). */
  readonly contentSchema?: JsonSchema;

  /** One type name, or a list of them (any of which matches). */
  readonly type?:
    | "string"
    | "number"
    | "integer"
    | "boolean"
    | "null"
    | "array"
    | "object"
    | readonly ("string" | "number" | "integer" | "boolean" | "null" | "array" | "object")[];
  /** The allowed values. */
  readonly enum?: readonly JsonValue[];
  /** The only allowed value. */
  readonly const?: JsonValue;

  /** Schemas that must all match. */
  readonly allOf?: readonly JsonSchema[];
  /** Schemas of which at least one must match. */
  readonly anyOf?: readonly JsonSchema[];
  /** Schemas of which exactly one must match. */
  readonly oneOf?: readonly JsonSchema[];
  /** A schema that must not match. */
  readonly not?: JsonSchema;
  /** A condition choosing between `then` and `else`. */
  readonly if?: JsonSchema;
  /** Applies when `if` matches. */
  readonly then?: JsonSchema;
  /** Applies when `if` does not match. */
  readonly else?: JsonSchema;

  /** Inclusive lower bound for numbers. */
  readonly minimum?: number;
  /** Inclusive upper bound for numbers. */
  readonly maximum?: number;
  /** Exclusive lower bound for numbers. */
  readonly exclusiveMinimum?: number;
  /** Exclusive upper bound for numbers. */
  readonly exclusiveMaximum?: number;
  /** Numbers must be an integer multiple of this (> 0). */
  readonly multipleOf?: number;

  /** Minimum string length in Unicode code points. */
  readonly minLength?: number;
  /** Maximum string length in Unicode code points. */
  readonly maxLength?: number;
  /** An ECMAScript regular expression (with the `u` flag) strings must contain a match of. */
  readonly pattern?: string;

  /** Schemas for the first items, in order. */
  readonly prefixItems?: readonly JsonSchema[];
  /** The schema for every item after `prefixItems`. */
  readonly items?: JsonSchema;
  /** A schema some items must match. */
  readonly contains?: JsonSchema;
  /** How many items must match `contains` at least. @default {1} */
  readonly minContains?: number;
  /** How many items may match `contains` at most. */
  readonly maxContains?: number;
  /** Minimum number of items. */
  readonly minItems?: number;
  /** Maximum number of items. */
  readonly maxItems?: number;
  /** Whether items must be distinct (by JSON equality). */
  readonly uniqueItems?: boolean;
  /** The schema for items no other keyword (in place, including subschemas) evaluated. */
  readonly unevaluatedItems?: JsonSchema;

  /** Schemas for named properties. */
  readonly properties?: { readonly [name: string]: JsonSchema };
  /** Properties that must be present. */
  readonly required?: readonly string[];
  /** Schemas for properties whose names match a regular expression. */
  readonly patternProperties?: { readonly [name: string]: JsonSchema };
  /** The schema for properties matched by neither `properties` nor `patternProperties`. */
  readonly additionalProperties?: JsonSchema;
  /** A schema every property name must match. */
  readonly propertyNames?: JsonSchema;
  /** Minimum number of properties. */
  readonly minProperties?: number;
  /** Maximum number of properties. */
  readonly maxProperties?: number;
  /** Properties that become required when the named one is present. */
  readonly dependentRequired?: { readonly [name: string]: readonly string[] };
  /** Schemas the whole object must match when the named property is present. */
  readonly dependentSchemas?: { readonly [name: string]: JsonSchema };
  /** The schema for properties no other keyword (in place, including subschemas) evaluated. */
  readonly unevaluatedProperties?: JsonSchema;

  /** Vendor extensions, ignored by the validator. */
  readonly [extension: `x-${string}`]: unknown;
}

/**
 * A schema for a tool's arguments: an object schema, as MCP requires of
 * `inputSchema`.
 *
 * @example Usage
 * ```ts
 * import type { ObjectSchema } from "@warden/mcp";
 * const input: ObjectSchema = {
 *   type: "object",
 *   properties: { order_id: { type: "string" } },
 *   required: ["order_id"],
 * };
 * ```
 */
export interface ObjectSchema extends JsonSchemaObject {
  /** Always `"object"`: tool arguments are a JSON object. */
  readonly type: "object";
}

/**
 * The TypeScript type of a value that is valid against the schema literal `S`
 * (declared `as const`, or passed through a `const` type parameter).
 *
 * - `const` gives the literal, `enum` the union of its members.
 * - `type` gives `string`, `number` (also for `integer`), `boolean`, `null`,
 *   arrays and objects; a list of types gives their union.
 * - Objects: properties named in `required` are required, the others
 *   optional. No index signature is added for extra keys (they are still
 *   accepted at run time): one typed `unknown` would let a misspelled
 *   `args.amout` compile. An object with no `properties` becomes
 *   `{ [key: string]: T }`, with `T` from `additionalProperties`.
 * - `items` gives `T[]`; `prefixItems` a tuple whose elements past
 *   `minItems` are optional, followed by the `items` rest.
 * - Without `type`: `anyOf`/`oneOf` give a union, `allOf` an intersection.
 * - `$ref`, `$dynamicRef`, `not`, `if` and anything else without `type`
 *   give `unknown`; beside `type` they narrow nothing, so the type may be
 *   wider than the schema, never narrower.
 * - `unevaluatedProperties` and `unevaluatedItems` are not expressed: an
 *   object without `properties` is `{ [key: string]: unknown }` then, as it
 *   is with `patternProperties` (whose names a type cannot tell apart).
 *
 * Nesting deeper than 10 levels gives `unknown`, so the compiler never
 * recurses without end.
 *
 * @example Usage
 * ```ts
 * import type { Infer } from "@warden/mcp/schema";
 * const schema = {
 *   type: "object",
 *   properties: { id: { type: "integer" }, note: { type: "string" } },
 *   required: ["id"],
 * } as const;
 * const args: Infer<typeof schema> = { id: 7 }; // { id: number; note?: string }
 * ```
 */
export type Infer<S> = InferAt<S, []>;

/**
 * The arguments a tool handler receives for the input schema `S`.
 *
 * @example Usage
 * ```ts
 * import type { InferArgs } from "./types.ts";
 * const input = {
 *   type: "object",
 *   properties: { city: { type: "string" } },
 *   required: ["city"],
 * } as const;
 * const handler = (args: InferArgs<typeof input>): string => args.city.toUpperCase();
 * ```
 */
export type InferArgs<S extends ObjectSchema> = Infer<S>;

/** Nesting depth, counted as a tuple's length. */
type Depth = readonly unknown[];
/** One level deeper. */
type Deeper<D extends Depth> = readonly [unknown, ...D];

/**
 * `Infer` at nesting depth `D`.
 *
 * @internal
 */
type InferAt<S, D extends Depth> = D["length"] extends 10 ? unknown
  : S extends true ? unknown
  : S extends false ? never
  : S extends { readonly const: infer C } ? C
  : S extends { readonly enum: readonly (infer E)[] } ? E
  : S extends { readonly type: infer T } ? FromTypes<T, S, Deeper<D>>
  : S extends { readonly anyOf: readonly (infer A)[] } ? InferAt<A, Deeper<D>>
  : S extends { readonly oneOf: readonly (infer A)[] } ? InferAt<A, Deeper<D>>
  : S extends { readonly allOf: infer L } ? Intersect<L, Deeper<D>>
  : unknown;

/** The type for a `type` keyword: one name or a list. */
type FromTypes<T, S, D extends Depth> = T extends readonly (infer N)[] ? FromType<N, S, D>
  : FromType<T, S, D>;

/** The type for one type name. */
type FromType<N, S, D extends Depth> = N extends "string" ? string
  : N extends "number" | "integer" ? number
  : N extends "boolean" ? boolean
  : N extends "null" ? null
  : N extends "array" ? InferArray<S, D>
  : N extends "object" ? InferObject<S, D>
  : unknown;

/** The intersection of the types of an `allOf` list. */
type Intersect<L, D extends Depth> = L extends readonly [infer H, ...infer R]
  ? InferAt<H, D> & Intersect<R, D>
  : unknown;

/** Flattens an intersection of object types into one, keeping `?` modifiers. */
type Simplify<T> = { [K in keyof T]: T[K] };

/** The `properties` of `S`, or none. */
type PropertiesOf<S> = S extends { readonly properties: infer P extends object } ? P
  : Record<never, never>;
/** The names in `required`, or `never`. */
type RequiredOf<S> = S extends { readonly required: readonly (infer K extends string)[] } ? K
  : never;

/** The object type for an object schema. */
type InferObject<S, D extends Depth> = [keyof PropertiesOf<S> | RequiredOf<S>] extends [never]
  ? OpenObject<S, D>
  : Simplify<
    & {
      -readonly [K in keyof PropertiesOf<S> as K extends RequiredOf<S> ? K : never]: InferAt<
        PropertiesOf<S>[K],
        D
      >;
    }
    & {
      -readonly [K in keyof PropertiesOf<S> as K extends RequiredOf<S> ? never : K]?: InferAt<
        PropertiesOf<S>[K],
        D
      >;
    }
    & { -readonly [K in Exclude<RequiredOf<S>, keyof PropertiesOf<S>>]: unknown }
  >;

/** An object schema that names no properties: a map typed by `additionalProperties`. */
type OpenObject<S, D extends Depth> = S extends { readonly patternProperties: object }
  ? { [key: string]: unknown }
  : S extends { readonly additionalProperties: infer A } ? { [key: string]: InferAt<A, D> }
  : { [key: string]: unknown };

/** The rest of an array after `prefixItems`, from `items`. */
type RestOf<S, D extends Depth> = S extends { readonly items: infer I }
  ? I extends false ? [] : InferAt<I, D>[]
  : unknown[];

/** `minItems`, or 0. */
type MinItemsOf<S> = S extends { readonly minItems: infer M extends number } ? M : 0;

/** The array or tuple type for an array schema. */
type InferArray<S, D extends Depth> = S extends
  { readonly prefixItems: infer P extends readonly unknown[] }
  ? [...Prefix<P, MinItemsOf<S>, D>, ...RestOf<S, D>]
  : RestOf<S, D>;

/** The tuple for `prefixItems`: required up to `minItems`, optional after. */
type Prefix<P, Min, D extends Depth, Seen extends unknown[] = []> = P extends
  readonly [infer H, ...infer R] ? Seen["length"] extends Min ? OptionalPrefix<P, D>
  : [InferAt<H, D>, ...Prefix<R, Min, D, [...Seen, H]>]
  : [];

/** The rest of a tuple, every element optional. */
type OptionalPrefix<P, D extends Depth> = P extends readonly [infer H, ...infer R]
  ? [InferAt<H, D>?, ...OptionalPrefix<R, D>]
  : [];
