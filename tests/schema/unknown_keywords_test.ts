import assert from "node:assert/strict";
import { compileSchema, type JsonSchema } from "../../schema.ts";
import { createServer, defineTool } from "../../mod.ts";
import { loadGenerator } from "../../src/schema/compile.ts";

// The code generator loads on a validator's first call; the generated backend is tested once it has.
await loadGenerator();

// Schemas as other generators emit them: keywords Warden has no rule for.
const GENERATED = {
  type: "object",
  properties: { a: { type: "string", nullable: true } },
  discriminator: { propertyName: "a" },
  errorMessage: "bad input",
} as unknown as JsonSchema;

for (const codegen of [true, false]) {
  Deno.test(`unknown keywords are annotations: accepted and ignored (codegen ${codegen})`, () => {
    const validate = compileSchema(GENERATED, { codegen });
    assert.deepEqual(validate({ a: "x" }), []);
    assert.equal(validate({ a: 1 }).length, 1);
  });
}

Deno.test("a near miss of a known keyword is refused by default, naming the fix", () => {
  assert.throws(
    () => compileSchema({ type: "object", requried: ["a"] } as unknown as JsonSchema),
    /unsupported schema keyword 'requried' at # \(did you mean 'required'\?\)/,
  );
  assert.throws(
    () => compileSchema({ type: "string", minLenght: 2 } as unknown as JsonSchema),
    /did you mean 'minLength'/,
  );
});

Deno.test("an earlier draft's keyword is refused by default with what 2020-12 uses instead", () => {
  for (
    const [keyword, hint] of [
      ["dependencies", /dependentRequired or dependentSchemas/],
      ["additionalItems", /items after prefixItems/],
      ["$recursiveRef", /\$dynamicRef/],
    ] as const
  ) {
    assert.throws(
      () => compileSchema({ [keyword]: {} } as unknown as JsonSchema),
      hint,
      keyword,
    );
  }
});

Deno.test('unknownKeywords: "annotate" accepts near misses too; "refuse" refuses every unknown keyword', () => {
  const typo = { type: "object", requried: ["a"] } as unknown as JsonSchema;
  assert.deepEqual(compileSchema(typo, { unknownKeywords: "annotate" })({}), []);
  assert.throws(
    () => compileSchema(GENERATED, { unknownKeywords: "refuse" }),
    /unsupported schema keyword '(discriminator|nullable|errorMessage)'/,
  );
  // x- keys are extensions, never refused.
  compileSchema({ type: "object", "x-internal": true } as unknown as JsonSchema, {
    unknownKeywords: "refuse",
  });
  assert.throws(
    // deno-lint-ignore no-explicit-any
    () => compileSchema({}, { unknownKeywords: "maybe" as any }),
    /unknownKeywords must be "annotate", "refuse-typos" or "refuse"/,
  );
});

Deno.test("a tool whose schema carries another generator's keywords registers and lists them unchanged", async () => {
  const server = createServer({
    name: "gen",
    version: "1.0.0",
    tools: [defineTool({
      name: "t",
      description: "generated schema",
      inputSchema: {
        type: "object",
        properties: { a: { type: "string" } },
        discriminator: { propertyName: "a" },
      },
      handler: () => "ok",
    })],
  });
  const reply = await server.handle({ jsonrpc: "2.0", id: 1, method: "tools/list" }) as unknown as {
    result: { tools: { inputSchema: Record<string, unknown> }[] };
  };
  assert.deepEqual(reply.result.tools[0]?.inputSchema.discriminator, { propertyName: "a" });
});
