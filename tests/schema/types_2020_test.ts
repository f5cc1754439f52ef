/**
 * Type-level tests for `Infer` on the 2020-12 keywords it cannot express:
 * each gives `unknown` (or leaves a sound, wider type), never a type that
 * refuses a valid value. If inference regresses, `deno check` (and so
 * `deno test`) fails on this file; the run-time half checks that values
 * the validator accepts have the inferred type.
 */
import assert from "node:assert/strict";
import { compileSchema } from "../../src/schema/compile.ts";
import type { Infer, JsonSchema } from "../../src/schema/types.ts";

type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true
  : false;
type Assert<T extends true> = T;

// References whose targets a type cannot follow give `unknown`.
const _dynamicRef: Assert<Equals<Infer<{ $dynamicRef: "#node" }>, unknown>> = true;
const _remoteRef: Assert<Equals<Infer<{ $ref: "https://example.com/a.json" }>, unknown>> = true;
// Beside `type`, a reference narrows nothing: the type is the wider, sound one.
const _typedRef: Assert<Equals<Infer<{ type: "string"; $ref: "#/$defs/code" }>, string>> = true;
// In allOf, an unknown member leaves the others.
const _allOfRef: Assert<
  Equals<Infer<{ allOf: readonly [{ $dynamicRef: "#meta" }, { type: "integer" }] }>, number>
> = true;

// unevaluatedProperties: named properties keep their types, other names are not typed.
const closed = {
  type: "object",
  properties: { id: { type: "string" } },
  required: ["id"],
  unevaluatedProperties: false,
} as const;
const _closed: Assert<Equals<Infer<typeof closed>, { id: string }>> = true;
const rest = { type: "object", unevaluatedProperties: { type: "string" } } as const;
const _rest: Assert<Equals<Infer<typeof rest>, { [key: string]: unknown }>> = true;

// patternProperties: a type cannot tell which names match, so values are unknown
// (typing them by additionalProperties would refuse { x1: 5 } below).
const patterned = {
  type: "object",
  patternProperties: { "^x": { type: "number" } },
  additionalProperties: { type: "string" },
} as const;
const _patterned: Assert<Equals<Infer<typeof patterned>, { [key: string]: unknown }>> = true;

// unevaluatedItems: the tuple of prefixItems stays, the rest is unknown[].
const tuple = {
  type: "array",
  prefixItems: [{ type: "string" }],
  minItems: 1,
  unevaluatedItems: false,
} as const;
const _tuple: Assert<Equals<Infer<typeof tuple>, [string, ...unknown[]]>> = true;

// The new keywords are part of the JsonSchema literal type.
const typed: JsonSchema = {
  $id: "https://example.com/tree.json",
  $dynamicAnchor: "node",
  type: "object",
  properties: { children: { type: "array", items: { $dynamicRef: "#node" } } },
  unevaluatedProperties: false,
  unevaluatedItems: true,
  $vocabulary: { "https://json-schema.org/draft/2020-12/vocab/core": true },
};

Deno.test("Infer gives every value the validator accepts its type (checked by deno check)", () => {
  const accepted: Infer<typeof patterned> = { x1: 5, name: "a" };
  assert.deepEqual(compileSchema(patterned)(accepted), []);
  const closedValue: Infer<typeof closed> = { id: "a" };
  assert.deepEqual(compileSchema(closed)(closedValue), []);
  const tupleValue: Infer<typeof tuple> = ["a"];
  assert.deepEqual(compileSchema(tuple)(tupleValue), []);
  assert.deepEqual(compileSchema(typed)({ children: [{ children: [] }] }), []);
  assert.equal(compileSchema(typed)({ children: [{ extra: 1 }] }).length, 1);
});
