import assert from "node:assert/strict";
import { compileSchema } from "../../src/schema/compile.ts";
import type { JsonSchema } from "../../src/schema/types.ts";
import { BACKENDS, counting } from "../_helpers/schema_helpers.ts";

/** `depth` levels of `keyword`, each naming the level below twice (one object, shared). */
function shared(depth: number, keyword: "anyOf" | "allOf" | "oneOf"): JsonSchema {
  let schema: JsonSchema = { type: "object", properties: { a: { type: "number" } } };
  for (let level = 0; level < depth; level++) {
    const below: JsonSchema = schema;
    schema = { [keyword]: [below, { $ref: "#/$defs/x" }, below] };
  }
  return { $defs: { x: { required: ["zzz"] } }, ...(typeof schema === "object" ? schema : {}) };
}

Deno.test("compileSchema() evaluates a subschema shared along nested applicators once per value", () => {
  const depth = 20; // 2^20 evaluations of the innermost schema otherwise
  for (const keyword of ["anyOf", "allOf", "oneOf"] as const) {
    const schema = shared(depth, keyword);
    for (const [backend, options] of BACKENDS) {
      const validate = compileSchema(schema, options);
      for (const value of [1, "one"]) {
        const probe = counting("a", value);
        validate(probe.object);
        assert.ok(probe.reads() <= 8, `${keyword}, ${backend}, ${value}: ${probe.reads()} reads`);
      }
    }
  }
});

Deno.test("compileSchema() reports a violation reached along several paths once", () => {
  const inner: JsonSchema = { type: "string" };
  let schema: JsonSchema = inner;
  for (let level = 0; level < 16; level++) schema = { allOf: [schema, schema] };
  for (const [backend, options] of BACKENDS) {
    assert.deepEqual(
      compileSchema(schema, options)(1),
      [{ path: "$", keyword: "type", message: "must be string" }],
      backend,
    );
    // Nothing is remembered from one call to the next.
    assert.deepEqual(compileSchema(schema, options)("ok"), [], backend);
    const validate = compileSchema(schema, options);
    assert.equal(validate(2).length, 1, backend);
    assert.equal(validate(2).length, 1, backend);
  }
});
