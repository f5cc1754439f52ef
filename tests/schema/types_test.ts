/**
 * Type-level tests for `Infer` and `InferArgs`: if inference regresses,
 * `deno check` (and so `deno test`) fails on this file.
 */
import assert from "node:assert/strict";
import type { Infer, InferArgs, JsonSchema, ObjectSchema } from "../../src/schema/types.ts";

type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true
  : false;
type Assert<T extends true> = T;

// The issue's example.
const issue = {
  type: "object",
  properties: { a: { type: "integer" } },
  required: ["a"],
} as const;
const _issue: Assert<Equals<Infer<typeof issue>, { a: number }>> = true;

// Optional properties, and a required name with no schema.
const optional = {
  type: "object",
  properties: { id: { type: "string" }, note: { type: "string" }, count: { type: "number" } },
  required: ["id", "extra"],
} as const;
const _optional: Assert<
  Equals<Infer<typeof optional>, { id: string; extra: unknown; note?: string; count?: number }>
> = true;

// Primitive types, lists of types, enums and consts.
const _string: Assert<Equals<Infer<{ type: "string" }>, string>> = true;
const _integer: Assert<Equals<Infer<{ type: "integer" }>, number>> = true;
const _boolean: Assert<Equals<Infer<{ type: "boolean" }>, boolean>> = true;
const _null: Assert<Equals<Infer<{ type: "null" }>, null>> = true;
const _nullable: Assert<Equals<Infer<{ type: readonly ["string", "null"] }>, string | null>> = true;
const _enum: Assert<Equals<Infer<{ enum: readonly ["a", "b", 3] }>, "a" | "b" | 3>> = true;
const _typedEnum: Assert<
  Equals<Infer<{ type: "string"; enum: readonly ["low", "high"] }>, "low" | "high">
> = true;
const _const: Assert<Equals<Infer<{ const: "fixed" }>, "fixed">> = true;

// Nested objects and arrays.
const order = {
  type: "object",
  properties: {
    customer: {
      type: "object",
      properties: { name: { type: "string" }, vip: { type: "boolean" } },
      required: ["name"],
    },
    lines: {
      type: "array",
      items: {
        type: "object",
        properties: { sku: { type: "string" }, quantity: { type: "integer" } },
        required: ["sku", "quantity"],
        additionalProperties: false,
      },
    },
    tags: { type: "array", items: { enum: ["gift", "rush"] } },
  },
  required: ["customer", "lines"],
} as const;
type Order = {
  customer: { name: string; vip?: boolean };
  lines: { sku: string; quantity: number }[];
  tags?: ("gift" | "rush")[];
};
const _order: Assert<Equals<Infer<typeof order>, Order>> = true;

// Tuples: required up to minItems, then optional, then the items rest.
const pair = {
  type: "array",
  prefixItems: [{ type: "string" }, { type: "number" }],
  minItems: 2,
  items: false,
} as const;
const _pair: Assert<Equals<Infer<typeof pair>, [string, number]>> = true;
const loose = {
  type: "array",
  prefixItems: [{ type: "string" }, { type: "number" }],
  minItems: 1,
  items: { type: "boolean" },
} as const;
const _loose: Assert<Equals<Infer<typeof loose>, [string, number?, ...boolean[]]>> = true;
const _openTuple: Assert<
  Equals<Infer<{ type: "array"; prefixItems: readonly [{ type: "null" }] }>, [null?, ...unknown[]]>
> = true;

// anyOf / oneOf as unions, allOf as an intersection.
const either = {
  anyOf: [{ type: "string" }, { type: "array", items: { type: "number" } }],
} as const;
const _anyOf: Assert<Equals<Infer<typeof either>, string | number[]>> = true;
const _oneOf: Assert<
  Equals<Infer<{ oneOf: readonly [{ const: 1 }, { const: "one" }] }>, 1 | "one">
> = true;
const both = {
  allOf: [
    { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
    { type: "object", properties: { b: { type: "number" } }, required: ["b"] },
  ],
} as const;
const _allOf: Infer<typeof both> = { a: "x", b: 1 };

// What it cannot express is unknown; open objects become maps.
const _ref: Assert<Equals<Infer<{ $ref: "#/$defs/x" }>, unknown>> = true;
const _not: Assert<Equals<Infer<{ not: { type: "string" } }>, unknown>> = true;
const _true: Assert<Equals<Infer<true>, unknown>> = true;
const _map: Assert<
  Equals<Infer<{ type: "object"; additionalProperties: { type: "number" } }>, {
    [key: string]: number;
  }>
> = true;
const _wide: Assert<Equals<InferArgs<ObjectSchema>, { [key: string]: unknown }>> = true;

// Deep schemas stop at unknown (after 10 levels) instead of exhausting the compiler.
type Nest<S, N extends unknown[]> = N["length"] extends 14 ? S
  : Nest<{ type: "object"; properties: { a: S }; required: ["a"] }, [...N, unknown]>;
/** How many `a` levels a type has, and what is at the bottom. */
type Dig<T, N extends unknown[] = []> = T extends { a: infer A } ? Dig<A, [...N, unknown]>
  : [N["length"], T];
const _deep: Assert<Equals<Dig<Infer<Nest<{ type: "string" }, []>>>, [10, unknown]>> = true;
const _shallow: Assert<Equals<Dig<Infer<Nest<{ type: "string" }, [1, 2, 3, 4, 5]>>>, [9, string]>> =
  true;

// Through a generic function with a const type parameter, without `as const`.
function tool<const S extends ObjectSchema>(
  _definition: { inputSchema: S; handler: (args: InferArgs<S>) => void },
): void {}

tool({
  inputSchema: {
    type: "object",
    properties: {
      city: { type: "string" },
      days: { type: "integer", minimum: 1 },
      units: { enum: ["metric", "imperial"] },
    },
    required: ["city"],
  },
  handler: (args) => {
    const _args: Assert<
      Equals<typeof args, { city: string; days?: number; units?: "metric" | "imperial" }>
    > = true;
  },
});

// An array of definitions, each handler typed from its own schema.
function many<const T extends readonly ObjectSchema[]>(
  _definitions: {
    [K in keyof T]: { inputSchema: T[K]; handler: (args: InferArgs<T[K]>) => void };
  },
): void {}

many([
  {
    inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
    handler: (args) => {
      const _args: Assert<Equals<typeof args, { q: string }>> = true;
    },
  },
  {
    inputSchema: { type: "object", properties: { n: { type: "integer" } } },
    handler: (args) => {
      const _args: Assert<Equals<typeof args, { n?: number }>> = true;
    },
  },
]);

// An annotated literal catches a misspelt keyword.
// @ts-expect-error: 'requried' is not a JSON Schema keyword
const _typo: JsonSchema = { type: "object", requried: ["a"] };

Deno.test("Infer types schema literals (checked by deno check)", () => {
  // The assertions above are compile-time; this keeps the file in `deno test`.
  assert.deepEqual(_allOf, { a: "x", b: 1 });
  assert.equal(_issue, true);
});
