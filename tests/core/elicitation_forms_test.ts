/**
 * `checkElicitSchema()`: the flat forms elicitation allows (every SEP-1330
 * enum form, SEP-1034 defaults) and a message for each thing it refuses.
 */

import assert from "node:assert/strict";
import { checkElicitSchema } from "../../src/core/elicitation_forms.ts";
import { SEP1034_FORM, SEP1330_FORM } from "../_helpers/eliciting_server.ts";

Deno.test("checkElicitSchema() accepts every SEP-1330 form and default, and refuses the rest", () => {
  checkElicitSchema(SEP1034_FORM);
  checkElicitSchema(SEP1330_FORM);
  checkElicitSchema({
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties: {
      colors: {
        type: "array",
        title: "Colours",
        minItems: 1,
        maxItems: 2,
        items: { type: "string", enum: ["Red", "Green", "Blue"] },
        default: ["Red", "Green"],
      },
      hex: {
        type: "string",
        oneOf: [{ const: "#FF0000", title: "Red" }, { const: "#00FF00", title: "Green" }],
        default: "#FF0000",
      },
      email: { type: "string", format: "email", minLength: 3, default: "a@b.c" },
      legacy: { type: "string", enum: ["a", "b"], enumNames: ["A", "B"], default: "b" },
    },
    required: ["colors"],
  });
  const field = (definition: unknown) => ({ type: "object", properties: { f: definition } });
  const cases: [schema: unknown, message: string][] = [
    [{ type: "object", properties: {}, title: "x" }, "unsupported keyword 'title'"],
    [field({ type: "object", properties: {} }), "field 'f': must be a string, number,"],
    [field({ type: "array", items: { type: "number" } }), "field 'f': items must be"],
    [field({ type: "array", items: { type: "string" } }), "field 'f': items must be"],
    [field({ type: "array", items: { type: "string", enum: [1] } }), "field 'f': items must be"],
    [
      field({ type: "array", items: { anyOf: [{ const: 1, title: "One" }] } }),
      "field 'f': items must be",
    ],
    [field({ type: "string", pattern: "^a" }), "field 'f': unsupported keyword 'pattern'"],
    [field({ type: "number", enum: [1, 2] }), "field 'f': unsupported keyword 'enum'"],
    [
      field({ type: "string", enum: ["a"], format: "email" }),
      "field 'f': unsupported keyword 'format'",
    ],
    [field({ type: "string", oneOf: [{ const: "a", title: 1 }] }), "field 'f': oneOf must be"],
    [field({ type: "string", oneOf: [{ const: 1, title: "One" }] }), "field 'f': oneOf must be"],
    [
      field({ type: "string", oneOf: [{ const: "a", title: "A", x: 1 }] }),
      "field 'f': oneOf must be",
    ],
    [field({ type: "string", oneOf: [] }), "field 'f': oneOf must be"],
    [
      field({ type: "string", enum: ["a"], oneOf: [{ const: "a", title: "A" }] }),
      "field 'f': takes enum or oneOf, not both",
    ],
    [field({ type: "string", enum: [] }), "field 'f': enum must be a non-empty list of strings"],
    [
      field({ type: "string", enum: ["a", "b"], enumNames: ["A"] }),
      "field 'f': enumNames must be strings, one per enum value",
    ],
    [field({ type: "string", enumNames: ["A"] }), "field 'f': enumNames needs enum"],
    [
      field({ type: "string", format: "phone" }),
      "field 'f': format must be email, uri, date or date-time",
    ],
    [field({ type: "string", title: 3 }), "field 'f': title must be a string"],
    [
      field({ type: "string", minLength: -1 }),
      "field 'f': 'minLength' must be a non-negative integer at #",
    ],
    [
      field({ type: "string", default: 3 }),
      "field 'f': default does not fit the field: $ must be string",
    ],
    [
      field({ type: "integer", default: 1.5 }),
      "field 'f': default does not fit the field: $ must be integer",
    ],
    [
      field({ type: "integer", minimum: 1, default: 0 }),
      "field 'f': default does not fit the field: $ must be >= 1",
    ],
    [
      field({ type: "boolean", default: "yes" }),
      "field 'f': default does not fit the field: $ must be boolean",
    ],
    [
      field({ type: "string", enum: ["a"], default: "b" }),
      "field 'f': default does not fit the field: $ must be one of \"a\"",
    ],
    [
      field({ type: "string", oneOf: [{ const: "a", title: "A" }], default: "b" }),
      "field 'f': default does not fit the field: $ must match exactly one schema in oneOf",
    ],
    [
      field({ type: "array", items: { type: "string", enum: ["a"] }, default: ["b"] }),
      "field 'f': default does not fit the field: $[0]",
    ],
    [
      field({ type: "array", items: { type: "string", enum: ["a"] }, default: "a" }),
      "field 'f': default does not fit the field: $ must be array",
    ],
    [
      { type: "object", properties: { f: { type: "string" } }, required: ["g"] },
      "required must list declared fields",
    ],
  ];
  for (const [schema, message] of cases) {
    assert.throws(
      () => checkElicitSchema(schema),
      (error: unknown) =>
        error instanceof TypeError &&
        error.message.startsWith(`Invalid elicitation schema: ${message}`),
      `${JSON.stringify(schema)} → ${message}`,
    );
  }
});
