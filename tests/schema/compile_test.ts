import assert from "node:assert/strict";
import {
  type CompileOptions,
  compileSchema,
  type SchemaViolation,
} from "../../src/schema/compile.ts";
import type { JsonSchema } from "../../src/schema/types.ts";
import { parsed } from "../_helpers/schema_helpers.ts";

/** Both backends: every table below runs against each. */
const BACKENDS: readonly (readonly [string, CompileOptions])[] = [
  ["generated code", { codegen: true }],
  ["closures", { codegen: false }],
];

/** Violations as `path keyword` strings, in order: compact for tables. */
function found(schema: JsonSchema, value: unknown, options: CompileOptions): string[] {
  return compileSchema(schema, options)(value).map((v: SchemaViolation) =>
    `${v.path} ${v.keyword}`
  );
}

/** Parses a schema from JSON, so tables can hold schemas the type forbids. */

interface Case {
  readonly name: string;
  readonly schema: JsonSchema;
  readonly value: unknown;
  /** Expected `path keyword` pairs; [] means valid. */
  readonly expected: readonly string[];
}

// deno-fmt-ignore
const KEYWORD_CASES: readonly Case[] = [
  { name: "type integer accepts 1.0", schema: { type: "integer" }, value: 1.0, expected: [] },
  { name: "type integer refuses 1.5", schema: { type: "integer" }, value: 1.5, expected: ["$ type"] },
  { name: "type integer refuses '1'", schema: { type: "integer" }, value: "1", expected: ["$ type"] },
  { name: "type integer accepts 1e300", schema: { type: "integer" }, value: 1e300, expected: [] },
  { name: "type number refuses NaN", schema: { type: "number" }, value: NaN, expected: ["$ type"] },
  { name: "type list accepts null", schema: { type: ["string", "null"] }, value: null, expected: [] },
  { name: "type list refuses 0", schema: { type: ["string", "null"] }, value: 0, expected: ["$ type"] },
  { name: "type object refuses array", schema: { type: "object" }, value: [], expected: ["$ type"] },
  { name: "type array refuses object", schema: { type: "array" }, value: {}, expected: ["$ type"] },
  { name: "enum accepts member", schema: { enum: ["a", 1, null] }, value: 1, expected: [] },
  { name: "enum refuses 1 for true", schema: { enum: [true] }, value: 1, expected: ["$ enum"] },
  { name: "enum compares objects deeply", schema: { enum: [{ a: [1] }] }, value: { a: [1] }, expected: [] },
  { name: "const ignores key order", schema: { const: { a: 1, b: 2 } }, value: { b: 2, a: 1 }, expected: [] },
  { name: "const refuses an extra key", schema: { const: { a: 1 } }, value: { a: 1, b: 2 }, expected: ["$ const"] },
  { name: "minimum", schema: { minimum: 3 }, value: 2, expected: ["$ minimum"] },
  { name: "maximum", schema: { maximum: 3 }, value: 4, expected: ["$ maximum"] },
  { name: "exclusiveMinimum at the bound", schema: { exclusiveMinimum: 3 }, value: 3, expected: ["$ exclusiveMinimum"] },
  { name: "exclusiveMaximum at the bound", schema: { exclusiveMaximum: 3 }, value: 3, expected: ["$ exclusiveMaximum"] },
  { name: "multipleOf 0.0001 accepts 0.0075", schema: { multipleOf: 0.0001 }, value: 0.0075, expected: [] },
  { name: "multipleOf 0.01 accepts 19.99", schema: { multipleOf: 0.01 }, value: 19.99, expected: [] },
  { name: "multipleOf 0.1 accepts 0.3", schema: { multipleOf: 0.1 }, value: 0.3, expected: [] },
  { name: "multipleOf 0.0001 refuses 0.00751", schema: { multipleOf: 0.0001 }, value: 0.00751, expected: ["$ multipleOf"] },
  { name: "multipleOf 2 refuses 7", schema: { multipleOf: 2 }, value: 7, expected: ["$ multipleOf"] },
  { name: "number bounds ignore strings", schema: { minimum: 3, multipleOf: 2 }, value: "1", expected: [] },
  { name: "maxLength counts an emoji once", schema: { maxLength: 2 }, value: "💩💩", expected: [] },
  { name: "maxLength refuses three emoji", schema: { maxLength: 2 }, value: "💩💩💩", expected: ["$ maxLength"] },
  { name: "minLength refuses two emoji for 3", schema: { minLength: 3 }, value: "💩💩", expected: ["$ minLength"] },
  { name: "minLength counts a lone surrogate", schema: { minLength: 2 }, value: "\ud83dx", expected: [] },
  { name: "pattern is not anchored", schema: { pattern: "b+" }, value: "abba", expected: [] },
  { name: "pattern uses the u flag", schema: { pattern: "^\\p{L}+$" }, value: "héllo", expected: [] },
  { name: "pattern refuses", schema: { pattern: "^ORD-[0-9]+$" }, value: "ORD-x", expected: ["$ pattern"] },
  { name: "items", schema: { items: { type: "string" } }, value: ["a", 1, "b", 2], expected: ["$[1] type", "$[3] type"] },
  { name: "prefixItems then items", schema: { prefixItems: [{ type: "string" }], items: { type: "number" } }, value: [1, "a"], expected: ["$[0] type", "$[1] type"] },
  { name: "items false after prefixItems", schema: { prefixItems: [true, true], items: false }, value: [1, 2, 3], expected: ["$ items"] },
  { name: "minItems", schema: { minItems: 2 }, value: [1], expected: ["$ minItems"] },
  { name: "maxItems", schema: { maxItems: 1 }, value: [1, 2], expected: ["$ maxItems"] },
  { name: "uniqueItems compares deeply", schema: { uniqueItems: true }, value: [{ a: 1 }, { a: 1 }], expected: ["$ uniqueItems"] },
  { name: "uniqueItems keeps 1 and true apart", schema: { uniqueItems: true }, value: [1, true], expected: [] },
  { name: "contains", schema: { contains: { type: "string" } }, value: [1, 2], expected: ["$ contains"] },
  { name: "maxContains", schema: { contains: { const: 1 }, maxContains: 1 }, value: [1, 1], expected: ["$ maxContains"] },
  { name: "minContains 0 allows none", schema: { contains: { const: 1 }, minContains: 0 }, value: [2], expected: [] },
  { name: "properties", schema: { properties: { a: { type: "string" } } }, value: { a: 1 }, expected: ["$.a type"] },
  { name: "required", schema: { required: ["a", "b"] }, value: { b: 1 }, expected: ["$ required"] },
  { name: "required ignores inherited names", schema: { required: ["constructor", "toString"] }, value: {}, expected: ["$ required", "$ required"] },
  { name: "an undefined property counts as absent", schema: { required: ["a"] }, value: { a: undefined }, expected: ["$ required"] },
  { name: "additionalProperties false", schema: { properties: { a: {} }, additionalProperties: false }, value: { a: 1, b: 2 }, expected: ["$ additionalProperties"] },
  { name: "additionalProperties schema", schema: { properties: { a: {} }, additionalProperties: { type: "number" } }, value: { a: "x", b: "y" }, expected: ["$.b type"] },
  { name: "patternProperties", schema: { patternProperties: { "^n_": { type: "number" } } }, value: { n_a: "x", s: "y" }, expected: ["$.n_a type"] },
  { name: "patternProperties are not additional", schema: { patternProperties: { "^x-": {} }, additionalProperties: false }, value: { "x-a": 1 }, expected: [] },
  { name: "propertyNames", schema: { propertyNames: { maxLength: 3 } }, value: { abcd: 1, ab: 2 }, expected: ["$ propertyNames"] },
  { name: "minProperties", schema: { minProperties: 1 }, value: {}, expected: ["$ minProperties"] },
  { name: "maxProperties", schema: { maxProperties: 1 }, value: { a: 1, b: 2 }, expected: ["$ maxProperties"] },
  { name: "dependentRequired", schema: { dependentRequired: { card: ["cvv"] } }, value: { card: "4111" }, expected: ["$ dependentRequired"] },
  { name: "dependentSchemas", schema: { dependentSchemas: { card: { required: ["cvv"] } } }, value: { card: "4111" }, expected: ["$ required"] },
  { name: "allOf reports inner violations", schema: { allOf: [{ minimum: 2 }, { multipleOf: 2 }] }, value: 1, expected: ["$ minimum", "$ multipleOf"] },
  { name: "anyOf reports once", schema: { anyOf: [{ type: "string" }, { type: "boolean" }] }, value: 1, expected: ["$ anyOf"] },
  { name: "oneOf refuses two matches", schema: { oneOf: [{ type: "number" }, { minimum: 0 }] }, value: 1, expected: ["$ oneOf"] },
  { name: "oneOf refuses no match", schema: { oneOf: [{ type: "string" }] }, value: 1, expected: ["$ oneOf"] },
  { name: "not", schema: { not: { type: "string" } }, value: "a", expected: ["$ not"] },
  { name: "if/then", schema: { if: { required: ["a"] }, then: { required: ["b"] } }, value: { a: 1 }, expected: ["$ required"] },
  { name: "if/else", schema: { if: { required: ["a"] }, else: { required: ["c"] } }, value: {}, expected: ["$ required"] },
  { name: "false schema under properties", schema: { properties: { a: false } }, value: { a: 1 }, expected: ["$.a false"] },
  { name: "true schema", schema: true, value: { anything: [1] }, expected: [] },
  { name: "annotations are ignored", schema: { title: "t", description: "d", default: 3, examples: [1], format: "email", deprecated: true, readOnly: true, writeOnly: false, $comment: "c", "x-vendor": { any: 1 }, type: "string" }, value: "not an email", expected: [] },
];

Deno.test("compileSchema() applies every supported keyword", async (t) => {
  for (const [backend, options] of BACKENDS) {
    for (const { name, schema, value, expected } of KEYWORD_CASES) {
      await t.step(`${backend}: ${name}`, () => {
        assert.deepEqual(found(schema, value, options), expected);
      });
    }
  }
});

const ORDER = {
  type: "object",
  properties: {
    order_id: { type: "string", pattern: "^ORD-[0-9]+$" },
    quantity: { type: "integer", minimum: 1 },
    items: {
      type: "array",
      items: {
        type: "object",
        properties: { name: { type: "string", minLength: 1 } },
        required: ["name"],
      },
    },
    "odd key": { type: "boolean" },
  },
  required: ["order_id", "quantity"],
  additionalProperties: false,
} as const;

Deno.test("compileSchema() reports every violation with its path", async (t) => {
  for (const [backend, options] of BACKENDS) {
    await t.step(backend, () => reportsEveryViolation(options));
  }
});

function reportsEveryViolation(options: CompileOptions): void {
  const validate = compileSchema(ORDER, options);
  const value = {
    order_id: "17",
    quantity: 1.5,
    items: [{ name: "a" }, {}, { name: "" }],
    "odd key": "yes",
    note: "extra",
  };
  assert.deepEqual(validate(value), [
    { path: "$.order_id", keyword: "pattern", message: 'must match pattern "^ORD-[0-9]+$"' },
    { path: "$.quantity", keyword: "type", message: "must be integer" },
    { path: "$.items[1]", keyword: "required", message: "must have required property 'name'" },
    {
      path: "$.items[2].name",
      keyword: "minLength",
      message: "must NOT have fewer than 1 character",
    },
    { path: '$["odd key"]', keyword: "type", message: "must be boolean" },
    {
      path: "$",
      keyword: "additionalProperties",
      message: "must NOT have additional property 'note'",
    },
  ]);
  assert.deepEqual(validate({}), [
    { path: "$", keyword: "required", message: "must have required property 'order_id'" },
    { path: "$", keyword: "required", message: "must have required property 'quantity'" },
  ]);
}

Deno.test("compileSchema() writes short messages a model can act on", async (t) => {
  for (const [backend, options] of BACKENDS) {
    await t.step(backend, () => writesShortMessages(options));
  }
});

function writesShortMessages(options: CompileOptions): void {
  const messages = (schema: JsonSchema, value: unknown) =>
    compileSchema(schema, options)(value).map((violation) => violation.message);
  assert.deepEqual(messages({ enum: ["a", "b"] }, "c"), ['must be one of "a", "b"']);
  assert.deepEqual(messages({ const: 5 }, 4), ["must be equal to 5"]);
  assert.deepEqual(messages({ type: ["string", "null"] }, 1), ["must be string or null"]);
  assert.deepEqual(messages({ minimum: 1, exclusiveMaximum: 9 }, 10), ["must be < 9"]);
  assert.deepEqual(messages({ multipleOf: 0.01 }, 1.005), ["must be a multiple of 0.01"]);
  assert.deepEqual(messages({ maxItems: 1 }, [1, 2]), ["must NOT have more than 1 item"]);
  assert.deepEqual(messages({ uniqueItems: true }, [1, 2, 1]), [
    "must NOT have duplicate items (items 0 and 2 are equal)",
  ]);
  assert.deepEqual(messages({ oneOf: [{}, {}] }, 1), [
    "must match exactly one schema in oneOf (matches 2)",
  ]);
  assert.deepEqual(messages({ oneOf: [{ type: "string" }] }, 1), [
    "must match exactly one schema in oneOf (matches none)",
  ]);
  assert.deepEqual(messages({ minItems: 2, maxProperties: 0 }, [1]), [
    "must NOT have fewer than 2 items",
  ]);
  assert.deepEqual(messages({ maxProperties: 1 }, { a: 1, b: 2 }), [
    "must NOT have more than 1 property",
  ]);
  assert.deepEqual(messages({ contains: { type: "string" }, minContains: 2 }, ["a"]), [
    "must contain at least 2 items matching contains",
  ]);
  assert.deepEqual(messages({ prefixItems: [{}], items: false }, [1, 2]), [
    "must NOT have more than 1 item",
  ]);
  assert.deepEqual(messages({ properties: { a: false } }, { a: 1 }), ["is not allowed"]);
  assert.deepEqual(messages({ propertyNames: { maxLength: 1 } }, { ab: 1 }), [
    "property name 'ab' is invalid",
  ]);
  assert.deepEqual(messages({ dependentRequired: { a: ["b"] } }, { a: 1 }), [
    "must have property 'b' when property 'a' is present",
  ]);
}

Deno.test("compileSchema() returns one shared frozen array for valid values", () => {
  const [generated, closures] = BACKENDS.map(([, options]) => compileSchema(ORDER, options));
  assert.ok(generated !== undefined && closures !== undefined);
  const first = generated({ order_id: "ORD-1", quantity: 2 });
  const second = generated({ order_id: "ORD-2", quantity: 3, items: [{ name: "x" }] });
  assert.equal(first.length, 0);
  assert.equal(first, second);
  assert.ok(Object.isFrozen(first));
  // The same array from both backends and from every schema.
  assert.equal(closures({ order_id: "ORD-1", quantity: 2 }), first);
  assert.equal(compileSchema(true)(null), first);
  // Failures get a fresh array each time.
  const failure = generated({});
  assert.notEqual(generated({}), failure);
  assert.ok(!Object.isFrozen(failure));
});

Deno.test("compileSchema() follows recursive $refs", async (t) => {
  for (const [backend, options] of BACKENDS) {
    await t.step(backend, () => followsRecursiveRefs(options));
  }
});

function followsRecursiveRefs(options: CompileOptions): void {
  const tree: JsonSchema = {
    $defs: {
      node: {
        type: "object",
        properties: {
          value: { type: "number" },
          children: { type: "array", items: { $ref: "#/$defs/node" } },
        },
        required: ["value"],
      },
    },
    $ref: "#/$defs/node",
  };
  const validate = compileSchema(tree, options);
  assert.deepEqual(validate({ value: 1, children: [{ value: 2, children: [] }] }), []);
  assert.deepEqual(
    validate({ value: 1, children: [{ value: 2, children: [{ value: "x" }, {}] }] }).map((v) =>
      `${v.path} ${v.keyword}`
    ),
    ["$.children[0].children[0].value type", "$.children[0].children[1] required"],
  );
  const list: JsonSchema = { type: "object", properties: { next: { $ref: "#" } } };
  assert.deepEqual(found(list, { next: { next: { next: 1 } } }, options), [
    "$.next.next.next type",
  ]);
  // Mutual recursion through anchors, with the root's own functions called back.
  const even: JsonSchema = {
    $defs: {
      odd: { $anchor: "odd", type: "array", items: { $ref: "#" }, minItems: 1 },
    },
    anyOf: [{ type: "null" }, { $ref: "#odd" }],
  };
  assert.deepEqual(found(even, [[null], [[null]]], options), []);
  assert.deepEqual(found(even, [[]], options), ["$ anyOf"]);
}

Deno.test("compileSchema() resolves pointers with escapes and anchors", async (t) => {
  for (const [backend, options] of BACKENDS) {
    await t.step(backend, () => resolvesPointers(options));
  }
});

function resolvesPointers(options: CompileOptions): void {
  const schema = parsed(`{
    "$defs": { "a/b": { "type": "integer" }, "c~d": { "type": "string" }, "e%f": { "type": "null" },
               "named": { "$anchor": "item", "type": "boolean" } },
    "properties": { "slash": { "$ref": "#/$defs/a~1b" }, "tilde": { "$ref": "#/$defs/c~0d" },
                    "percent": { "$ref": "#/$defs/e%25f" }, "anchor": { "$ref": "#item" } }
  }`);
  const valid = { slash: 1, tilde: "t", percent: null, anchor: true };
  assert.deepEqual(found(schema, valid, options), []);
  assert.deepEqual(found(schema, { slash: "1", tilde: 1, percent: 0, anchor: 1 }, options), [
    "$.slash type",
    "$.tilde type",
    "$.percent type",
    "$.anchor type",
  ]);
}

Deno.test("compileSchema() accepts the MCP conformance 2020-12 tool schema", async (t) => {
  for (const [backend, options] of BACKENDS) {
    await t.step(backend, () => acceptsConformanceSchema(options));
  }
});

function acceptsConformanceSchema(options: CompileOptions): void {
  const validate = compileSchema({
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    $defs: {
      address: {
        type: "object",
        properties: { street: { type: "string" }, city: { type: "string" } },
      },
    },
    properties: { name: { type: "string" }, address: { $ref: "#/$defs/address" } },
    additionalProperties: false,
  }, options);
  assert.deepEqual(validate({ name: "Ada", address: { city: "London" } }), []);
  assert.deepEqual(validate({ address: { city: 1 }, age: 3 }).map((v) => v.path), [
    "$.address.city",
    "$",
  ]);
}

// deno-fmt-ignore
const REFUSED: readonly [string, string, RegExp][] = [
  ["a misspelt keyword", '{ "properties": { "a": { "requried": ["x"] } } }', /^Cannot compile schema: unsupported schema keyword 'requried' at #\/properties\/a \(did you mean 'required'\?\)$/],
  ["unevaluatedProperties that is not a schema", '{ "unevaluatedProperties": 1 }', /a schema must be an object or a boolean at #\/unevaluatedProperties$/],
  ["a $dynamicRef to nothing", '{ "items": { "$dynamicRef": "#node" } }', /\$ref '#node' names no \$anchor at #\/items\/\$dynamicRef$/],
  ["draft-07 dependencies", '{ "dependencies": { "a": ["b"] } }', /unsupported schema keyword 'dependencies'/],
  ["a remote $ref not given", '{ "$ref": "https://example.com/s.json" }', /\$ref 'https:\/\/example\.com\/s\.json' names 'https:\/\/example\.com\/s\.json', which is not among the schemas given \(nothing is fetched: pass it in the schemas option\) at #\/\$ref$/],
  ["a relative $ref not given", '{ "$id": "https://example.com/root.json", "items": { "$ref": "item.json#/x" } }', /names 'https:\/\/example\.com\/item\.json', which is not among the schemas given/],
  ["a $ref to nothing", '{ "$ref": "#/$defs/missing" }', /\$ref '#\/\$defs\/missing' points at nothing at #\/\$ref$/],
  ["an unknown anchor", '{ "$ref": "#nowhere" }', /\$ref '#nowhere' names no \$anchor/],
  ["a $ref loop", '{ "$defs": { "a": { "$ref": "#/$defs/b" }, "b": { "anyOf": [{ "$ref": "#/$defs/a" }] } }, "$ref": "#/$defs/a" }', /'\$ref' loops back here without moving into the value/],
  ["a self $ref", '{ "$ref": "#" }', /loops back/],
  ["an $id with a fragment", '{ "$defs": { "a": { "$id": "a.json#x" } } }', /'\$id' 'a\.json#x' must not have a fragment at #\/\$defs\/a$/],
  ["two $ids for different schemas", '{ "$defs": { "a": { "$id": "a.json" }, "b": { "$id": "a.json" } } }', /'\$id' 'https:\/\/warden\.invalid\/a\.json' names two different schemas at #\/\$defs\/b$/],
  ["a duplicate $anchor", '{ "$defs": { "a": { "$anchor": "x" }, "b": { "$anchor": "x" } } }', /duplicate anchor 'x' in https:\/\/warden\.invalid\/schema\.json at #\/\$defs\/b$/],
  ["a malformed $dynamicAnchor", '{ "$dynamicAnchor": "a b" }', /'\$dynamicAnchor' must be a plain name/],
  ["$vocabulary that is not an object", '{ "$vocabulary": [] }', /'\$vocabulary' must be an object at #$/],
  ["minimum as a string", '{ "properties": { "n": { "minimum": "3" } } }', /'minimum' must be a number at #\/properties\/n$/],
  ["required as a string", '{ "required": "a" }', /'required' must be an array of strings at #$/],
  ["an unknown type", '{ "type": "int" }', /'type' must be string, number, integer, boolean, null, array, object, or a non-empty array of them at #$/],
  ["an empty type list", '{ "type": [] }', /'type' must be/],
  ["an invalid pattern", '{ "pattern": "(" }', /'pattern' must be a valid regular expression \(.*\) at #$/],
  ["an invalid patternProperties key", '{ "patternProperties": { "[": {} } }', /'patternProperties' must be a valid regular expression .* at #\/patternProperties\/\[$/],
  ["multipleOf 0", '{ "multipleOf": 0 }', /'multipleOf' must be a number greater than 0/],
  ["a negative minLength", '{ "minLength": -1 }', /'minLength' must be a non-negative integer/],
  ["a fractional maxItems", '{ "maxItems": 1.5 }', /'maxItems' must be a non-negative integer/],
  ["an empty allOf", '{ "allOf": [] }', /'allOf' must be a non-empty array of schemas/],
  ["properties as an array", '{ "properties": [] }', /'properties' must be an object of schemas/],
  ["a schema that is a number", '{ "items": 3 }', /a schema must be an object or a boolean at #\/items$/],
  ["uniqueItems as a string", '{ "uniqueItems": "yes" }', /'uniqueItems' must be a boolean/],
  ["dependentRequired with numbers", '{ "dependentRequired": { "a": [1] } }', /'dependentRequired' must be an object of string arrays/],
  ["description as a number", '{ "description": 5 }', /'description' must be a string/],
  ["a malformed $anchor", '{ "$anchor": "1st" }', /'\$anchor' must be a plain name/],
];

Deno.test("compileSchema() refuses what it would not validate", async (t) => {
  for (const [backend, options] of BACKENDS) {
    for (const [name, json, message] of REFUSED) {
      await t.step(`${backend}: ${name}`, () => {
        assert.throws(() => compileSchema(parsed(json), options), (error: unknown) => {
          assert.ok(error instanceof TypeError);
          assert.match(error.message, message);
          return true;
        });
      });
    }
  }
});

Deno.test("compileSchema() opens its errors with the label", () => {
  for (const [, options] of BACKENDS) {
    assert.throws(
      () =>
        compileSchema(parsed('{ "type": "object", "requried": ["a"] }'), {
          ...options,
          label: "Cannot register tool 'add'",
        }),
      new TypeError(
        "Cannot register tool 'add': unsupported schema keyword 'requried' at # (did you mean 'required'?)",
      ),
    );
  }
});

Deno.test("compileSchema() refuses a schema object that contains itself", () => {
  const properties: Record<string, JsonSchema> = {};
  const schema: JsonSchema = { type: "object", properties };
  properties.self = schema;
  for (const [, options] of BACKENDS) {
    assert.throws(
      () => compileSchema(schema, options),
      /the schema object contains itself .* at #\/properties\/self$/,
    );
  }
});

Deno.test("compileSchema() falls back to closures where new Function is refused", () => {
  const { eval: realEval, Function: RealFunction } = globalThis;
  const forbidden = () => {
    throw new Error("eval is forbidden here");
  };
  try {
    globalThis.eval = forbidden;
    globalThis.Function = new Proxy(RealFunction, { construct: forbidden, apply: forbidden });
    const validate = compileSchema(ORDER);
    assert.deepEqual(validate({ order_id: "ORD-1", quantity: 1 }), []);
    assert.equal(validate({ order_id: 1 }).length, 2);
  } finally {
    globalThis.eval = realEval;
    globalThis.Function = RealFunction;
  }
});

Deno.test("compileSchema() builds code with new Function unless codegen is false", () => {
  const RealFunction = globalThis.Function;
  const sources: string[] = [];
  try {
    globalThis.Function = new Proxy(RealFunction, {
      construct(target, args: string[]) {
        sources.push(args.at(-1) ?? "");
        return new target(...args);
      },
    });
    const generated = compileSchema(ORDER);
    const closures = compileSchema(ORDER, { codegen: false });
    // Checked and compiled at once, the source generated on the first call only.
    assert.equal(sources.length, 0);
    assert.deepEqual(generated({ order_id: "ORD-1", quantity: 1 }), []);
    assert.equal(sources.length, 1);
    assert.match(sources[0] ?? "", /function validate\(v\)/);
    const value = { order_id: "17", items: [{ name: "" }, 3], "odd key": 1, extra: true };
    assert.deepEqual(generated(value), closures(value));
    assert.equal(generated(value).length, 6);
  } finally {
    globalThis.Function = RealFunction;
  }
});
