/**
 * The conformance fixture over stdio (`--stdio`): the suite itself speaks
 * HTTP only (`deno task conformance`), so this checks that the same fixture
 * serves the stdio transport too.
 */

import assert from "node:assert/strict";
import { isRecord, resultOf } from "../_helpers/helpers.ts";
import { spawnServer } from "../_helpers/subprocess.ts";

Deno.test("examples/conformance.ts --stdio serves its tools, resources and prompts", async () => {
  const fixture = spawnServer(["run", "examples/conformance.ts", "--stdio"]);
  try {
    await fixture.initialize();
    const tools = resultOf(await fixture.call("tools/list")).tools;
    assert.ok(Array.isArray(tools));
    const names = tools.filter(isRecord).map((tool) => tool.name);
    for (const name of ["test_simple_text", "test_sampling", "json_schema_2020_12_tool"]) {
      assert.ok(names.includes(name), `${name} missing from ${JSON.stringify(names)}`);
    }
    assert.deepEqual(resultOf(await fixture.call("tools/call", { name: "test_simple_text" })), {
      content: [{ type: "text", text: "This is a simple text response for testing." }],
    });
    const failed = resultOf(await fixture.call("tools/call", { name: "test_error_handling" }));
    assert.equal(failed.isError, true);
    const read = resultOf(
      await fixture.call("resources/read", { uri: "test://template/123/data" }),
    );
    assert.deepEqual(read.contents, [{
      uri: "test://template/123/data",
      mimeType: "application/json",
      text: '{"id":"123","templateTest":true,"data":"Data for ID: 123"}',
    }]);
    const prompt = resultOf(
      await fixture.call("prompts/get", {
        name: "test_prompt_with_arguments",
        arguments: { arg1: "a", arg2: "b" },
      }),
    );
    assert.match(JSON.stringify(prompt.messages), /arg1='a', arg2='b'/);
    await fixture.closeInput();
    assert.equal((await fixture.status).code, 0);
  } finally {
    await fixture.cleanUp();
  }
});
