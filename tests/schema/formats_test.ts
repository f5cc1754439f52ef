/**
 * `format`: an annotation by default, asserted with `formats: "assert"` or
 * a dialect using the format-assertion vocabulary. The asserted formats run
 * the JSON Schema Test Suite's optional format files, with both backends.
 */
import assert from "node:assert/strict";
import { compileSchema } from "../../src/schema/compile.ts";
import { loadRemotes, suiteRoot } from "../_helpers/schema_suite.ts";
import type { SuiteGroup } from "../_helpers/schema_suite.ts";
import { BACKENDS } from "../_helpers/schema_helpers.ts";

// deno-fmt-ignore
const ASSERTED = [
  "date", "time", "date-time", "duration", "email", "ipv4", "ipv6", "uuid", "uri",
  "uri-reference", "uri-template", "json-pointer", "relative-json-pointer", "regex",
  // Names Warden does not assert must pass anything, asserted or not.
  "unknown",
];

const root = suiteRoot();
const SKIP = { ignore: root === undefined };
const remotes = root === undefined ? {} : await loadRemotes(root);

async function groups(path: string): Promise<SuiteGroup[]> {
  return JSON.parse(await Deno.readTextFile(`${root}/draft2020-12/optional/${path}`));
}

for (const name of ASSERTED) {
  Deno.test(
    `compileSchema({ formats: "assert" }) passes the suite's format: ${name}`,
    SKIP,
    async () => {
      for (const group of await groups(`format/${name}.json`)) {
        for (const [backend, options] of BACKENDS) {
          const validate = compileSchema(group.schema, { ...options, formats: "assert" });
          for (const { description, data, valid } of group.tests) {
            const violations = validate(data);
            assert.equal(
              violations.length === 0,
              valid,
              `${group.description}: ${description} (${backend})`,
            );
            if (!valid) assert.equal(violations[0]?.keyword, "format");
          }
        }
      }
    },
  );
}

Deno.test(
  "compileSchema() asserts format under a dialect using format-assertion",
  SKIP,
  async () => {
    for (const group of await groups("format-assertion.json")) {
      for (const [backend, options] of BACKENDS) {
        const validate = compileSchema(group.schema, { ...options, schemas: remotes });
        for (const { description, data, valid } of group.tests) {
          assert.equal(validate(data).length === 0, valid, `${description} (${backend})`);
        }
      }
    }
  },
);

Deno.test("compileSchema() treats format as an annotation by default", () => {
  for (const [backend, options] of BACKENDS) {
    const validate = compileSchema({ type: "string", format: "date" }, options);
    assert.deepEqual(validate("not a date"), [], backend);
    const asserted = compileSchema({ type: "string", format: "date" }, {
      ...options,
      formats: "assert",
    });
    assert.deepEqual(asserted("2026-02-30"), [
      { path: "$", keyword: "format", message: 'must match format "date"' },
    ], backend);
    // Only strings have a format.
    assert.deepEqual(asserted(20260203), [{
      path: "$",
      keyword: "type",
      message: "must be string",
    }]);
  }
  assert.throws(
    // @ts-expect-error: not one of the two modes
    () => compileSchema(true, { formats: "strict" }),
    new TypeError('Cannot compile schema: formats must be "annotate" or "assert", not "strict"'),
  );
});
