/**
 * Warden's compiled schema validator against ajv on the same schemas and
 * inputs: a small schema (the `echo` tool's) and a nested one (an order with
 * items), each with a valid and an invalid input. ajv runs with
 * `allErrors: true` because `compileSchema()` also reports every violation;
 * both are compiled once, outside the measurement. `compileSchema()` runs
 * with its default generated code and, for reference, with the closures it
 * falls back to where `new Function` is refused (`codegen: false`).
 *
 * ajv is pinned here, not in deno.json's import map: it is a benchmark
 * yardstick only, and nothing else in the project may import it. 8.20.0 is
 * the version deno.lock already resolves for the SDK, so the benchmark adds
 * no package to the lock file, only a specifier.
 *
 * Run: `deno bench tests/bench/schema_bench.ts`
 *
 * @module
 */

// deno-lint-ignore no-import-prefix
import { Ajv } from "npm:ajv@8.20.0";
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

const ajv = new Ajv({ allErrors: true });

/** Each case: the schema, an input, and whether that input is valid (checked below, once). */
const cases: [group: string, schema: JsonSchema, input: unknown, valid: boolean][] = [
  ["small schema, valid input", SMALL, { text: "hello" }, true],
  ["small schema, invalid input", SMALL, { text: 42 }, false],
  ["nested schema, valid input", NESTED, validOrder, true],
  ["nested schema, invalid input", NESTED, invalidOrder, false],
];

// Keeps results alive so the optimiser cannot drop the calls.
let sink = 0;

for (const [group, schema, input, valid] of cases) {
  const warden = compileSchema(schema);
  const closures = compileSchema(schema, { codegen: false });
  const ajvValidate = ajv.compile(schema);
  const verdicts = [warden(input).length === 0, closures(input).length === 0, ajvValidate(input)];
  if (verdicts.some((verdict) => verdict !== valid)) {
    throw new Error(`The validators disagree with the expected verdict on "${group}"`);
  }
  Deno.bench({ name: "compileSchema()", group: `schema: ${group}`, baseline: true }, () => {
    sink += warden(input).length;
  });
  Deno.bench({ name: "compileSchema() closures", group: `schema: ${group}` }, () => {
    sink += closures(input).length;
  });
  Deno.bench({ name: "ajv 8.20.0 (allErrors)", group: `schema: ${group}` }, () => {
    sink += ajvValidate(input) ? 0 : (ajvValidate.errors?.length ?? 0);
  });
}

globalThis.addEventListener("unload", () => {
  if (sink < 0) console.log(sink);
});
