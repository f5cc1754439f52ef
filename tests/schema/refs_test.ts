import assert from "node:assert/strict";
import { compileSchema } from "../../src/schema/compile.ts";
import type { JsonSchema } from "../../src/schema/types.ts";
import { BACKENDS } from "../_helpers/schema_helpers.ts";

const ADDRESS: JsonSchema = {
  $id: "https://example.com/address.json",
  type: "object",
  properties: { city: { type: "string" }, zip: { $ref: "#/$defs/zip" } },
  required: ["city"],
  $defs: { zip: { $anchor: "zip", type: "string", pattern: "^[0-9]{5}$" } },
};

Deno.test("compileSchema() resolves references to documents given in the schemas option", () => {
  const schema: JsonSchema = {
    $id: "https://example.com/order.json",
    type: "object",
    properties: {
      billing: { $ref: "address.json" },
      shipping: { $ref: "https://example.com/address.json" },
      zip: { $ref: "address.json#zip" },
    },
  };
  for (const [backend, options] of BACKENDS) {
    const validate = compileSchema(schema, {
      ...options,
      schemas: { "https://example.com/address.json": ADDRESS },
    });
    assert.deepEqual(validate({ billing: { city: "Oslo" }, zip: "12345" }), [], backend);
    assert.deepEqual(
      validate({ billing: { zip: "1" }, shipping: { city: 3 } }).map((v) =>
        `${v.path} ${v.keyword}`
      ),
      ["$.billing.zip pattern", "$.billing required", "$.shipping.city type"],
      backend,
    );
  }
});

Deno.test("compileSchema() never fetches: an unknown remote reference is refused, naming it", () => {
  const fetched: unknown[] = [];
  const realFetch = globalThis.fetch;
  globalThis.fetch = (input) => {
    fetched.push(input);
    return Promise.reject(new Error("no network"));
  };
  try {
    assert.throws(
      () => compileSchema({ $ref: "https://example.com/address.json" }),
      new TypeError(
        "Cannot compile schema: $ref 'https://example.com/address.json' names 'https://example.com/address.json', which is not among the schemas given (nothing is fetched: pass it in the schemas option) at #/$ref",
      ),
    );
    assert.deepEqual(fetched, []);
  } finally {
    globalThis.fetch = realFetch;
  }
});

Deno.test("compileSchema() validates schemas against the bundled 2020-12 meta-schema", () => {
  for (const [backend, options] of BACKENDS) {
    const validate = compileSchema(
      { $ref: "https://json-schema.org/draft/2020-12/schema" },
      options,
    );
    assert.deepEqual(
      validate({ type: "object", properties: { a: { minLength: 1 } } }),
      [],
      backend,
    );
    assert.deepEqual(validate({ properties: { a: { minLength: -1 } } }).map((v) => v.path), [
      "$.properties.a.minLength",
    ], backend);
    // Each vocabulary's meta-schema says what it says about the value.
    const violations = validate({ unevaluatedItems: 3 });
    assert.ok(violations.length > 0, backend);
    assert.ok(violations.every((v) => v.path === "$.unevaluatedItems"), backend);
  }
});

Deno.test("compileSchema() honours a meta-schema's $vocabulary and refuses unknown required ones", () => {
  const base = "https://example.com/meta";
  const noValidation = {
    $id: `${base}/no-validation`,
    $vocabulary: {
      "https://json-schema.org/draft/2020-12/vocab/core": true,
      "https://json-schema.org/draft/2020-12/vocab/applicator": true,
    },
  };
  const custom = {
    $id: `${base}/custom`,
    $vocabulary: {
      "https://json-schema.org/draft/2020-12/vocab/core": true,
      "https://example.com/vocab/units": true,
    },
  };
  const schemas = { [`${base}/no-validation`]: noValidation, [`${base}/custom`]: custom };
  for (const [backend, options] of BACKENDS) {
    const validate = compileSchema({
      $schema: `${base}/no-validation`,
      properties: { n: { minimum: 10 }, never: false },
    }, { ...options, schemas });
    assert.deepEqual(validate({ n: 1 }), [], backend);
    assert.equal(validate({ never: 1 }).length, 1, backend);
    assert.throws(
      () => compileSchema({ $schema: `${base}/custom` }, { ...options, schemas }),
      /the dialect 'https:\/\/example\.com\/meta\/custom' requires the unsupported vocabulary 'https:\/\/example\.com\/vocab\/units' at #$/,
    );
  }
});

Deno.test("compileSchema() refuses schemas option keys that are not absolute URIs", () => {
  for (const key of ["address.json", "https://example.com/a.json#frag"]) {
    assert.throws(
      () => compileSchema(true, { schemas: { [key]: true } }),
      new TypeError(
        `Cannot compile schema: the schemas option needs absolute URIs without a fragment, not '${key}' at #`,
      ),
    );
  }
});

/** A schema nesting `depth` levels of `properties`. */
function deep(depth: number): JsonSchema {
  let schema: JsonSchema = { type: "string" };
  for (let i = 0; i < depth; i++) schema = { properties: { a: schema } };
  return schema;
}

Deno.test("compileSchema() bounds schema depth and size at registration, naming the limit", () => {
  assert.doesNotThrow(() => compileSchema(deep(64)));
  assert.throws(
    () => compileSchema(deep(65)),
    (error: unknown) =>
      error instanceof RangeError &&
      /^Cannot compile schema: schemas nest deeper than the limit of 64 \(maxSchemaDepth\) at #(\/properties\/a){65}$/
        .test(error.message),
  );
  assert.throws(() => compileSchema(deep(10), { maxSchemaDepth: 9 }), RangeError);
  const wide: JsonSchema = {
    properties: Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`p${i}`, {}])),
  };
  assert.throws(
    () => compileSchema(wide),
    new RangeError(
      "Cannot compile schema: the schema has more than 10000 subschemas (maxSchemaNodes) at #/properties/p9999",
    ),
  );
  assert.doesNotThrow(() => compileSchema(wide, { maxSchemaNodes: 10_001 }));
  // Remote documents count too.
  assert.throws(
    () =>
      compileSchema({ $ref: "https://example.com/wide.json" }, {
        schemas: { "https://example.com/wide.json": wide },
      }),
    RangeError,
  );
  for (const bad of [0, -1, 1.5, NaN]) {
    assert.throws(
      () => compileSchema(true, { maxSchemaNodes: bad }),
      new RangeError(
        `Cannot compile schema: maxSchemaNodes must be a positive integer, not ${bad}`,
      ),
    );
  }
});

/** `count` resources, each defining its own dynamic anchor and referring to the next. */
function chain(count: number): JsonSchema {
  const defs: Record<string, JsonSchema> = {};
  for (let i = 0; i < count; i++) {
    defs[`r${i}`] = {
      $id: `https://example.com/r${i}.json`,
      $dynamicAnchor: `a${i}`,
      properties: {
        next: i + 1 < count ? { $ref: `r${i + 1}.json` } : { $dynamicRef: "r0.json#a0" },
        body: { properties: { x: { type: "string" } } },
      },
    };
  }
  return { $ref: "https://example.com/r0.json", $defs: defs };
}

Deno.test("compileSchema() bounds the copies $dynamicRef scopes make", () => {
  // Each resource is compiled once per scope it can be reached in: quadratic in the chain here.
  assert.doesNotThrow(() => compileSchema(chain(10)));
  assert.throws(
    () => compileSchema(chain(40)),
    (error: unknown) =>
      error instanceof RangeError &&
      /the schema compiles to more than 10000 subschemas \(maxSchemaNodes\)/.test(error.message),
  );
});

Deno.test("compileSchema() never runs a pattern on a string longer than maxLength", () => {
  const realTest = RegExp.prototype.test;
  let runs = 0;
  RegExp.prototype.test = function (this: RegExp, text: string): boolean {
    runs++;
    return realTest.call(this, text);
  };
  try {
    for (const [backend, options] of BACKENDS) {
      // Nested quantifiers backtrack exponentially on a's followed by a b.
      const validate = compileSchema(
        { type: "string", maxLength: 30, pattern: "^(a+)+$" },
        options,
      );
      runs = 0;
      const long = validate(`${"a".repeat(200)}b`);
      assert.deepEqual(long.map((v) => v.keyword), ["maxLength"], backend);
      assert.equal(runs, 0, backend);
      assert.deepEqual(validate("aab").map((v) => v.keyword), ["pattern"], backend);
      assert.ok(runs > 0, backend);
    }
  } finally {
    RegExp.prototype.test = realTest;
  }
});
