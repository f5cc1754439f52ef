import assert from "node:assert/strict";
import { compileSchema, loadGenerator, type Validator } from "../../src/schema/compile.ts";
import type { JsonSchema } from "../../src/schema/types.ts";
import { parsed } from "../_helpers/schema_helpers.ts";

// The code generator loads on a validator's first call; the generated backend is tested once it has.
await loadGenerator();

/** Both backends for one schema: generated code first, then closures. */
function both(schema: JsonSchema): [Validator, Validator] {
  return [compileSchema(schema), compileSchema(schema, { codegen: false })];
}

/** Parses a schema from JSON, so that `__proto__` stays an ordinary key. */

/** Records the source of every function built while `run` runs. */
function sourcesOf(run: () => void): string[] {
  const RealFunction = globalThis.Function;
  const sources: string[] = [];
  try {
    globalThis.Function = new Proxy(RealFunction, {
      construct(target, args: string[]) {
        sources.push(args.at(-1) ?? "");
        return new target(...args);
      },
    });
    run();
  } finally {
    globalThis.Function = RealFunction;
  }
  return sources;
}

const HOSTILE = [
  '"];globalThis.pwned = 1;//',
  "'); globalThis.pwned = 1; ('",
  "`${globalThis.pwned = 1}`",
  "*/ globalThis.pwned = 1; /*",
  "\n globalThis.pwned = 1; //",
  "\u2028globalThis.pwned = 1;",
  "\u2029",
  "\\",
  "\ud800",
  "</script>",
  "__proto__",
  "constructor",
  "toString",
  "",
];

Deno.test("compileSchema() embeds hostile names, patterns and values as data", () => {
  const keys = Object.fromEntries(HOSTILE.map((key) => [key, { const: key }]));
  const schema = parsed(JSON.stringify({
    type: "object",
    properties: keys,
    required: HOSTILE,
    patternProperties: { "'\\)": { type: "null" }, "\\*/": { enum: HOSTILE.slice(0, 3) } },
    additionalProperties: false,
    propertyNames: { not: { const: "evil" } },
    dependentRequired: Object.fromEntries(HOSTILE.map((key) => [key, [`${key}!`]])),
    $defs: { many: { enum: HOSTILE }, few: { enum: HOSTILE.slice(0, 2) } },
  }));
  // The source is generated on the validator's first call.
  const sources = sourcesOf(() => compileSchema(schema)({}));
  assert.equal(sources.length, 1);
  const [generated, closures] = both(schema);
  const valid = JSON.parse(JSON.stringify(Object.fromEntries(HOSTILE.map((key) => [key, key]))));
  const broken = JSON.parse(JSON.stringify({
    ...Object.fromEntries(HOSTILE.slice(0, 7).map((key) => [key, `${key}?`])),
    "x*/": 1,
    "')": 0,
    evil: true,
  }));
  for (const value of [valid, broken, {}, HOSTILE]) {
    assert.deepEqual(generated(value), closures(value));
  }
  assert.equal("pwned" in globalThis, false);
  assert.ok(generated(valid).length > 0); // dependentRequired asks for "<key>!"
  const messages = generated(broken).map((violation) => violation.message);
  assert.ok(messages.includes(`must have required property '${HOSTILE[7]}'`));
  assert.ok(messages.includes("must NOT have additional property 'evil'"));
  assert.ok(messages.includes("property name 'evil' is invalid"));
  const paths = generated(broken).map((violation) => violation.path);
  assert.ok(paths.includes(`$[${JSON.stringify(HOSTILE[0])}]`));
  assert.ok(paths.includes('$["x*/"]'));
});

Deno.test("compileSchema() embeds hostile enum, const and pattern messages as data", () => {
  for (const text of HOSTILE) {
    const schemas = [
      { const: text },
      { enum: [text, 1] },
      { enum: [...HOSTILE, { text }] },
      { pattern: "^[a-z]+$", title: text },
      { properties: { [text]: { type: "integer" } } },
    ];
    for (const schema of schemas) {
      const [generated, closures] = both(parsed(JSON.stringify(schema)));
      for (const value of [text, `${text}x`, 1, JSON.parse(JSON.stringify({ [text]: 1.5 }))]) {
        assert.deepEqual(generated(value), closures(value), JSON.stringify([schema, value]));
      }
    }
  }
  assert.equal("pwned" in globalThis, false);
});

class Shape {
  text = 1;
  get name(): string {
    return "from a getter";
  }
}

/** Schemas that exercise every keyword and their interplay. */
// deno-fmt-ignore
const SCHEMAS: readonly JsonSchema[] = [
  { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  { type: "object", properties: { text: { type: "string" }, name: { type: "string" }, n: { minimum: 2 } }, required: ["name", "text"] },
  { properties: { a: { type: "integer" }, b: { type: "string" } }, additionalProperties: { type: "boolean" } },
  { properties: { a: {} }, patternProperties: { "^b": { type: "number" }, "b$": { minimum: 10 } }, additionalProperties: false },
  { propertyNames: { pattern: "^[a-z]+$" }, minProperties: 2, maxProperties: 3 },
  parsed('{ "required": ["constructor", "toString", "__proto__"], "properties": { "constructor": { "type": "string" } } }'),
  { dependentRequired: { a: ["b", "c"] }, dependentSchemas: { b: { properties: { a: { const: 1 } } } } },
  { type: ["string", "null", "integer"], minLength: 2, maxLength: 3, minimum: 0, multipleOf: 2 },
  { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1, multipleOf: 0.25 },
  { minLength: 2, pattern: "\\p{Lu}" },
  { items: { type: "string" }, minItems: 2, maxItems: 3, uniqueItems: true },
  { prefixItems: [{ type: "string" }, { const: 2 }], items: false },
  { prefixItems: [true, { type: "object" }], items: { type: "array", items: { type: "number" } } },
  { contains: { type: "string" }, minContains: 2, maxContains: 3 },
  { contains: { const: 1 } },
  { enum: [1, "a", null, true, { a: [1] }, [1, 2]] },
  { enum: Array.from({ length: 12 }, (_, i) => `v${i}`) },
  { const: { a: [1, { b: null }] } },
  { allOf: [{ minimum: 2 }, { multipleOf: 3 }, { type: "integer" }] },
  { anyOf: [{ type: "string", minLength: 3 }, { type: "array", minItems: 1 }] },
  { oneOf: [{ type: "number" }, { minimum: 0 }, { multipleOf: 2 }] },
  { not: { properties: { a: { const: 1 } }, required: ["a"] } },
  { if: { type: "string" }, then: { minLength: 2 }, else: { type: "array", items: { if: { minimum: 0 }, then: { maximum: 3 } } } },
  { if: { required: ["kind"] }, else: false },
  { $defs: { node: { type: "object", properties: { next: { $ref: "#/$defs/node" }, v: { type: "integer" } }, required: ["v"] } }, $ref: "#/$defs/node" },
  { properties: { a: { $ref: "#/$defs/a" }, b: { $ref: "#/$defs/a" } }, $defs: { a: { type: "array", items: { $ref: "#" } } } },
  { properties: { a: false, b: true }, items: false },
  false,
  true,
  { type: "object", properties: { outer: { type: "object", properties: { inner: { type: "string" } }, required: ["inner"] } } },
];

// deno-fmt-ignore
const VALUES: readonly unknown[] = [
  null, true, false, 0, -0, 1, 2, 3, 4, 1.5, -1, 0.25, 0.5, 12, NaN, Infinity, -Infinity, 1e300,
  "", "a", "ab", "abc", "abcd", "Ab", "💩💩", "\ud83d", "v3", "v11", "b",
  [], [1], [1, 2], [1, 1], ["a", 2], ["a", 2, 3], ["a", "b"], ["a", "a"], ["a", "b", "c", "d"],
  [{}, [1, "x"]], [[], [1, 2]], [-1, 5, 2], [1, 2, 3, 4], [{ a: [1] }], [1, 2, 1],
  {}, { text: "a" }, { text: 1 }, { name: "n", text: "t" }, { text: "t", name: 1, n: 1 }, { n: 1, name: 1 },
  { a: 1, b: "x" }, { b: 1, a: "x", c: 1 }, { a: 1.5, z: "no" }, { b: 5, bb: 20, c: 1 }, { a: 1, ab: 2 },
  { A: 1, b: 2 }, { a: 1, b: 2, c: 3, d: 4 }, { a: 1 }, { a: 2, b: 1 }, { a: 1, b: 1, c: 1 }, { b: 1 },
  { a: undefined, b: 1 }, { kind: 1 }, { v: 1, next: { v: 2, next: { v: "3" } } }, { v: 1, next: {} },
  { a: [{ a: [] }, 1], b: [[]] }, { outer: {} }, { outer: { inner: 1 } }, { outer: [] },
  { a: [1], b: "x" }, { constructor: "c", toString: 1 }, JSON.parse('{ "__proto__": 1, "constructor": 2 }'),
  JSON.parse('{ "constructor": "x", "text": 1 }'),
  // Values that are not JSON: every backend must still agree.
  Object.assign(Object.create(null), { text: 1, name: "x" }),
  Object.create({ text: "inherited", a: 1 }),
  new Shape(),
  new Date(0),
  new Map([["text", 1]]),
  // deno-lint-ignore no-sparse-arrays
  [, 1],
  // deno-lint-ignore no-sparse-arrays
  ["a", , "b"],
  () => 1,
  undefined,
];

Deno.test("compileSchema() reports the same violations with both backends", () => {
  for (const schema of SCHEMAS) {
    const [generated, closures] = both(schema);
    for (const value of VALUES) {
      const context = `${JSON.stringify(schema)} on ${Deno.inspect(value)}`;
      assert.deepEqual(generated(value), closures(value), context);
    }
  }
});

Deno.test("compileSchema() reports in the value's key order with both backends", () => {
  const [generated, closures] = both({
    properties: { a: { type: "string" }, b: { type: "string" } },
    required: ["b", "a", "c"],
  });
  const expected = ["$.b type", "$.a type", "$ required"];
  for (const validate of [generated, closures]) {
    const found = validate({ b: 1, a: 2 }).map(({ path, keyword }) => `${path} ${keyword}`);
    assert.deepEqual(found, expected);
  }
});

Deno.test("compileSchema() generates code that grows linearly with nesting and sharing", () => {
  // Objects nested 40 deep, each read by name on plain objects and walked on others.
  let nested: JsonSchema = { type: "string" };
  let value: unknown = "leaf";
  for (let depth = 0; depth < 40; depth++) {
    nested = { type: "object", properties: { a: nested }, required: ["a"] };
    value = { a: value };
  }
  // A schema that reaches one object 2^30 ways.
  let shared: JsonSchema = { type: "integer" };
  let deep: unknown = 1.5;
  for (let depth = 0; depth < 30; depth++) {
    shared = { properties: { a: shared, b: shared } };
    deep = depth % 2 === 0 ? { a: deep, b: 1 } : { b: deep };
  }
  const sources = sourcesOf(() => {
    const [generated, closures] = both(nested);
    assert.deepEqual(generated(value), []);
    assert.deepEqual(generated(Object.create(null)), closures(Object.create(null)));
    const [sharedGenerated, sharedClosures] = both(shared);
    assert.deepEqual(sharedGenerated(deep), sharedClosures(deep));
    assert.deepEqual(sharedGenerated(deep).map((v) => v.path), [`$${".b.a".repeat(15)}`]);
  });
  assert.equal(sources.length, 2);
  const [nestedSource = "", sharedSource = ""] = sources;
  // About 2.5 KB a level: the inlined path for plain objects, and a function per level for others.
  assert.ok(nestedSource.length < 150_000, `nested: ${nestedSource.length} characters`);
  assert.ok(sharedSource.length < 40_000, `shared: ${sharedSource.length} characters`);
});
