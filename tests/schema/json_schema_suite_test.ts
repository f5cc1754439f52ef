/**
 * Runs the official JSON Schema Test Suite (draft2020-12, every required
 * file) against `compileSchema`, with generated code and with closures:
 * both must give each case its verdict, and report the same violations.
 *
 * The suite is read from `json-schema-test-suite` in the shared folder that
 * `WARDEN_SHARED` names (`.ci/run` sets it). The documents in its
 * `remotes/` folder are given through the `schemas` option under the
 * `http://localhost:1234/` URIs the suite expects; nothing is fetched.
 * With `WARDEN_SHARED` unset (a user's clone) these tests are ignored with a
 * note; with it set and the suite missing they fail, so a gap never passes.
 */
import assert from "node:assert/strict";
import { compileSchema, loadGenerator } from "../../src/schema/compile.ts";
import type { JsonSchema } from "../../src/schema/types.ts";
import { loadRemotes, loadSuite, NOT_APPLICABLE, suiteRoot } from "../_helpers/schema_suite.ts";

// The code generator loads on a validator's first call; the generated backend is tested once it has.
await loadGenerator();

const root = suiteRoot();
const SKIP = { ignore: root === undefined };
const remotes = root === undefined ? {} : await loadRemotes(root);
const files = root === undefined ? [] : await loadSuite(root);

Deno.test("the JSON Schema Test Suite is there, with its 1,299 required cases", SKIP, () => {
  const cases = files.flatMap(({ groups }) => groups.flatMap((group) => group.tests)).length;
  assert.equal(cases, 1299);
});

for (const { name, groups } of files) {
  Deno.test(`compileSchema() passes the JSON Schema Test Suite: ${name}`, async (t) => {
    for (const group of groups) {
      await t.step(group.description, () => {
        const schema: JsonSchema = group.schema;
        const generated = compileSchema(schema, { schemas: remotes });
        const closures = compileSchema(schema, { schemas: remotes, codegen: false });
        for (const { description, data, valid } of group.tests) {
          const violations = generated(data);
          assert.equal(violations.length === 0, valid, `${description} (generated code)`);
          assert.equal(closures(data).length === 0, valid, `${description} (closures)`);
          for (const violation of violations) assert.match(violation.path, /^\$/, description);
          assert.deepEqual(closures(data), violations, `${description} (same violations)`);
        }
      });
    }
  });
}

Deno.test("the JSON Schema Test Suite has no case listed as not applicable", () => {
  assert.deepEqual(NOT_APPLICABLE, {});
});
