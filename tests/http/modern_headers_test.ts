/**
 * The request headers of revision 2026-07-28's Streamable HTTP binding
 * (`server.fetch`, no sockets): `MCP-Protocol-Version`, `Mcp-Method`,
 * `Mcp-Name` and `Mcp-Param-*` checked against the body, in order, and
 * `x-mcp-header` annotations checked at registration.
 */

import assert from "node:assert/strict";
import { createServer, defineTool, type Server, type ToolDefinition } from "../../mod.ts";
import { isRecord, MODERN, modernRequest, request, resultOf } from "../_helpers/helpers.ts";
import {
  type HeaderPatch,
  httpServer,
  jsonOf,
  modernPost,
  post,
  refusal,
} from "../_helpers/http_helpers.ts";
import { EMPTY } from "../_helpers/peer.ts";

const SQL_SCHEMA = {
  type: "object",
  properties: {
    region: { type: "string", "x-mcp-header": "Region" },
    count: { type: "integer", "x-mcp-header": "Count" },
    dry: { type: "boolean", "x-mcp-header": "Dry" },
    target: {
      type: "object",
      properties: { zone: { type: "string", "x-mcp-header": "Zone" } },
    },
    query: { type: "string" },
  },
} as const;

function headersServer(): Server {
  const { server } = httpServer({}, {
    tools: [
      defineTool({
        name: "sql",
        description: "Runs a query in a region",
        inputSchema: SQL_SCHEMA,
        handler: (args) => JSON.stringify(args),
      }),
    ],
    resources: [{ uri: "test://hello", name: "hello", read: () => "hello" }],
    prompts: [{ name: "greet", description: "Greets", get: () => "hello" }],
  });
  return server;
}

Deno.test("missing, mismatched or malformed standard headers are 400 with -32020, echoing the id", async () => {
  const server = headersServer();
  const call = modernRequest("c1", "tools/call", { name: "echo", arguments: { text: "x" } });
  const read = modernRequest(9, "resources/read", { uri: "test://hello" });
  const prompt = modernRequest(0, "prompts/get", { name: "greet" });
  const cases: [typeof call, HeaderPatch, string][] = [
    [call, { "mcp-protocol-version": null }, "no version header"],
    [call, { "mcp-protocol-version": "2025-06-18" }, "a legacy version header"],
    [call, { "mcp-protocol-version": "2026-07-29" }, "another version header"],
    [call, { "mcp-method": null }, "no Mcp-Method"],
    [call, { "mcp-method": "tools/list" }, "another Mcp-Method"],
    [call, { "mcp-method": "TOOLS/CALL" }, "an uppercase Mcp-Method"],
    [call, { "mcp-method": "tools/call/" }, "a longer Mcp-Method"],
    [call, { "mcp-name": null }, "no Mcp-Name"],
    [call, { "mcp-name": "Echo" }, "Mcp-Name in another case"],
    [call, { "mcp-name": "greet" }, "another Mcp-Name"],
    [call, { "mcp-name": "=?base64?ZWNobw?=" }, "base64 without padding"],
    [call, { "mcp-name": "=?base64?ZWN$bw==?=" }, "base64 with a bad character"],
    [call, { "mcp-name": "=?base64?ZWNobw===?=" }, "base64 with extra padding"],
    [call, { "mcp-name": "=?base64?Z2VvbWV0cnk=?=" }, "base64 of another name"],
    [call, { "mcp-name": "=?BASE64?ZWNobw==?=" }, "an uppercase sentinel, taken literally"],
    [call, { "mcp-name": "=?base64?/w==?=" }, "base64 of invalid UTF-8"],
    [read, { "mcp-name": null }, "resources/read without Mcp-Name"],
    [read, { "mcp-name": "test://other" }, "resources/read with another URI"],
    [prompt, { "mcp-name": null }, "prompts/get without Mcp-Name"],
    [prompt, { "mcp-name": "echo" }, "prompts/get with a tool's name"],
  ];
  for (const [body, patch, what] of cases) {
    const [status, code, id] = await refusal(await modernPost(server, body, patch));
    assert.deepEqual([status, code, id], [400, -32020, body.id], what);
  }
  // A literal name that looks like the sentinel must come encoded (then it is merely not found).
  const literal = modernRequest(3, "resources/read", { uri: "=?base64?literal?=" });
  assert.deepEqual(
    await refusal(await modernPost(server, literal, { "mcp-name": "=?base64?literal?=" })),
    [400, -32020, 3],
  );
  assert.deepEqual(await refusal(await modernPost(server, literal)), [200, -32602, 3]);
  // The encoded form of a plain name is accepted too.
  const encoded = await modernPost(server, call, { "mcp-name": "=?base64?ZWNobw==?=" });
  assert.equal(encoded.status, 200);
  await encoded.body?.cancel();
  await server.close();
});

Deno.test("header names are matched case-insensitively; values are not", async () => {
  const server = headersServer();
  const body = modernRequest(1, "tools/call", { name: "echo", arguments: { text: "x" } });
  const response = await post(server, body, {
    "MCP-PROTOCOL-VERSION": MODERN,
    "mcp-METHOD": "tools/call",
    "Mcp-Name": "echo",
  });
  assert.equal(response.status, 200);
  await response.body?.cancel();
  await server.close();
});

Deno.test("a modern body without its required _meta keys is 400 with -32602, before any header check", async () => {
  const server = headersServer();
  const metas: unknown[] = [
    undefined,
    { "io.modelcontextprotocol/clientCapabilities": {} },
    { "io.modelcontextprotocol/protocolVersion": MODERN },
    {
      "io.modelcontextprotocol/protocolVersion": MODERN,
      "io.modelcontextprotocol/clientCapabilities": 1,
    },
  ];
  let id = 0;
  for (const meta of metas) {
    const params: Record<string, unknown> = { name: "echo" };
    if (meta !== undefined) params._meta = meta;
    // The version header alone makes it modern; Mcp-Method and Mcp-Name are missing as well.
    const response = await post(server, request(++id, "tools/call", params), {
      "mcp-protocol-version": MODERN,
    });
    assert.deepEqual(await refusal(response), [400, -32602, id], JSON.stringify(meta));
  }
  await server.close();
});

Deno.test("x-mcp-header annotations that break the rules are refused at registration, naming the tool", () => {
  const property = (extra: Record<string, unknown>) => ({
    type: "object",
    properties: { p: { type: "string", ...extra } },
  });
  const bad: [string, Record<string, unknown>][] = [
    ["empty", property({ "x-mcp-header": "" })],
    ["a space", property({ "x-mcp-header": "Has Space" })],
    ["a colon", property({ "x-mcp-header": "a:b" })],
    ["CR LF", property({ "x-mcp-header": "a\r\nb" })],
    ["non-ASCII", property({ "x-mcp-header": "Régión" })],
    ["not a string", property({ "x-mcp-header": 5 })],
    ["a duplicate in another case", {
      type: "object",
      properties: {
        a: { type: "string", "x-mcp-header": "Region" },
        b: { type: "string", "x-mcp-header": "region" },
      },
    }],
    ["a number", { type: "object", properties: { p: { type: "number", "x-mcp-header": "P" } } }],
    ["an object", { type: "object", properties: { p: { type: "object", "x-mcp-header": "P" } } }],
    ["an array", { type: "object", properties: { p: { type: "array", "x-mcp-header": "P" } } }],
    ["no type", { type: "object", properties: { p: { "x-mcp-header": "P" } } }],
    ["the root", { type: "object", "x-mcp-header": "Root", properties: {} }],
    ["under items", {
      type: "object",
      properties: {
        p: { type: "array", items: { type: "string", "x-mcp-header": "P" } },
      },
    }],
    ["under anyOf", {
      type: "object",
      properties: { p: { anyOf: [{ type: "string", "x-mcp-header": "P" }] } },
    }],
    ["under oneOf at the root", {
      type: "object",
      oneOf: [{ properties: { p: { type: "string", "x-mcp-header": "P" } } }],
    }],
    ["under $defs, reached by $ref", {
      type: "object",
      properties: { p: { $ref: "#/$defs/P" } },
      $defs: { P: { type: "string", "x-mcp-header": "P" } },
    }],
    ["under if/then", {
      type: "object",
      if: { properties: { p: { type: "string", "x-mcp-header": "P" } } },
      then: {},
    }],
    ["under additionalProperties", {
      type: "object",
      additionalProperties: { type: "string", "x-mcp-header": "P" },
    }],
  ];
  for (const [what, inputSchema] of bad) {
    const tool = {
      name: "bad_tool",
      description: what,
      inputSchema,
      handler: () => "x",
    } as unknown as ToolDefinition;
    assert.throws(
      () => createServer({ name: "s", version: "1", tools: [tool] }),
      (error: unknown) => error instanceof TypeError && /bad_tool/.test(error.message),
      what,
    );
    const server = createServer({ name: "s", version: "1" });
    assert.throws(() => server.tool(tool as never), TypeError, what);
    // An update that introduces the bad annotation is refused the same way.
    const handle = server.tool({
      name: "bad_tool",
      description: "ok",
      inputSchema: EMPTY,
      handler: () => "x",
    });
    assert.throws(() => handle.update({ inputSchema: inputSchema as never }), TypeError, what);
  }
  // The good ones register: nested through properties, integer and boolean included.
  const server = createServer({ name: "s", version: "1" });
  server.tool({ name: "good", description: "ok", inputSchema: SQL_SCHEMA, handler: () => "x" });
});

Deno.test("Mcp-Param-* headers are checked against the arguments", async () => {
  const server = headersServer();
  const call = (id: number, args: Record<string, unknown>, params: HeaderPatch) =>
    modernPost(server, modernRequest(id, "tools/call", { name: "sql", arguments: args }), params);
  const ok: [Record<string, unknown>, HeaderPatch, string][] = [
    [{ query: "q" }, {}, "no mirrored argument, no header"],
    [{ region: "us-west1" }, { "mcp-param-region": "us-west1" }, "a string"],
    [
      { region: "Hello, 世界" },
      { "mcp-param-region": "=?base64?SGVsbG8sIOS4lueVjA==?=" },
      "base64",
    ],
    [{ region: " padded " }, { "mcp-param-region": "=?base64?IHBhZGRlZCA=?=" }, "padded"],
    [{ count: 42 }, { "mcp-param-count": "42" }, "an integer"],
    [{ count: 42 }, { "mcp-param-count": "42.0" }, "an integer compared numerically"],
    [{ count: 42 }, { "mcp-param-count": "4.2e1" }, "an integer in exponent form"],
    [{ count: -7 }, { "mcp-param-count": "-7" }, "a negative integer"],
    [{ dry: true }, { "mcp-param-dry": "true" }, "true"],
    [{ dry: false }, { "mcp-param-dry": "false" }, "false"],
    [{ target: { zone: "z1" } }, { "mcp-param-zone": "z1" }, "a nested property"],
    [{ target: {} }, {}, "a nested property left out"],
    [{ region: "r", count: 1, dry: true }, {
      "Mcp-Param-Region": "r",
      "MCP-PARAM-COUNT": "1",
      "mcp-param-dry": "true",
    }, "several, header names in any case"],
  ];
  let id = 0;
  for (const [args, headers, what] of ok) {
    const response = await call(++id, args, headers);
    assert.equal(response.status, 200, what);
    const result = resultOf(await jsonOf(response));
    assert.notEqual(result.isError, true, what);
  }
  const bad: [Record<string, unknown>, HeaderPatch, string][] = [
    [{ region: "us-west1" }, {}, "the header missing while the body has a value"],
    [{ region: "us-west1" }, { "mcp-param-region": "us-east1" }, "a mismatch"],
    [{ region: "us-west1" }, { "mcp-param-region": "US-WEST1" }, "a mismatch in case"],
    [
      { region: "Hello, 世界" },
      { "mcp-param-region": "=?base64?SGVsbG8sIOS4lueVjA?=" },
      "bad padding",
    ],
    [{ region: "café" }, { "mcp-param-region": "caf\u00e9" }, "raw non-ASCII"],
    [{ count: 42 }, { "mcp-param-count": "43" }, "another integer"],
    [{ count: 42 }, { "mcp-param-count": "0x2A" }, "hexadecimal"],
    [{ count: 42 }, { "mcp-param-count": "0b101010" }, "binary"],
    [{ count: 42 }, { "mcp-param-count": "+42" }, "a plus sign"],
    [{ count: 42 }, { "mcp-param-count": "042" }, "a leading zero"],
    [{ count: 42 }, { "mcp-param-count": "Infinity" }, "Infinity"],
    [{ count: 42 }, { "mcp-param-count": "forty-two" }, "not a number"],
    [{ count: 42 }, {}, "an integer without its header"],
    [{ dry: true }, { "mcp-param-dry": "True" }, "a capitalised boolean"],
    [{ dry: true }, { "mcp-param-dry": "1" }, "a boolean as 1"],
    [{ dry: false }, {}, "false without its header"],
    [{ target: { zone: "z1" } }, { "mcp-param-zone": "z2" }, "a nested mismatch"],
    [{}, { "mcp-param-region": "us-west1" }, "a header for an argument that is absent"],
  ];
  for (const [args, headers, what] of bad) {
    assert.deepEqual(await refusal(await call(++id, args, headers)), [400, -32020, id], what);
  }
  // A null value needs no header: whatever the tool says about null, it is not a header mismatch.
  const nulled = await call(++id, { region: null }, {});
  const reply = await jsonOf(nulled);
  assert.ok(!isRecord(reply.error) || reply.error.code !== -32020, JSON.stringify(reply));
  await server.close();
});
