/**
 * The tools rows of PROTOCOL.md through `server.handle()`: `tools/list`,
 * `tools/call` results, validation, errors and content blocks, output
 * schemas, and what registration refuses.
 */

import assert from "node:assert/strict";
import { createServer, defineTool, ErrorCode, RpcError } from "../../mod.ts";
import { captureLog, errorOf, fixtureServer, request, resultOf } from "../_helpers/helpers.ts";

Deno.test("tools/list shows every tool with its schema published verbatim", async () => {
  const inputSchema = {
    type: "object",
    $schema: "https://json-schema.org/draft/2020-12/schema",
    properties: { n: { type: "integer", description: "A number", examples: [1] } },
  } as const;
  const server = createServer({
    name: "s",
    version: "1",
    tools: [defineTool({
      name: "count",
      title: "Count",
      description: "Counts",
      inputSchema,
      annotations: { readOnlyHint: true },
      handler: () => "ok",
    })],
  });
  const reply = await server.handle(request(1, "tools/list"));
  assert.deepEqual(reply, {
    jsonrpc: "2.0",
    id: 1,
    result: {
      tools: [{
        name: "count",
        title: "Count",
        description: "Counts",
        inputSchema,
        annotations: { readOnlyHint: true },
      }],
    },
  });
});

Deno.test("tools/call turns a string into one text block", async () => {
  const { server } = fixtureServer();
  const reply = await server.handle(
    request(1, "tools/call", { name: "echo", arguments: { text: "hi" } }),
  );
  assert.deepEqual(reply, {
    jsonrpc: "2.0",
    id: 1,
    result: { content: [{ type: "text", text: "hi" }] },
  });
});

Deno.test("tools/call reports every violation with its JSON path as -32602", async () => {
  const server = createServer({
    name: "s",
    version: "1",
    tools: [defineTool({
      name: "add",
      description: "Adds",
      inputSchema: {
        type: "object",
        properties: { a: { type: "integer" }, b: { type: "integer" } },
        required: ["a", "b"],
      },
      handler: ({ a, b }) => String(a + b),
    })],
  });
  const reply = await server.handle(
    request(1, "tools/call", { name: "add", arguments: { a: 1.5 } }),
  );
  const error = errorOf(reply);
  assert.equal(error.code, ErrorCode.InvalidParams);
  assert.deepEqual(error.data, {
    violations: [
      { path: "$.a", keyword: "type", message: "must be integer" },
      { path: "$", keyword: "required", message: "must have required property 'b'" },
    ],
  });
  assert.match(error.message, /Invalid arguments for tool 'add'/);

  const ok = await server.handle(
    request(2, "tools/call", { name: "add", arguments: { a: 2, b: 3.0 } }),
  );
  assert.deepEqual(ok, {
    jsonrpc: "2.0",
    id: 2,
    result: { content: [{ type: "text", text: "5" }] },
  });
});

Deno.test("tools/call with non-object arguments or no name is -32602", async () => {
  const { server } = fixtureServer();
  for (
    const params of [{ name: "echo", arguments: [1] }, { name: "echo", arguments: "x" }, {
      arguments: {},
    }, { name: 3 }]
  ) {
    const reply = await server.handle(request(1, "tools/call", params));
    assert.equal(
      errorOf(reply).code,
      ErrorCode.InvalidParams,
      JSON.stringify(params),
    );
  }
});

Deno.test("tools/call of an unknown tool is -32601", async () => {
  const { server } = fixtureServer();
  const reply = await server.handle(request(1, "tools/call", { name: "nope", arguments: {} }));
  assert.deepEqual(errorOf(reply), {
    code: ErrorCode.MethodNotFound,
    message: 'Unknown tool: "nope"',
  });
});

Deno.test("a tool that throws returns an isError result, not a JSON-RPC error", async () => {
  const server = createServer({
    name: "s",
    version: "1",
    tools: [defineTool({
      name: "get_order",
      description: "Gets",
      inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
      handler: ({ id }) => {
        throw new Error(`no order named '${id}'`);
      },
    })],
  });
  const reply = await server.handle(
    request(3, "tools/call", { name: "get_order", arguments: { id: "ORD-9" } }),
  );
  assert.deepEqual(reply, {
    jsonrpc: "2.0",
    id: 3,
    result: { content: [{ type: "text", text: "no order named 'ORD-9'" }], isError: true },
  });
});

Deno.test("a tool that throws RpcError produces that protocol error", async () => {
  const server = createServer({
    name: "s",
    version: "1",
    tools: [defineTool({
      name: "t",
      description: "d",
      inputSchema: { type: "object" },
      handler: () => {
        throw new RpcError(ErrorCode.InvalidParams, "Unknown region", { region: "mars" });
      },
    })],
  });
  const reply = await server.handle(request(1, "tools/call", { name: "t" }));
  assert.deepEqual(errorOf(reply), {
    code: ErrorCode.InvalidParams,
    message: "Unknown region",
    data: { region: "mars" },
  });
});

Deno.test("content blocks a tool returns pass through unchanged", async () => {
  const blocks = [
    { type: "text", text: "t", annotations: { audience: ["user"] } },
    { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
    { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
    { type: "resource", resource: { uri: "test://r", mimeType: "text/plain", text: "r" } },
    { type: "resource_link", uri: "test://l", name: "l" },
  ] as const;
  const server = createServer({
    name: "s",
    version: "1",
    tools: [defineTool({
      name: "mixed",
      description: "d",
      inputSchema: { type: "object" },
      handler: () => structuredClone(blocks) as never,
    })],
  });
  const reply = await server.handle(request(1, "tools/call", { name: "mixed", arguments: {} }));
  assert.deepEqual(resultOf(reply), { content: blocks });
});

Deno.test("a tool returning a malformed block becomes an isError result and a log line", async () => {
  const { lines, log } = captureLog();
  const server = createServer({
    name: "s",
    version: "1",
    log,
    tools: [defineTool({
      name: "bad",
      description: "d",
      inputSchema: { type: "object" },
      handler: () => [{ type: "text", text: 3 }] as never,
    })],
  });
  const reply = await server.handle(request(1, "tools/call", { name: "bad" }));
  assert.deepEqual(resultOf(reply), {
    content: [{ type: "text", text: "Tool 'bad' returned an invalid result" }],
    isError: true,
  });
  assert.equal(lines.length, 1);
  assert.match(lines[0] ?? "", /content block 0 needs a string 'text'/);
});

Deno.test("structuredContent is validated against outputSchema and mirrored as JSON text", async () => {
  let sum: unknown = 3;
  const server = createServer({
    name: "s",
    version: "1",
    log: () => {},
    tools: [defineTool({
      name: "add",
      description: "d",
      inputSchema: { type: "object" },
      outputSchema: { type: "object", properties: { sum: { type: "integer" } }, required: ["sum"] },
      handler: () => ({ structuredContent: { sum: sum as number } }),
    })],
  });
  const ok = await server.handle(request(1, "tools/call", { name: "add" }));
  assert.deepEqual(resultOf(ok), {
    content: [{ type: "text", text: '{"sum":3}' }],
    structuredContent: { sum: 3 },
  });
  sum = "three";
  const bad = await server.handle(request(2, "tools/call", { name: "add" }));
  const result = resultOf(bad);
  assert.equal(result.isError, true);
  assert.match(JSON.stringify(result.content), /does not match its outputSchema: \$\.sum/);
});

Deno.test("registering a duplicate or malformed tool throws a TypeError naming it", () => {
  const { server } = fixtureServer();
  assert.throws(
    () =>
      server.tool({
        name: "echo",
        description: "d",
        inputSchema: { type: "object" },
        handler: () => "",
      }),
    { name: "TypeError", message: "Cannot register tool 'echo': already registered" },
  );
  assert.throws(
    () =>
      server.tool({
        name: "typo",
        description: "d",
        inputSchema: { type: "object", requried: ["a"] } as never,
        handler: () => "",
      }),
    (error: unknown) =>
      error instanceof TypeError && /typo/.test(error.message) && /requried/.test(error.message),
  );
});
