/**
 * What registration checks and publishes: icons on every kind of item, the
 * tool-name rules, and a tool whose input schema uses JSON Schema 2020-12.
 */

import assert from "node:assert/strict";
import { createServer, defineTool } from "../../mod.ts";
import { initialize, request, resultOf } from "../_helpers/helpers.ts";
import { ADD, type Message, onlyText } from "../_helpers/revision_peer.ts";

// ---------------------------------------------------------------------- icons

const ICONS = [
  { src: "https://example.com/icon.png", mimeType: "image/png", sizes: ["48x48"] },
  { src: "data:image/svg+xml;base64,PHN2Zy8+", mimeType: "image/svg+xml", theme: "dark" },
] as const;

Deno.test("icons on tools, resources, templates and prompts are published in their lists", async () => {
  const server = createServer({
    name: "s",
    version: "1",
    tools: [{ ...ADD, icons: ICONS }],
    resources: [{ uri: "test://a", name: "a", icons: ICONS, read: () => "a" }],
    resourceTemplates: [{ uriTemplate: "test://t/{id}", name: "t", icons: ICONS, read: () => "t" }],
    prompts: [{ name: "p", description: "P", icons: ICONS, get: () => "p" }],
  });
  await server.handle(initialize(0, "2025-11-25"));
  const lists = [
    ["tools/list", "tools"],
    ["resources/list", "resources"],
    ["resources/templates/list", "resourceTemplates"],
    ["prompts/list", "prompts"],
  ] as const;
  for (const [method, key] of lists) {
    const items = resultOf(await server.handle(request(1, method)))[key];
    assert.ok(Array.isArray(items) && items.length === 1, method);
    assert.deepEqual(items[0].icons, ICONS, method);
  }
  // Items without icons list none.
  const bare = createServer({ name: "s", version: "1", tools: [ADD] });
  const [tool] = resultOf(await bare.handle(request(1, "tools/list"))).tools as Message[];
  assert.equal(tool !== undefined && "icons" in tool, false);
});

Deno.test("registration refuses malformed icons, naming the item", () => {
  const server = createServer({ name: "s", version: "1" });
  const cases: [unknown, string][] = [
    ["icon.png", "Cannot register tool 'add': icons must be a list"],
    [[{ mimeType: "image/png" }], "Cannot register tool 'add': icon 0 needs a src URI"],
    [[{ src: "a" }, null], "Cannot register tool 'add': icon 1 must be an object"],
    [[{ src: "a", sizes: "48x48" }], "Cannot register tool 'add': icon 0 has sizes that are not"],
    [[{ src: "a", theme: "blue" }], "Cannot register tool 'add': icon 0 has a theme other than"],
  ];
  for (const [icons, message] of cases) {
    assert.throws(
      () => server.tool({ ...ADD, icons } as never),
      (error: unknown) => error instanceof TypeError && error.message.startsWith(message),
      message,
    );
  }
  assert.throws(
    () => server.prompt({ name: "p", icons: [{}] as never, get: () => "p" }),
    { name: "TypeError", message: "Cannot register prompt 'p': icon 0 needs a src URI" },
  );
  assert.throws(
    () => server.resource({ uri: "test://a", name: "a", icons: {} as never, read: () => "" }),
    { name: "TypeError", message: "Cannot register resource 'test://a': icons must be a list" },
  );
  assert.throws(
    () =>
      server.resourceTemplate({
        uriTemplate: "test://{id}",
        name: "t",
        icons: [{ src: 1 }] as never,
        read: () => "",
      }),
    {
      name: "TypeError",
      message: "Cannot register resource template 'test://{id}': icon 0 needs a src URI",
    },
  );
});

// ------------------------------------------------------------------ tool names

Deno.test("tool names must be 1 to 128 of A-Z a-z 0-9 _ . -, under every revision", () => {
  const cases: [name: string, valid: boolean][] = [
    ["a", true],
    ["x".repeat(128), true],
    ["getUser", true],
    ["DATA_EXPORT_v2", true],
    ["admin.tools.list", true],
    ["cancel-order", true],
    ["_", true],
    ["", false],
    ["x".repeat(129), false],
    ["x y", false],
    ["orders/get", false],
    ["tool,name", false],
    ["naïve", false],
    ["工具", false],
    ["emoji🙂", false],
    ["trailing\n", false],
  ];
  for (const [name, valid] of cases) {
    const server = createServer({ name: "s", version: "1" });
    const register = () => server.tool({ ...ADD, name });
    if (valid) {
      register();
    } else {
      assert.throws(
        register,
        (error: unknown) =>
          error instanceof TypeError &&
          /^Cannot register tool '.*': name must be 1 to 128 of A-Z a-z 0-9 _ \. -$/s.test(
            error.message,
          ),
        JSON.stringify(name),
      );
    }
  }
  assert.throws(() => createServer({ name: "s", version: "1", tools: [{ ...ADD, name: "x y" }] }), {
    name: "TypeError",
    message: "Cannot register tool 'x y': name must be 1 to 128 of A-Z a-z 0-9 _ . -",
  });
  // A long name is cut in the message, not repeated whole.
  assert.throws(
    () => createServer({ name: "s", version: "1", tools: [{ ...ADD, name: "y".repeat(300) }] }),
    {
      message: `Cannot register tool '${
        "y".repeat(64)
      }…': name must be 1 to 128 of A-Z a-z 0-9 _ . -`,
    },
  );
});

// ------------------------------------------------------- JSON Schema 2020-12

/** The conformance suite's JSON Schema 2020-12 tool schema. */
const SCHEMA_2020_12 = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: {
    address: {
      type: "object",
      properties: { street: { type: "string" }, city: { type: "string" } },
    },
  },
  properties: { name: { type: "string" }, address: { $ref: "#/$defs/address" } },
  additionalProperties: false,
} as const;

Deno.test("a JSON Schema 2020-12 tool registers, validates and is published verbatim", async () => {
  const original = JSON.parse(JSON.stringify(SCHEMA_2020_12));
  const server = createServer({
    name: "s",
    version: "1",
    tools: [defineTool({
      name: "json_schema_2020_12_tool",
      description: "Tool with JSON Schema 2020-12 features",
      inputSchema: SCHEMA_2020_12,
      handler: ({ name, address }) =>
        `${name ?? "?"} at ${address === undefined ? "?" : "an address"}`,
    })],
  });
  await server.handle(initialize(0, "2025-11-25"));
  const [tool] = resultOf(await server.handle(request(1, "tools/list"))).tools as Message[];
  assert.deepEqual(tool, {
    name: "json_schema_2020_12_tool",
    description: "Tool with JSON Schema 2020-12 features",
    inputSchema: original,
  });
  const call = async (args: Message) =>
    resultOf(
      await server.handle(
        request(2, "tools/call", { name: "json_schema_2020_12_tool", arguments: args }),
      ),
    );
  assert.equal(
    onlyText(await call({ name: "Ada", address: { street: "1 Main St", city: "Springfield" } })),
    "Ada at an address",
  );
  const wrong = await call({ name: "Ada", address: { city: 7 }, extra: true });
  assert.equal(wrong.isError, true);
  assert.equal(
    onlyText(wrong),
    "Invalid arguments for tool 'json_schema_2020_12_tool':\n" +
      "- $.address.city: must be string\n" +
      "- $: must NOT have additional property 'extra'",
  );
});
