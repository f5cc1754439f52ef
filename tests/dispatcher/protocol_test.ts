/**
 * Every row of PROTOCOL.md that the dispatcher owns, through `server.handle()`.
 * (Framing rows live in the transport tests; guardrail rows in guardrail tests.)
 */

import assert from "node:assert/strict";
import { createServer, defineTool, ErrorCode, RpcError } from "../../mod.ts";
import {
  captureLog,
  errorOf,
  fixtureServer,
  initialize,
  notification,
  request,
  resultOf,
} from "../_helpers/helpers.ts";

Deno.test("initialize echoes each supported revision and answers others with the newest", async () => {
  const { server } = fixtureServer();
  for (const version of ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]) {
    const reply = await server.handle(initialize(1, version));
    assert.deepEqual(
      resultOf(reply).protocolVersion,
      version,
    );
  }
  for (const version of ["2099-01-01", "2025-09-99", "1.0", ""]) {
    const reply = await server.handle(initialize(1, version));
    assert.equal(
      resultOf(reply).protocolVersion,
      "2025-11-25",
    );
  }
});

Deno.test("initialize returns serverInfo, instructions and capabilities for what is registered", async () => {
  const { server } = fixtureServer({ title: "Fixture", instructions: "Be nice" });
  assert.deepEqual(await server.handle(initialize(7)), {
    jsonrpc: "2.0",
    id: 7,
    result: {
      protocolVersion: "2025-06-18",
      capabilities: {
        logging: {},
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
      },
      serverInfo: { name: "fixture", version: "1.2.3", title: "Fixture" },
      instructions: "Be nice",
    },
  });
});

Deno.test("createServer() claims no capability for a kind with nothing registered", async () => {
  const server = createServer({ name: "bare", version: "1" });
  const reply = await server.handle(initialize(1));
  assert.deepEqual(resultOf(reply).capabilities, { logging: {} });
  server.tool({
    name: "t",
    description: "d",
    inputSchema: { type: "object" },
    handler: () => "x",
  });
  const again = await server.handle(initialize(2));
  assert.deepEqual(resultOf(again).capabilities, {
    logging: {},
    tools: { listChanged: true },
  });
});

Deno.test("initialize without a string protocolVersion is -32602", async () => {
  const { server } = fixtureServer();
  const reply = await server.handle(request(1, "initialize", { capabilities: {} }));
  assert.equal(errorOf(reply).code, ErrorCode.InvalidParams);
});

Deno.test("notifications are never answered, known or not, valid or not", async () => {
  const { server } = fixtureServer();
  const cases: unknown[] = [
    notification("notifications/initialized"),
    notification("notifications/unknown", { a: 1 }),
    notification("notifications/cancelled", { requestId: { bad: true } }),
    { jsonrpc: "2.0", method: "notifications/initialized", params: "not an object" },
    notification("tools/list"),
  ];
  for (const message of cases) assert.equal(await server.handle(message), undefined);
});

Deno.test("ping returns an empty object", async () => {
  const { server } = fixtureServer();
  assert.deepEqual(await server.handle(request("p", "ping")), {
    jsonrpc: "2.0",
    id: "p",
    result: {},
  });
});

Deno.test("a bad envelope is -32600 with its id when usable, else id null", async () => {
  const { server } = fixtureServer();
  const cases: [unknown, string | number | null][] = [
    [{ jsonrpc: "1.0", id: 4, method: "ping" }, 4],
    [{ id: 5, method: "ping" }, 5],
    [{ jsonrpc: "2.0", id: 6 }, 6],
    [{ jsonrpc: "2.0", id: 7, method: 42 }, 7],
    [{ jsonrpc: "2.0", id: 8, method: "ping", params: [1, 2] }, 8],
    [{ jsonrpc: "2.0", id: { x: 1 }, method: "ping" }, null],
    [{ jsonrpc: "2.0", id: null, method: "ping" }, null],
    [{ jsonrpc: "2.0", id: true, method: "ping" }, null],
    [42, null],
    ["ping", null],
    [null, null],
  ];
  for (const [message, id] of cases) {
    const reply = await server.handle(message);
    assert.ok(
      reply !== undefined && !Array.isArray(reply) && "error" in reply,
      JSON.stringify(message),
    );
    assert.equal(reply.id, id, JSON.stringify(message));
    assert.equal(reply.error.code, ErrorCode.InvalidRequest);
  }
});

Deno.test("an id of 0 or an empty string is a real id", async () => {
  const { server } = fixtureServer();
  assert.deepEqual(await server.handle(request(0, "ping")), { jsonrpc: "2.0", id: 0, result: {} });
  assert.deepEqual(await server.handle(request("", "ping")), {
    jsonrpc: "2.0",
    id: "",
    result: {},
  });
});

Deno.test("an unknown method is -32601", async () => {
  const { server } = fixtureServer();
  const reply = await server.handle(request(1, "tools/frobnicate"));
  assert.equal(errorOf(reply).code, ErrorCode.MethodNotFound);
  const proto = await server.handle(request(2, "__proto__"));
  assert.equal(errorOf(proto).code, ErrorCode.MethodNotFound);
});

Deno.test("batches are answered under 2025-03-26 only, notifications omitted", async () => {
  const { server } = fixtureServer();
  await server.handle(initialize(1, "2025-03-26"));
  const reply = await server.handle([
    request(2, "ping"),
    notification("notifications/initialized"),
    request(3, "tools/call", { name: "echo", arguments: { text: "hi" } }),
  ]);
  assert.deepEqual(reply, [
    { jsonrpc: "2.0", id: 2, result: {} },
    { jsonrpc: "2.0", id: 3, result: { content: [{ type: "text", text: "hi" }] } },
  ]);
  assert.equal(await server.handle([notification("notifications/initialized")]), undefined);
  const empty = await server.handle([]);
  assert.equal(errorOf(empty).code, ErrorCode.InvalidRequest);

  for (const version of ["2025-11-25", "2025-06-18", "2024-11-05"]) {
    await server.handle(initialize(9, version));
    const refused = await server.handle([request(10, "ping")]);
    assert.deepEqual(refused, {
      jsonrpc: "2.0",
      id: null,
      error: {
        code: ErrorCode.InvalidRequest,
        message: "Invalid request: batches are not supported in this protocol version",
      },
    });
  }
});

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

Deno.test("resources/list and resources/read encode text, bytes and JSON", async () => {
  const server = createServer({
    name: "s",
    version: "1",
    resources: [
      { uri: "test://text", name: "text", description: "Some text", read: () => "hello" },
      {
        uri: "test://bytes",
        name: "bytes",
        mimeType: "image/png",
        read: () => new Uint8Array([1, 2, 255]),
      },
      { uri: "test://json", name: "json", read: () => ({ a: [1, null] }) },
    ],
  });
  const list = await server.handle(request(1, "resources/list"));
  assert.deepEqual(resultOf(list), {
    resources: [
      { uri: "test://text", name: "text", description: "Some text" },
      { uri: "test://bytes", name: "bytes", mimeType: "image/png" },
      { uri: "test://json", name: "json" },
    ],
  });
  const read = async (uri: string) =>
    resultOf(await server.handle(request(2, "resources/read", { uri })));
  assert.deepEqual(await read("test://text"), {
    contents: [{ uri: "test://text", mimeType: "text/plain", text: "hello" }],
  });
  assert.deepEqual(await read("test://bytes"), {
    contents: [{ uri: "test://bytes", mimeType: "image/png", blob: "AQL/" }],
  });
  assert.deepEqual(await read("test://json"), {
    contents: [{ uri: "test://json", mimeType: "application/json", text: '{"a":[1,null]}' }],
  });
});

Deno.test("resources/read of an unknown URI is -32601", async () => {
  const { server } = fixtureServer();
  const reply = await server.handle(request(1, "resources/read", { uri: "test://missing" }));
  assert.equal(errorOf(reply).code, ErrorCode.MethodNotFound);
});

Deno.test("a failing resource reader is -32603 with the stack on the log only", async () => {
  const { lines, log } = captureLog();
  const server = createServer({
    name: "s",
    version: "1",
    log,
    resources: [{
      uri: "test://broken",
      name: "broken",
      read: () => {
        throw new Error("secret path /etc/shadow");
      },
    }],
  });
  const reply = await server.handle(request(1, "resources/read", { uri: "test://broken" }));
  assert.deepEqual(errorOf(reply), {
    code: ErrorCode.InternalError,
    message: "Internal error",
  });
  assert.match(lines.join("\n"), /secret path \/etc\/shadow/);
});

Deno.test("prompts/list and prompts/get with a string and with a list of messages", async () => {
  const server = createServer({
    name: "s",
    version: "1",
    prompts: [
      {
        name: "summarize",
        description: "Summarize",
        arguments: [{ name: "order_id", required: true }, { name: "tone" }],
        get: (args) => `Summarize ${args.order_id}`,
      },
      {
        name: "two",
        get: () => [
          { role: "user", content: { type: "text", text: "a" } },
          { role: "assistant", content: { type: "text", text: "b" } },
        ],
      },
    ],
  });
  const list = await server.handle(request(1, "prompts/list"));
  assert.deepEqual(resultOf(list), {
    prompts: [
      {
        name: "summarize",
        description: "Summarize",
        arguments: [{ name: "order_id", required: true }, { name: "tone" }],
      },
      { name: "two" },
    ],
  });
  const got = await server.handle(
    request(2, "prompts/get", { name: "summarize", arguments: { order_id: "ORD-1" } }),
  );
  assert.deepEqual(resultOf(got), {
    description: "Summarize",
    messages: [{ role: "user", content: { type: "text", text: "Summarize ORD-1" } }],
  });
  const two = await server.handle(request(3, "prompts/get", { name: "two" }));
  assert.deepEqual(resultOf(two).messages, [
    { role: "user", content: { type: "text", text: "a" } },
    { role: "assistant", content: { type: "text", text: "b" } },
  ]);
});

Deno.test("prompts/get without a required argument, or with a non-string one, is -32602", async () => {
  const server = createServer({
    name: "s",
    version: "1",
    prompts: [{ name: "p", arguments: [{ name: "order_id", required: true }], get: () => "x" }],
  });
  for (const args of [{}, { order_id: 5 }, undefined]) {
    const params = args === undefined ? { name: "p" } : { name: "p", arguments: args };
    const reply = await server.handle(request(1, "prompts/get", params));
    assert.equal(errorOf(reply).code, ErrorCode.InvalidParams);
    assert.deepEqual(errorOf(reply).data, {
      violations: [{
        path: "$.order_id",
        message: typeof args === "object" && "order_id" in args ? "must be string" : "is required",
      }],
    });
  }
  const unknown = await server.handle(request(2, "prompts/get", { name: "nope" }));
  assert.equal(errorOf(unknown).code, ErrorCode.MethodNotFound);
});

Deno.test("an exception in a method is -32603 with a generic message; the server goes on", async () => {
  const { lines, log } = captureLog();
  const server = createServer({
    name: "s",
    version: "1",
    log,
    guardrails: [{
      name: "buggy",
      stage: "custom",
      run: () => {
        throw new TypeError("oops inside");
      },
    }],
    tools: [
      defineTool({
        name: "t",
        description: "d",
        inputSchema: { type: "object" },
        handler: () => "x",
      }),
    ],
  });
  const reply = await server.handle(request(1, "tools/call", { name: "t" }));
  assert.deepEqual(errorOf(reply), {
    code: ErrorCode.InternalError,
    message: "Internal error",
  });
  assert.match(lines.join("\n"), /oops inside/);
  assert.deepEqual(await server.handle(request(2, "ping")), { jsonrpc: "2.0", id: 2, result: {} });
});

Deno.test("requests run concurrently: a slow tool does not block ping", async () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const server = createServer({
    name: "s",
    version: "1",
    tools: [defineTool({
      name: "slow",
      description: "d",
      inputSchema: { type: "object" },
      handler: async () => {
        await gate;
        return "slow done";
      },
    })],
  });
  const slow = server.handle(request(1, "tools/call", { name: "slow" }));
  assert.deepEqual(await server.handle(request(2, "ping")), { jsonrpc: "2.0", id: 2, result: {} });
  release();
  assert.deepEqual(resultOf(await slow), {
    content: [{ type: "text", text: "slow done" }],
  });
});

Deno.test("notifications/cancelled aborts the handler's signal and no reply is sent", async () => {
  let seen: AbortSignal | undefined;
  const server = createServer({
    name: "s",
    version: "1",
    tools: [defineTool({
      name: "wait",
      description: "d",
      inputSchema: { type: "object" },
      handler: (_args, ctx) => {
        seen = ctx.signal;
        return new Promise<string>((_resolve, reject) => {
          ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason));
        });
      },
    })],
  });
  const call = server.handle(request("c1", "tools/call", { name: "wait" }));
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(
    await server.handle(
      notification("notifications/cancelled", { requestId: "c1", reason: "user" }),
    ),
    undefined,
  );
  assert.equal(await call, undefined);
  assert.equal(seen?.aborted, true);
});

Deno.test("a request id already in flight is refused with -32600", async () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const server = createServer({
    name: "s",
    version: "1",
    tools: [
      defineTool({
        name: "w",
        description: "d",
        inputSchema: { type: "object" },
        handler: async () => {
          await gate;
          return "x";
        },
      }),
    ],
  });
  const first = server.handle(request(1, "tools/call", { name: "w" }));
  const second = await server.handle(request(1, "tools/call", { name: "w" }));
  assert.equal(errorOf(second).code, ErrorCode.InvalidRequest);
  release();
  assert.ok(await first !== undefined);
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
