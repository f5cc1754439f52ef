/**
 * Warden's compiled schema validator against ajv's 2020-12 build on the same
 * schemas and inputs: a small schema (the `echo` tool's), a nested one (an
 * order with items), and one built from `$ref`s and `unevaluatedProperties`
 * (as generators emit them), each with a valid and an invalid input. ajv
 * runs with `allErrors: true` because `compileSchema()` also reports every
 * violation;
 * both are compiled once, outside the measurement. `compileSchema()` runs
 * with its default generated code and, for reference, with the closures it
 * falls back to where `new Function` is refused (`codegen: false`).
 *
 * ajv is pinned here, not in deno.json's import map: it is a benchmark
 * yardstick only, and nothing else in the project may import it. 8.20.0 is
 * the version deno.lock already resolves for the SDK, so the benchmark adds
 * no package to the lock file, only a specifier.
 *
 * Worst cases are measured too, with no target: `unevaluatedProperties`
 * over 10 and 30 nested `anyOf`s that each name the level below twice
 * (annotations collected at run time; evaluating each branch separately
 * costs 2^depth evaluations per call, and ajv, which does, overflows its
 * stack compiling 14 levels, so it runs the 10 only), and a `pattern` with nested quantifiers, whose
 * cost is the regular expression engine's backtracking on a hostile string
 * (the same in both validators: both use ECMAScript `RegExp`).
 *
 * Run: `deno bench tests/bench/schema_bench.ts`
 *
 * @module
 */

// deno-lint-ignore no-import-prefix
import { Ajv2020 } from "npm:ajv@8.20.0/dist/2020.js";
import { compileSchema, type JsonSchema } from "../../schema.ts";

const SMALL: JsonSchema = {
  type: "object",
  properties: { text: { type: "string" } },
  required: ["text"],
};

const NESTED: JsonSchema = {
  type: "object",
  properties: {
    order_id: { type: "string", pattern: "^ORD-[0-9]+$" },
    customer: {
      type: "object",
      properties: {
        name: { type: "string", minLength: 1 },
        email: { type: "string", maxLength: 254 },
      },
      required: ["name"],
      additionalProperties: false,
    },
    items: {
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        properties: {
          sku: { type: "string", pattern: "^[A-Z]+-[0-9]+$" },
          quantity: { type: "integer", minimum: 1, maximum: 1000 },
          price: { type: "number", exclusiveMinimum: 0 },
        },
        required: ["sku", "quantity"],
        additionalProperties: false,
      },
    },
    status: { enum: ["open", "shipped", "cancelled"] },
    tags: { type: "array", items: { type: "string" }, uniqueItems: true, maxItems: 10 },
  },
  required: ["order_id", "customer", "items", "status"],
  additionalProperties: false,
};

const validOrder = {
  order_id: "ORD-1042",
  customer: { name: "Ada", email: "ada@example.com" },
  items: [
    { sku: "LAMP-2", quantity: 1, price: 19.5 },
    { sku: "DESK-9", quantity: 2, price: 240 },
    { sku: "CHAIR-4", quantity: 4 },
    { sku: "PEN-100", quantity: 12, price: 0.8 },
  ],
  status: "open",
  tags: ["gift", "express"],
};

const invalidOrder = {
  order_id: "1042",
  customer: { name: "", phone: "555" },
  items: [{ sku: "lamp", quantity: 0 }, { sku: "DESK-9", quantity: 2.5, price: -1 }],
  status: "lost",
  tags: ["gift", "gift"],
};

/** An order as a generator emits it: shared definitions, `$ref`s and closed objects. */
const REFERENCED: JsonSchema = {
  $defs: {
    entity: {
      type: "object",
      properties: {
        id: { type: "string", pattern: "^[A-Z]+-[0-9]+$" },
        created: { type: "string", minLength: 10 },
      },
      required: ["id"],
    },
    money: {
      type: "object",
      properties: {
        amount: { type: "number", minimum: 0 },
        currency: { enum: ["EUR", "USD", "GBP"] },
      },
      required: ["amount", "currency"],
      unevaluatedProperties: false,
    },
    line: {
      $ref: "#/$defs/entity",
      properties: {
        quantity: { type: "integer", minimum: 1 },
        price: { $ref: "#/$defs/money" },
      },
      required: ["quantity", "price"],
      unevaluatedProperties: false,
    },
  },
  $ref: "#/$defs/entity",
  properties: {
    customer: { type: "string", minLength: 1 },
    lines: { type: "array", minItems: 1, items: { $ref: "#/$defs/line" } },
    total: { $ref: "#/$defs/money" },
  },
  required: ["customer", "lines", "total"],
  unevaluatedProperties: false,
};

const validReferenced = {
  id: "ORD-1042",
  created: "2026-12-03T07:00:00Z",
  customer: "Ada",
  lines: [
    { id: "LAMP-2", quantity: 1, price: { amount: 19.5, currency: "EUR" } },
    { id: "DESK-9", quantity: 2, price: { amount: 240, currency: "EUR" } },
    { id: "PEN-100", quantity: 12, price: { amount: 0.8, currency: "EUR" } },
  ],
  total: { amount: 509.1, currency: "EUR" },
};

const invalidReferenced = {
  id: "ord-1042",
  customer: "Ada",
  lines: [
    { id: "LAMP-2", quantity: 0, price: { amount: 19.5, currency: "YEN" } },
    { id: "DESK-9", quantity: 2, price: { amount: -1, currency: "EUR", tax: 1 }, note: "x" },
  ],
  total: { amount: 509.1, currency: "EUR" },
  coupon: "FREE",
};

/** `depth` nested `anyOf`s naming the level below twice, under `unevaluatedProperties`. */
function nestedAnyOf(depth: number): JsonSchema {
  let schema: JsonSchema = { properties: { a: { type: "number" } } };
  for (let level = 0; level < depth; level++) {
    const below: JsonSchema = schema;
    schema = { anyOf: [below, below], unevaluatedProperties: false };
  }
  return schema;
}

const ajv = new Ajv2020({ allErrors: true, strict: false });

/** Each case: the schema, an input, and whether that input is valid (checked below, once). */
export const cases: [group: string, schema: JsonSchema, input: unknown, valid: boolean][] = [
  ["small schema, valid input", SMALL, { text: "hello" }, true],
  ["small schema, invalid input", SMALL, { text: 42 }, false],
  ["nested schema, valid input", NESTED, validOrder, true],
  ["nested schema, invalid input", NESTED, invalidOrder, false],
  ["$ref and unevaluatedProperties, valid input", REFERENCED, validReferenced, true],
  ["$ref and unevaluatedProperties, invalid input", REFERENCED, invalidReferenced, false],
  // Groups named "schema worst case" carry no target (`report.ts` reads "schema: " only).
  ["worst case: 10 nested anyOf under unevaluatedProperties", nestedAnyOf(10), { a: 1 }, true],
  ["worst case: 30 nested anyOf under unevaluatedProperties", nestedAnyOf(30), { a: 1 }, true],
  [
    "worst case: pattern ^(a+)+$ on 22 a's and a b",
    { type: "string", pattern: "^(a+)+$" },
    `${"a".repeat(22)}b`,
    false,
  ],
];

// Keeps results alive so the optimiser cannot drop the calls.
let sink = 0;

for (const [name, schema, input, valid] of cases) {
  const group = name.startsWith("worst case: ") ? ` ${name}` : `: ${name}`;
  const warden = compileSchema(schema);
  const closures = compileSchema(schema, { codegen: false });
  // ajv's code doubles with each nested anyOf level: past 12 it cannot compile.
  const ajvValidate = name.startsWith("worst case: 30") ? undefined : ajv.compile(schema);
  const verdicts = [
    warden(input).length === 0,
    closures(input).length === 0,
    ajvValidate?.(input) ?? valid,
  ];
  if (verdicts.some((verdict) => verdict !== valid)) {
    throw new Error(`The validators disagree with the expected verdict on "${name}"`);
  }
  Deno.bench({ name: "compileSchema()", group: `schema${group}`, baseline: true }, () => {
    sink += warden(input).length;
  });
  Deno.bench({ name: "compileSchema() closures", group: `schema${group}` }, () => {
    sink += closures(input).length;
  });
  if (ajvValidate === undefined) continue;
  // The name `report.ts` reads; it is ajv's 2020-12 build.
  Deno.bench({ name: "ajv 8.20.0 (allErrors)", group: `schema${group}` }, () => {
    sink += ajvValidate(input) ? 0 : (ajvValidate.errors?.length ?? 0);
  });
}

globalThis.addEventListener("unload", () => {
  if (sink < 0) console.log(sink);
});
