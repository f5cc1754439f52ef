import assert from "node:assert/strict";
import { compileSchema } from "../../src/schema/compile.ts";
import type { JsonSchema } from "../../src/schema/types.ts";
import { BACKENDS, counting, parsed } from "../_helpers/schema_helpers.ts";

/**
 * `depth` levels, each an `anyOf` whose two branches are the level below
 * (the same object twice) under `unevaluatedProperties: false`. Evaluating
 * each branch again to collect its annotations, or each branch of each
 * level separately, would read the property 2^depth times.
 */
function nestedAnyOf(depth: number, keyword: "anyOf" | "oneOf"): JsonSchema {
  let schema: JsonSchema = { properties: { a: { type: "number" } } };
  for (let level = 0; level < depth; level++) {
    const below: JsonSchema = schema;
    schema = keyword === "anyOf"
      ? { anyOf: [below, below], unevaluatedProperties: false }
      : { oneOf: [below, { required: ["zzz"] }], unevaluatedProperties: false };
  }
  return schema;
}

Deno.test("compileSchema() evaluates nested anyOf/oneOf under unevaluatedProperties a bounded number of times", () => {
  const depth = 20; // evaluating each branch again would read the property millions of times
  for (const keyword of ["anyOf", "oneOf"] as const) {
    const schema = nestedAnyOf(depth, keyword);
    for (const [backend, options] of BACKENDS) {
      const validate = compileSchema(schema, options);
      const valid = counting("a", 1);
      assert.deepEqual(validate(valid.object), [], `${keyword}, ${backend}`);
      assert.ok(valid.reads() <= 4 * depth + 8, `${keyword}, ${backend}: ${valid.reads()} reads`);
      const invalid = counting("a", "one");
      assert.notDeepEqual(validate(invalid.object), [], `${keyword}, ${backend}`);
      // A report explains each level once: polynomial, never exponential.
      assert.ok(
        invalid.reads() <= 8 * depth * depth,
        `${keyword}, ${backend}: ${invalid.reads()} reads when invalid`,
      );
    }
  }
});

Deno.test("compileSchema() reports unevaluated properties and items the same with both backends", () => {
  // deno-fmt-ignore
  const cases: [string, string, unknown, string[]][] = [
    ["folded: allOf and $ref", '{ "$defs": { "n": { "properties": { "name": { "type": "string" } } } }, "allOf": [{ "$ref": "#/$defs/n" }], "properties": { "id": {} }, "unevaluatedProperties": false }', { id: 1, name: "x", extra: 2 }, ["$ unevaluatedProperties must NOT have unevaluated property 'extra'"]],
    ["folded: a schema for the rest", '{ "properties": { "id": {} }, "unevaluatedProperties": { "type": "string" } }', { id: 1, note: 2 }, ["$.note type must be string"]],
    ["run time: anyOf", '{ "anyOf": [{ "properties": { "a": true }, "required": ["a"] }, { "properties": { "b": true }, "required": ["b"] }], "unevaluatedProperties": false }', { a: 1, c: 3 }, ["$ unevaluatedProperties must NOT have unevaluated property 'c'"]],
    ["run time: if without then", '{ "if": { "properties": { "kind": { "const": "x" } } }, "unevaluatedProperties": false }', { kind: "y" }, ["$ unevaluatedProperties must NOT have unevaluated property 'kind'"]],
    ["folded items", '{ "prefixItems": [{ "type": "string" }], "unevaluatedItems": false }', ["a", 2], ["$ unevaluatedItems must NOT have more than 1 item"]],
    ["run time: contains", '{ "contains": { "type": "string" }, "unevaluatedItems": false }', ["a", 2, "b"], ["$ unevaluatedItems must NOT have unevaluated item 1"]],
    ["nested in a property", '{ "properties": { "p": { "oneOf": [{ "properties": { "a": true } }, { "required": ["z"] }], "unevaluatedProperties": { "type": "integer" } } } }', { p: { a: 1, b: 1.5 } }, ["$.p.b type must be integer"]],
  ];
  for (const [backend, options] of BACKENDS) {
    for (const [name, json, value, expected] of cases) {
      const violations = compileSchema(parsed(json), options)(value);
      const found = violations.map((v) => `${v.path} ${v.keyword} ${v.message}`);
      assert.deepEqual(found, expected, `${name} (${backend})`);
    }
  }
});

Deno.test("compileSchema() folds unevaluatedProperties known from the schema into generated code", () => {
  const RealFunction = globalThis.Function;
  const sources: string[] = [];
  try {
    globalThis.Function = new Proxy(RealFunction, {
      construct(target, args: string[]) {
        sources.push(args.at(-1) ?? "");
        return new target(...args);
      },
    });
    const validate = compileSchema({
      $defs: { base: { properties: { id: { type: "integer" } } } },
      $ref: "#/$defs/base",
      properties: { name: { type: "string" } },
      unevaluatedProperties: false,
    });
    // The source is generated on the validator's first call.
    validate({});
    const [source = ""] = sources;
    // The rest is checked inline, with no closure handed in for it.
    assert.match(source, /"unevaluatedProperties"/);
    assert.doesNotMatch(source, /rc\(/);
  } finally {
    globalThis.Function = RealFunction;
  }
});
