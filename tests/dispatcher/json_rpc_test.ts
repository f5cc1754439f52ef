/**
 * The JSON-RPC rows of PROTOCOL.md that the dispatcher owns, through
 * `server.handle()`: notifications, envelopes, ids, unknown methods,
 * batches, exceptions, concurrency, cancellation and duplicate ids.
 * (Framing rows live in the transport tests; guardrail rows in guardrail
 * tests; the rows of each method in the test of its room.)
 */

import assert from "node:assert/strict";
import { createServer, defineTool, ErrorCode } from "../../mod.ts";
import {
  captureLog,
  errorOf,
  fixtureServer,
  initialize,
  notification,
  request,
  resultOf,
} from "../_helpers/helpers.ts";

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
