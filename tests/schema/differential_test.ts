/**
 * Differential test: generated code and closures must report the same
 * violations, in the same order, for every schema of the JSON Schema Test
 * Suite (draft2020-12) and for many more values than the suite's own: each
 * case's value, that value with each property or item dropped, nulled or
 * changed, and a handful of plain values; plus extra schemas that mix
 * references, dynamic scopes and run-time `unevaluated*`.
 */
import assert from "node:assert/strict";
import { compileSchema, loadGenerator } from "../../src/schema/compile.ts";
import type { JsonSchema } from "../../src/schema/types.ts";
import { loadRemotes, loadSuite, suiteRoot } from "../_helpers/schema_suite.ts";

// The code generator loads on a validator's first call; the generated backend is tested once it has.
await loadGenerator();

// Without WARDEN_SHARED the whole-suite test is ignored; the extra schemas need no remote.
const root = suiteRoot();
const SKIP = { ignore: root === undefined };
const remotes = root === undefined ? {} : await loadRemotes(root);
const files = root === undefined ? [] : await loadSuite(root);

const PLAIN: readonly unknown[] = [null, true, 0, -1, 1.5, "", "abc", [], [1, "a", null], {}, {
  a: 1,
}];

/** The value and variations of it one step away. */
function variations(value: unknown): unknown[] {
  const found: unknown[] = [value];
  if (Array.isArray(value)) {
    found.push([...value, "extra"], value.slice(1));
    value.forEach((_, i) => {
      for (const replacement of [null, "x", 2, {}]) found.push(value.with(i, replacement));
    });
  } else if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value);
    found.push({ ...value, extra: 1 });
    entries.forEach(([key], i) => {
      found.push(Object.fromEntries(entries.filter((_, j) => j !== i)));
      for (const replacement of [null, "x", 2, [1], { a: [] }]) {
        found.push({ ...value, [key]: replacement });
      }
    });
  }
  return found;
}

function compare(schema: JsonSchema, values: readonly unknown[], label: string): number {
  const generated = compileSchema(schema, { schemas: remotes });
  const closures = compileSchema(schema, { schemas: remotes, codegen: false });
  for (const value of values) {
    assert.deepEqual(generated(value), closures(value), `${label}: ${JSON.stringify(value)}`);
  }
  return values.length;
}

Deno.test(
  "compileSchema() backends agree on the whole suite and its variations",
  SKIP,
  async (t) => {
    let compared = 0;
    for (const { name, groups } of files) {
      await t.step(name, () => {
        for (const group of groups) {
          const values = [...group.tests.flatMap(({ data }) => variations(data)), ...PLAIN];
          compared += compare(group.schema, values, `${name}: ${group.description}`);
        }
      });
    }
    // Far more than the 1,299 cases: the variations are the point.
    assert.ok(compared > 10_000, `${compared} values compared`);
  },
);

// deno-fmt-ignore
const EXTRA: readonly [string, JsonSchema, readonly unknown[]][] = [
  ["a tree whose nodes an extension closes with $dynamicRef", {
    $id: "https://example.com/strict-tree.json",
    $dynamicAnchor: "node",
    $ref: "https://example.com/tree.json",
    unevaluatedProperties: false,
    $defs: {
      tree: {
        $id: "https://example.com/tree.json",
        $dynamicAnchor: "node",
        type: "object",
        properties: { data: true, children: { type: "array", items: { $dynamicRef: "#node" } } },
      },
    },
  }, [{ children: [{ data: 1 }] }, { children: [{ daat: 1 }] }, { children: [{ children: [{ x: 1 }] }], y: 2 }]],
  ["run-time unevaluated with allOf, anyOf, if and dependentSchemas", {
    allOf: [{ properties: { kind: { enum: ["a", "b"] } } }],
    anyOf: [{ properties: { a: { type: "integer" } }, required: ["a"] }, { properties: { b: true } }],
    if: { properties: { kind: { const: "a" } } },
    then: { properties: { extra: { type: "string" } } },
    dependentSchemas: { b: { properties: { c: true } } },
    unevaluatedProperties: { type: "boolean" },
  }, [{ kind: "a", a: 1, extra: "x" }, { kind: "b", b: 1, c: 2, extra: "x" }, { kind: "a", a: "1", z: 3 }, { q: true, r: 0 }]],
  ["subschemas shared along nested applicators (remembered per value)", {
    $defs: { item: { type: "object", properties: { n: { type: "integer", minimum: 1 } }, required: ["n"] } },
    allOf: [
      { $ref: "#/$defs/item" },
      { anyOf: [{ $ref: "#/$defs/item" }, { allOf: [{ $ref: "#/$defs/item" }, { $ref: "#/$defs/item" }] }] },
      { oneOf: [{ $ref: "#/$defs/item" }, { not: { $ref: "#/$defs/item" } }] },
    ],
    properties: { next: { allOf: [{ $ref: "#" }, { $ref: "#" }] } },
  }, [{ n: 1 }, { n: 0 }, { n: 1, next: { n: 2, next: { m: 1 } } }, { next: { next: {} } }]],
  ["run-time unevaluatedItems with contains and anyOf", {
    prefixItems: [{ type: "string" }],
    anyOf: [{ prefixItems: [true, { type: "number" }] }, { contains: { type: "null" } }],
    unevaluatedItems: { type: "boolean" },
  }, [["a", 1, true], ["a", null, false], ["a", "b", null, 3], [1, 2, 3]]],
];

Deno.test("compileSchema() backends agree on references, dynamic scopes and unevaluated*", () => {
  for (const [name, schema, values] of EXTRA) {
    compare(schema, [...values.flatMap(variations), ...PLAIN], name);
  }
});
