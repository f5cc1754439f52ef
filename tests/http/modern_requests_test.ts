/**
 * Streamable HTTP in revision 2026-07-28 (`server.fetch`, no sockets):
 * sessionless requests, the status codes of modern errors, MRTR and
 * cancellation over HTTP, and legacy traffic left as it was. The header
 * checks are in modern_headers_test.ts.
 */

import assert from "node:assert/strict";
import { createServer, defineTool, type Server } from "../../mod.ts";
import {
  captureLog,
  echoTool,
  errorOf,
  isRecord,
  MODERN,
  modernMeta,
  modernRequest,
  notification,
  request,
  resultOf,
  within,
} from "../_helpers/helpers.ts";
import {
  get,
  httpServer,
  jsonOf,
  modernPost,
  openSession,
  post,
  refusal,
  send,
  SseReader,
} from "../_helpers/http_helpers.ts";
import { EMPTY } from "../_helpers/peer.ts";

function modernServer(http: Parameters<typeof httpServer>[0] = {}): Server {
  const { server } = httpServer(http, {
    tools: [
      echoTool(),
      defineTool({
        name: "ask",
        description: "Asks for a name",
        inputSchema: EMPTY,
        handler: async (_args, ctx) => {
          const answer = await ctx.elicit("Name?", {
            type: "object",
            properties: { name: { type: "string" } },
          });
          return answer.action === "accept" ? `hi ${answer.content.name}` : "no";
        },
      }),
      defineTool({
        name: "wait",
        description: "Reports progress, then waits until cancelled",
        inputSchema: EMPTY,
        handler: async (_args, ctx) => {
          ctx.progress(1);
          await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve));
          cancelled.push(String(ctx.requestId));
          return "cancelled";
        },
      }),
    ],
    resources: [
      { uri: "test://hello", name: "hello", read: () => "hello" },
      { uri: "test://héllo wörld", name: "encoded", read: () => "needs encoding" },
    ],
    prompts: [{ name: "greet", description: "Greets", get: () => "hello" }],
  });
  return server;
}
const cancelled: string[] = [];

Deno.test("a modern POST is served with no session, with the conforming headers", async () => {
  const server = modernServer();
  const calls: [string, Record<string, unknown>][] = [
    ["server/discover", {}],
    ["tools/list", {}],
    ["tools/call", { name: "echo", arguments: { text: "x" } }],
    ["resources/read", { uri: "test://héllo wörld" }],
    ["resources/read", { uri: "test://hello" }],
    ["prompts/get", { name: "greet" }],
  ];
  let id = 0;
  for (const [method, params] of calls) {
    const body = modernRequest(++id, method, params);
    const response = await modernPost(server, body);
    assert.equal(response.status, 200, method);
    assert.equal(response.headers.get("mcp-session-id"), null, method);
    assert.equal(response.headers.get("content-type"), "application/json");
    const reply = await jsonOf(response);
    assert.equal(reply.id, id);
    assert.equal(resultOf(reply).resultType, "complete", method);
  }
  await server.close();
});

Deno.test("modern errors travel with the binding's status codes", async () => {
  const server = modernServer();
  const unknown = modernRequest(1, "no/such/method");
  assert.deepEqual(await refusal(await modernPost(server, unknown)), [404, -32601, 1]);
  for (const method of ["ping", "logging/setLevel", "resources/subscribe", "initialize"]) {
    const body = modernRequest(2, method, { uri: "test://hello", level: "info" });
    assert.deepEqual(await refusal(await modernPost(server, body)), [404, -32601, 2], method);
  }
  const version = request(3, "tools/list", {
    _meta: { ...modernMeta(), "io.modelcontextprotocol/protocolVersion": "2099-01-01" },
  });
  const unsupported = await post(server, version, {
    "mcp-protocol-version": "2099-01-01",
    "mcp-method": "tools/list",
  });
  assert.equal(unsupported.status, 400);
  const error = errorOf(await jsonOf(unsupported));
  assert.equal(error.code, -32022);
  assert.ok(isRecord(error.data));
  assert.deepEqual(error.data.supported, [MODERN]);
  assert.equal(error.data.requested, "2099-01-01");
  const needs = modernRequest(4, "tools/call", { name: "ask" });
  assert.deepEqual(await refusal(await modernPost(server, needs)), [400, -32021, 4]);
  // A tool that does not exist is an invalid param, not a missing method.
  const missing = modernRequest(5, "tools/call", { name: "nope" });
  assert.deepEqual(await refusal(await modernPost(server, missing)), [200, -32602, 5]);
  await server.close();
});

Deno.test("a modern notification is 202 with no body and no session", async () => {
  const server = modernServer();
  const body = notification("notifications/cancelled", { requestId: 1, _meta: modernMeta() });
  const response = await post(server, body, {
    "mcp-protocol-version": MODERN,
    "mcp-method": "notifications/cancelled",
  });
  assert.equal(response.status, 202);
  assert.equal(await response.text(), "");
  assert.equal(response.headers.get("mcp-session-id"), null);
  await server.close();
});

Deno.test({
  name: "a notification revision 2026-07-28 removed is 404 with -32601 over HTTP",
}, async () => {
  const server = modernServer();
  const body = notification("notifications/roots/list_changed", { _meta: modernMeta() });
  const response = await post(server, body, {
    "mcp-protocol-version": MODERN,
    "mcp-method": "notifications/roots/list_changed",
  });
  assert.equal(response.status, 404);
  assert.equal(errorOf(await jsonOf(response)).code, -32601);
  await server.close();
});

Deno.test("GET and DELETE with a 2026-07-28 version header are 405", async () => {
  const server = modernServer();
  for (const method of ["GET", "DELETE"]) {
    const response = await send(server, method, {
      "mcp-protocol-version": MODERN,
      accept: "text/event-stream",
    });
    assert.equal(response.status, 405, method);
    assert.equal(response.headers.get("allow"), "POST, OPTIONS");
    await response.body?.cancel();
  }
  await server.close();
});

Deno.test("legacy sessions keep their session id, GET stream and codes beside modern requests", async () => {
  const server = modernServer();
  const session = await openSession(server);
  const modern = await modernPost(server, modernRequest(1, "tools/list"));
  assert.equal(modern.status, 200);
  await modern.body?.cancel();
  const call = await session.post(
    request(2, "tools/call", { name: "echo", arguments: { text: "y" } }),
  );
  assert.equal(call.status, 200);
  const result = resultOf(await jsonOf(call));
  assert.equal(result.resultType, undefined);
  const stream = await session.get();
  assert.equal(stream.status, 200);
  assert.equal(stream.headers.get("content-type"), "text/event-stream");
  await stream.body?.cancel();
  // A modern body sent on the legacy session is the session's, and a 2026 header there is refused.
  const wrong = await session.post(request(3, "ping"), { "mcp-protocol-version": MODERN });
  assert.equal(wrong.status, 400);
  await wrong.body?.cancel();
  assert.equal((await session.delete()).status, 204);
  await server.close();
});

Deno.test("a stateless endpoint serves legacy requests as before, and modern ones", async () => {
  const server = modernServer({ stateless: true });
  const legacy = await post(
    server,
    request(1, "tools/call", { name: "echo", arguments: { text: "z" } }),
    {
      "mcp-protocol-version": "2025-06-18",
    },
  );
  assert.equal(legacy.status, 200);
  assert.equal(legacy.headers.get("mcp-session-id"), null);
  assert.equal(resultOf(await jsonOf(legacy)).resultType, undefined);
  const modern = await modernPost(
    server,
    modernRequest(2, "tools/call", { name: "echo", arguments: { text: "z" } }),
  );
  assert.equal(modern.status, 200);
  assert.equal(resultOf(await jsonOf(modern)).resultType, "complete");
  const getResponse = await get(server, { "mcp-protocol-version": MODERN });
  assert.equal(getResponse.status, 405);
  await getResponse.body?.cancel();
  await server.close();
});

Deno.test("a legacy-only server answers a 2026-07-28 POST with a 400 that carries no modern error code", async () => {
  const { log } = captureLog();
  const server = createServer({ name: "old", version: "1", log, eras: ["legacy"] });
  for (const body of [modernRequest(1, "server/discover"), modernRequest(2, "tools/list")]) {
    const response = await modernPost(server, body);
    assert.equal(response.status, 400);
    const text = await response.text();
    if (text !== "") {
      const reply: unknown = JSON.parse(text);
      assert.ok(isRecord(reply));
      if (isRecord(reply.error)) {
        assert.ok(![-32020, -32021, -32022].includes(Number(reply.error.code)), text);
      }
    }
  }
  await server.close();
});

Deno.test("an MRTR round trip over HTTP needs no session", async () => {
  const server = modernServer();
  const caps = { elicitation: {} };
  const first = await modernPost(server, modernRequest(1, "tools/call", { name: "ask" }, caps));
  assert.equal(first.headers.get("mcp-session-id"), null);
  const round = resultOf(await jsonOf(first));
  assert.equal(round.resultType, "input_required");
  const [key] = Object.keys(round.inputRequests as Record<string, unknown>);
  const retry = modernRequest(2, "tools/call", {
    name: "ask",
    inputResponses: { [key ?? ""]: { action: "accept", content: { name: "Bo" } } },
    requestState: round.requestState,
  }, caps);
  const done = resultOf(await jsonOf(await modernPost(server, retry)));
  assert.deepEqual(done.content, [{ type: "text", text: "hi Bo" }]);
  await server.close();
});

Deno.test("a requestState minted for one authenticated caller is refused for another", async () => {
  const server = modernServer({ authenticate: (request) => request.headers.get("x-user") });
  const caps = { elicitation: {} };
  const first = await modernPost(server, modernRequest(1, "tools/call", { name: "ask" }, caps), {
    "x-user": "alice",
  });
  const round = resultOf(await jsonOf(first));
  const [key] = Object.keys(round.inputRequests as Record<string, unknown>);
  const retry = modernRequest(2, "tools/call", {
    name: "ask",
    inputResponses: { [key ?? ""]: { action: "accept", content: { name: "Eve" } } },
    requestState: round.requestState,
  }, caps);
  assert.deepEqual(await refusal(await modernPost(server, retry, { "x-user": "bob" })), [
    200,
    -32602,
    2,
  ]);
  const own = resultOf(await jsonOf(await modernPost(server, retry, { "x-user": "alice" })));
  assert.deepEqual(own.content, [{ type: "text", text: "hi Eve" }]);
  await server.close();
});

Deno.test("closing a modern response stream cancels its request", async () => {
  const server = modernServer();
  const body = request("w1", "tools/call", {
    name: "wait",
    _meta: modernMeta({}, { progressToken: "p" }),
  });
  const response = await modernPost(server, body);
  const reader = new SseReader(response);
  const progress = await reader.message();
  assert.equal(progress.method, "notifications/progress");
  assert.equal(progress.id, undefined);
  await reader.cancel();
  await within(
    (async () => {
      while (!cancelled.includes("w1")) await new Promise((resolve) => setTimeout(resolve, 1));
    })(),
    2_000,
    "the handler to see the cancellation",
  );
  await server.close();
});
