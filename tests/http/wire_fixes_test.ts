/**
 * The wire where HTTP and stdio must agree: an id that is no id is -32600
 * on every transport; a method named after an `Object.prototype` member is
 * an unknown method, not a header mismatch; 404 answers a method the server
 * does not implement and nothing else (a -32601 a handler throws, an unknown
 * tool or resource, are answered 200 as the transport says); a refused
 * header mismatch is audited with the code the client got.
 */

import assert from "node:assert/strict";
import { createServer, defineTool, ErrorCode, RpcError, type Server } from "../../mod.ts";
import { callbackAuditSink, createGuardrails } from "../../guardrails.ts";
import { errorOf, MODERN, modernRequest } from "../_helpers/helpers.ts";
import { jsonOf, modernPost, openSession, post } from "../_helpers/http_helpers.ts";
import { EMPTY } from "../_helpers/peer.ts";
import { isRecord } from "../../src/jsonrpc/messages.ts";
import { loadSkill } from "../../skills.ts";

const SECRET = "ODK-4f9a8b7c6d5e4f3a2b1c0d9e8f7a";

function wireServer(audit: unknown[] = []): Server {
  return createServer({
    name: "wire",
    version: "1.0.0",
    guardrails: createGuardrails({
      redact: { patterns: ["ODK-[A-Za-z0-9]{24,}"] },
      audit: callbackAuditSink((entry) => void audit.push(entry)),
    }),
    tools: [
      defineTool({
        name: "legacy_style",
        description: "Throws -32601 itself, as servers written for old clients do",
        inputSchema: EMPTY,
        handler: () => {
          throw new RpcError(ErrorCode.MethodNotFound, "Unknown order");
        },
      }),
    ],
    resourceTemplates: [{
      uriTemplate: "orders://{id}",
      name: "order",
      read: ({ id }) => id === "ORD-1" ? { id } : id === "ORD-0" ? null : undefined,
    }],
  });
}

/** What stdio answers the same message: its error code and id. */
async function onStdio(server: Server, message: unknown): Promise<[number, unknown]> {
  const reply = await server.handle(message);
  return [errorOf(reply).code, (reply as { id?: unknown }).id];
}

Deno.test("an id that is no id gets -32600 over HTTP in both eras, as on stdio", async () => {
  const server = wireServer();
  const session = await openSession(server);
  for (const id of [{}, [], true, false, null, 1.5e400]) {
    const body = { ...modernRequest(1, "tools/list"), id };
    assert.deepEqual(await onStdio(server, body), [-32600, null], JSON.stringify(id));
    const modern = await modernPost(server, body);
    assert.equal(modern.status, 400, `modern ${JSON.stringify(id)}`);
    const reply = await jsonOf(modern);
    assert.deepEqual([errorOf(reply).code, reply.id], [-32600, null], JSON.stringify(id));
    const legacy = await session.post({ jsonrpc: "2.0", id, method: "tools/list" });
    assert.equal(legacy.status, 400, `legacy ${JSON.stringify(id)}`);
    assert.equal(errorOf(await jsonOf(legacy)).code, -32600);
  }
  await server.close();
});

Deno.test("methods named after Object.prototype members are unknown methods, never -32020", async () => {
  const server = wireServer();
  for (const method of ["constructor", "toString", "hasOwnProperty", "__proto__", "valueOf"]) {
    const response = await modernPost(server, modernRequest(7, method));
    assert.equal(response.status, 404, method);
    const reply = await jsonOf(response);
    assert.equal(reply.id, 7);
    assert.equal(errorOf(reply).code, -32601, method);
    assert.ok(!errorOf(reply).message.includes("native code"), errorOf(reply).message);
    // A name header for them is not expected either: they name nothing.
    const named = await modernPost(server, modernRequest(8, method), { "mcp-name": "x" });
    assert.equal(named.status, 404, `${method} with Mcp-Name`);
    assert.deepEqual(await onStdio(server, modernRequest(9, method)), [-32601, 9]);
  }
  await server.close();
});

Deno.test("404 only for a method the server does not implement; other errors are 200 or 400", async () => {
  const server = wireServer();
  const cases: [string, Record<string, unknown>, number, number][] = [
    ["no/such/method", {}, 404, -32601],
    ["tools/call", { name: "legacy_style", arguments: {} }, 200, -32601],
    ["tools/call", { name: "missing", arguments: {} }, 200, -32602],
    ["resources/read", { uri: "orders://ORD-9" }, 200, -32602],
    ["resources/read", { uri: "nothing://x" }, 200, -32602],
    ["prompts/get", { name: "missing" }, 200, -32602],
    ["tasks/get", { taskId: "nope" }, 200, -32602],
  ];
  for (const [method, params, status, code] of cases) {
    const taskId = typeof params.taskId === "string" ? { "mcp-name": params.taskId } : {};
    const caps = { extensions: { "io.modelcontextprotocol/tasks": {} } };
    const response = await modernPost(server, modernRequest(3, method, params, caps), taskId);
    const reply = await jsonOf(response);
    assert.deepEqual([response.status, errorOf(reply).code], [status, code], method);
  }
  await server.close();
});

Deno.test("an extension's methods are implemented (200) only while it is in use, else 404", async () => {
  const server = wireServer();
  const list = () => modernPost(server, modernRequest(4, "skills/list", {}));
  const before = await list();
  assert.deepEqual([before.status, errorOf(await jsonOf(before)).code], [404, -32601]);
  const skill = server.skill(
    await loadSkill({
      files: { "SKILL.md": "---\nname: desk\ndescription: Works the desk.\n---\nSteps.\n" },
    }),
  );
  const during = await list();
  assert.equal(during.status, 200);
  assert.ok(isRecord((await jsonOf(during)).result));
  skill.remove();
  assert.equal((await list()).status, 404);
  await server.close();
});

Deno.test("a read handler's undefined or null is not found: -32601 legacy, -32602 with data.uri modern", async () => {
  const server = wireServer();
  const session = await openSession(server);
  for (const uri of ["orders://ORD-9", "orders://ORD-0"]) {
    const legacy = errorOf(
      await server.handle({
        jsonrpc: "2.0",
        id: 1,
        method: "resources/read",
        params: { uri },
      }),
    );
    assert.equal(legacy.code, -32601, uri);
    const overHttp = await jsonOf(
      await session.post({ jsonrpc: "2.0", id: 2, method: "resources/read", params: { uri } }),
    );
    assert.equal(errorOf(overHttp).code, -32601, uri);
    for (
      const reply of [
        await server.handle(modernRequest(3, "resources/read", { uri })),
        await jsonOf(await modernPost(server, modernRequest(3, "resources/read", { uri }))),
      ]
    ) {
      assert.deepEqual(errorOf(reply), {
        code: -32602,
        message: "Resource not found",
        data: { uri },
      });
    }
  }
  const found = await server.handle(modernRequest(4, "resources/read", { uri: "orders://ORD-1" }));
  assert.ok(found !== undefined && "result" in found, "ORD-1 is found");
  await server.close();
});

Deno.test("a header mismatch is audited with the code it was answered with, masked", async () => {
  const audit: Record<string, unknown>[] = [];
  const server = wireServer(audit as unknown[]);
  const body = modernRequest(5, "tools/call", { name: "legacy_style", arguments: { a: SECRET } });
  const cases: [Record<string, string | null>, number][] = [
    [{ "mcp-name": SECRET }, -32020],
    [{ "mcp-method": "tools/list" }, -32020],
    [{ "mcp-protocol-version": null }, -32020],
  ];
  for (const [patch, code] of cases) {
    const response = await modernPost(server, body, patch);
    assert.equal(response.status, 400);
    const reply = await jsonOf(response);
    assert.equal(errorOf(reply).code, code);
    assert.ok(!JSON.stringify(reply).includes(SECRET), "the echoed header is masked");
  }
  // A request missing its _meta is refused before dispatch too (-32602).
  const bare = await post(server, { jsonrpc: "2.0", id: 6, method: "tools/list", params: {} }, {
    "mcp-protocol-version": MODERN,
    "mcp-method": "tools/list",
  });
  assert.equal(bare.status, 400);
  await server.close();
  assert.equal(audit.length, 4, JSON.stringify(audit));
  const codes = audit.map((entry) => entry.error_code);
  assert.deepEqual(codes, [-32020, -32020, -32020, -32602]);
  for (const entry of audit.slice(0, 3)) {
    assert.equal(entry.method, "tools/call");
    assert.equal(entry.name, "legacy_style");
    assert.equal(entry.outcome, "invalid");
    assert.equal(entry.request_id, 5);
  }
  assert.ok(!JSON.stringify(audit).includes(SECRET), "the audit entry is masked");
});

Deno.test("a refused read is audited under the canonical URI, as every other entry", async () => {
  const audit: Record<string, unknown>[] = [];
  const server = wireServer(audit as unknown[]);
  const body = modernRequest(7, "resources/read", { uri: "ORDERS://ORD-%31/./x/.." });
  const response = await modernPost(server, body, { "mcp-method": "tools/list" });
  assert.equal(response.status, 400);
  await server.close();
  assert.deepEqual(audit.map((entry) => [entry.method, entry.name]), [
    ["resources/read", "orders://ORD-1/"],
  ]);
});

Deno.test("item and header names after Object.prototype members are plain unknown names", async () => {
  const server = wireServer();
  const session = await openSession(server);
  const names = ["constructor", "toString", "hasOwnProperty", "__proto__", "valueOf"];
  for (const name of names) {
    for (
      const [method, params] of [
        ["tools/call", { name, arguments: {} }],
        ["prompts/get", { name }],
        ["resources/read", { uri: name }],
      ] as const
    ) {
      const modern = await modernPost(server, modernRequest(1, method, params));
      const reply = await jsonOf(modern);
      assert.deepEqual([modern.status, errorOf(reply).code], [200, -32602], `${method} ${name}`);
      const legacy = await jsonOf(await session.post({ jsonrpc: "2.0", id: 2, method, params }));
      assert.equal(errorOf(legacy).code, -32601, `legacy ${method} ${name}`);
    }
    // An Mcp-Param header no tool declares is ignored, whatever its name.
    const call = modernRequest(3, "tools/call", { name: "legacy_style", arguments: {} });
    const response = await modernPost(server, call, { [`mcp-param-${name}`]: "x" });
    assert.deepEqual([response.status, errorOf(await jsonOf(response)).code], [200, -32601], name);
  }
  await server.close();
});

Deno.test("a legacy request refused for its version header is audited with its -32600", async () => {
  const audit: Record<string, unknown>[] = [];
  const server = wireServer(audit as unknown[]);
  const session = await openSession(server);
  const response = await session.post(
    { jsonrpc: "2.0", id: 11, method: "tools/call", params: { name: "legacy_style" } },
    { "mcp-protocol-version": SECRET },
  );
  assert.equal(response.status, 400);
  const reply = await jsonOf(response);
  assert.equal(errorOf(reply).code, -32600);
  assert.ok(!JSON.stringify(reply).includes(SECRET), "the echoed version is masked");
  await server.close();
  assert.equal(audit.length, 1);
  const [entry] = audit;
  assert.equal(entry?.error_code, -32600);
  assert.equal(entry?.request_id, 11);
  assert.equal(entry?.outcome, "invalid");
});

Deno.test("a long name cut short in an error message is masked before the cut, in both eras", async () => {
  const server = createServer({
    name: "cut",
    version: "1.0.0",
    guardrails: createGuardrails({
      redact: { patterns: ["ODK-[A-Za-z0-9]{24,}"] },
      access: { tools: { deny: ["deny*"] } },
      rateLimit: {
        rules: [{ scope: "tool", match: ["limit*"], capacity: 1, refillPerSecond: 0.001 }],
      },
    }),
    tools: [],
  });
  const long = (prefix: string) => `${prefix}${"x".repeat(70 - prefix.length)}${SECRET}`;
  const bodies = [
    ["tools/call", { name: long("deny"), arguments: {} }],
    ["tools/call", { name: long("limit"), arguments: {} }],
    ["tools/call", { name: long("none"), arguments: {} }],
    ["prompts/get", { name: long("p") }],
    ["resources/read", { uri: `r://${long("r")}` }],
    [long("method"), {}],
  ] as const;
  const replies: unknown[] = [];
  for (const [method, params] of bodies) {
    replies.push(await server.handle({ jsonrpc: "2.0", id: 1, method, params }));
    replies.push(await server.handle(modernRequest(2, method, params)));
    replies.push(await jsonOf(await modernPost(server, modernRequest(3, method, params))));
  }
  // Headers that disagree with the body, quoting a long value with the secret near the cut.
  const body = modernRequest(4, "tools/call", { name: "none", arguments: {} });
  for (const header of ["mcp-method", "mcp-name", "mcp-protocol-version"]) {
    replies.push(await jsonOf(await modernPost(server, body, { [header]: long("h") })));
  }
  await server.close();
  const text = JSON.stringify(replies);
  // The secret begins before the 80th character and ends after it: cut first, it would show half.
  assert.ok(!text.includes("ODK-4f9a"), text);
  assert.ok(text.includes("[REDACTED]"), text);
});
