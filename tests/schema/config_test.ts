/**
 * checkConfig() and checkPlainData(): configuration shapes checked by the
 * library's own validator, with errors that name the place.
 */

import assert from "node:assert/strict";
import { checkConfig, checkPlainData, ownField } from "../../src/schema/config.ts";
import type { JsonSchemaObject } from "../../src/schema/types.ts";

const LIMITS: JsonSchemaObject = {
  type: "object",
  properties: {
    name: { type: "string", minLength: 1 },
    mode: { enum: ["fast", "safe"] },
    rules: {
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        properties: { size: { type: "number", exclusiveMinimum: 0 } },
        additionalProperties: false,
      },
    },
    owners: { type: "object", additionalProperties: { type: "string" } },
  },
  additionalProperties: false,
};

Deno.test("checkConfig() accepts a matching value, undefined fields counting as absent", () => {
  checkConfig(LIMITS, { name: "a", mode: "safe", rules: [{ size: 2 }] }, "Invalid limits");
  checkConfig(LIMITS, { name: "a", mode: undefined }, "Invalid limits");
});

Deno.test("checkConfig() throws the first violation, naming its place", () => {
  const cases: [value: unknown, error: Error][] = [
    [null, new TypeError("Invalid limits: the top level must be object, got null")],
    [{ name: 3 }, new TypeError("Invalid limits: name must be string, got number")],
    [
      { rules: [{ size: NaN }] },
      new TypeError("Invalid limits: rules[0].size must be number, got NaN"),
    ],
    [{ rules: [{ size: 0 }] }, new RangeError("Invalid limits: rules[0].size must be > 0, got 0")],
    [{ rules: [] }, new RangeError("Invalid limits: rules must NOT have fewer than 1 item")],
    [
      { mode: "slow" },
      new RangeError('Invalid limits: mode must be one of "fast", "safe", got "slow"'),
    ],
    [
      { nmae: "a" },
      new TypeError(
        'Invalid limits: unknown key "nmae" at the top level, expected one of name, mode, rules, owners',
      ),
    ],
    [
      { rules: [{ size: 1, sise: 2 }] },
      new TypeError('Invalid limits: unknown key "sise" at rules[0], expected one of size'),
    ],
    [
      { owners: { "a.b": 1 } },
      new TypeError('Invalid limits: owners["a.b"] must be string, got number'),
    ],
  ];
  for (const [value, error] of cases) {
    assert.throws(() => checkConfig(LIMITS, value, "Invalid limits"), error);
  }
});

Deno.test("checkConfig() places a section inside a larger configuration, or opens with nothing", () => {
  assert.throws(
    () => checkConfig(LIMITS, { rules: [{ size: -1 }] }, "", "limits"),
    new RangeError("limits.rules[0].size must be > 0, got -1"),
  );
  assert.throws(
    () => checkConfig(LIMITS, "fast", "", "limits"),
    new TypeError("limits must be object, got string"),
  );
});

Deno.test("checkPlainData() refuses what a schema would take for an empty object", () => {
  const cyclic: Record<string, unknown> = { a: {} };
  cyclic.b = cyclic;
  const cases: [value: unknown, message: string][] = [
    [new Map(), "Invalid x: the top level must be a plain object, got Map"],
    [{ tools: { deny: new Set() } }, "Invalid x: tools.deny must be a plain object, got Set"],
    [{ rules: [{}, , {}] }, "Invalid x: rules[1] is missing (a hole in the list)"],
    [cyclic, "Invalid x: b contains itself"],
  ];
  for (const [value, message] of cases) {
    assert.throws(() => checkPlainData(value, "Invalid x"), new TypeError(message));
  }
  checkPlainData({ a: [1, "b", null, { c: Object.create(null) }] }, "Invalid x");
  const shared = { size: 1 };
  checkPlainData({ rules: [shared, shared] }, "Invalid x");
});

Deno.test("ownField() reads own properties only", () => {
  const inherited: { allow?: string[] } = Object.create({ allow: ["*"] });
  assert.equal(ownField(inherited, "allow"), undefined);
  assert.deepEqual(ownField({ allow: ["a"] }, "allow"), ["a"]);
});
