/**
 * Redaction inside a server: every outgoing path (tool text, structured
 * content, content blocks, resources, prompts, errors, log and progress
 * notifications, the audit log) is masked, and binary data never scanned.
 */

import assert from "node:assert/strict";
import { createServer, defineTool, ErrorCode, RpcError, type Server } from "../../../mod.ts";
import { type AuditEntry, createGuardrails } from "../../../guardrails.ts";
import { MemoryTransport } from "../../../testing.ts";
import { errorOf, isRecord, request, resultOf } from "../../_helpers/helpers.ts";
import {
  BASE64_RULE,
  BASE64_SECRET,
  desk,
  firstText,
  MASK,
  memorySink,
  ODK_KEY,
  ODK_RULE,
  START,
} from "../../_helpers/guarded_desk.ts";

/** Bytes whose base64 is BASE64_SECRET, so a resource's blob is exactly that text. */
function secretBytes(): Uint8Array {
  return Uint8Array.from(atob(BASE64_SECRET), (char) => char.charCodeAt(0));
}

/** A server whose every outgoing path carries an ODK key, a password or the base64 lookalike. */
function leakyServer(): { server: Server; entries: AuditEntry[] } {
  const { sink, entries } = memorySink();
  const server = createServer({
    name: "leaky",
    version: "1.0.0",
    log: () => {},
    guardrails: createGuardrails({
      redact: { patterns: [ODK_RULE, BASE64_RULE] },
      audit: sink,
    }, { now: () => START }),
    tools: [
      defineTool({
        name: "text",
        description: "Text with a key",
        inputSchema: { type: "object" },
        handler: () => `Paid with ${ODK_KEY}.`,
      }),
      defineTool({
        name: "structured",
        description: "Typed output with a password and a key",
        inputSchema: { type: "object" },
        outputSchema: {
          type: "object",
          properties: { user: { type: "string" }, password: { type: "string" } },
        },
        handler: () => ({
          structuredContent: { user: "ada", password: "hunter2", note: `key ${ODK_KEY}` },
        }),
      }),
      defineTool({
        name: "blocks",
        description: "Every kind of content block",
        inputSchema: { type: "object" },
        handler: () => [
          { type: "text", text: `one ${BASE64_SECRET} two ${ODK_KEY}` },
          { type: "image", data: BASE64_SECRET, mimeType: "image/png" },
          { type: "audio", data: BASE64_SECRET, mimeType: "audio/wav" },
          {
            type: "resource",
            resource: { uri: `memo://${BASE64_SECRET}`, mimeType: "text/plain", text: ODK_KEY },
          },
          {
            type: "resource",
            resource: { uri: "memo://json", mimeType: "application/json", text: '{"token":"t-1"}' },
          },
          {
            type: "resource",
            resource: { uri: "memo://blob", mimeType: "image/png", blob: BASE64_SECRET },
          },
          { type: "resource_link", uri: `orders://${BASE64_SECRET}`, name: "link" },
        ],
      }),
      defineTool({
        name: "fails",
        description: "Fails with a key in its message",
        inputSchema: { type: "object" },
        handler: () => {
          throw new Error(`cannot use ${ODK_KEY}`);
        },
      }),
      defineTool({
        name: "refuses",
        description: "A protocol error with a key in its message and data",
        inputSchema: { type: "object" },
        handler: () => {
          throw new RpcError(ErrorCode.InvalidParams, `Invalid params: bad key ${ODK_KEY}`, {
            api_key: "k-123",
            detail: `key ${ODK_KEY}`,
            count: 3,
          });
        },
      }),
      defineTool({
        name: "login",
        description: "Takes credentials",
        inputSchema: { type: "object" },
        handler: () => "welcome",
      }),
      defineTool({
        name: BASE64_SECRET,
        description: "A tool whose name matches a redaction rule",
        inputSchema: { type: "object" },
        handler: () => "named",
      }),
    ],
    resources: [
      { uri: "memo://text", name: "text", read: () => `the key is ${ODK_KEY}` },
      {
        uri: "memo://json",
        name: "json",
        read: () => ({ user: "ada", password: "hunter2", nested: { note: ODK_KEY } }),
      },
      { uri: "memo://bytes", name: "bytes", read: () => secretBytes() },
      { uri: `memo://${BASE64_SECRET}`, name: "named", read: () => "plain" },
    ],
    prompts: [{
      name: "briefing",
      description: `Uses ${ODK_KEY}`,
      get: () => ({
        description: `Briefing with ${ODK_KEY}`,
        messages: [
          { role: "user", content: { type: "text", text: `Use ${ODK_KEY}` } },
          {
            role: "assistant",
            content: {
              type: "resource",
              resource: { uri: "memo://text", mimeType: "text/plain", text: `key ${ODK_KEY}` },
            },
          },
          { role: "user", content: { type: "image", data: BASE64_SECRET, mimeType: "image/png" } },
        ],
      }),
    }],
  });
  return { server, entries };
}

Deno.test("redaction masks tool text, structured content and its JSON mirror", async () => {
  const { server } = leakyServer();
  const text = resultOf(await server.handle(request(1, "tools/call", { name: "text" })));
  assert.deepEqual(text, { content: [{ type: "text", text: `Paid with ${MASK}.` }] });

  const structured = resultOf(
    await server.handle(request(2, "tools/call", { name: "structured" })),
  );
  const masked = { user: "ada", password: MASK, note: `key ${MASK}` };
  assert.deepEqual(structured.structuredContent, masked);
  assert.deepEqual(JSON.parse(firstText(structured)), masked);
  assert.ok(!JSON.stringify(structured).includes("hunter2"));
});

Deno.test("redaction masks text, embedded resources and URIs, never binary data", async () => {
  const { server } = leakyServer();
  const reply = await server.handle(request(BASE64_SECRET, "tools/call", { name: "blocks" }));
  // The request id is the client's and comes back as it was sent.
  assert.ok(isRecord(reply) && reply.id === BASE64_SECRET);
  assert.deepEqual(resultOf(reply).content, [
    { type: "text", text: `one ${MASK} two ${MASK}` },
    { type: "image", data: BASE64_SECRET, mimeType: "image/png" },
    { type: "audio", data: BASE64_SECRET, mimeType: "audio/wav" },
    {
      type: "resource",
      resource: { uri: `memo://${MASK}`, mimeType: "text/plain", text: MASK },
    },
    {
      type: "resource",
      resource: { uri: "memo://json", mimeType: "application/json", text: `{"token":"${MASK}"}` },
    },
    {
      type: "resource",
      resource: { uri: "memo://blob", mimeType: "image/png", blob: BASE64_SECRET },
    },
    { type: "resource_link", uri: `orders://${MASK}`, name: "link" },
  ]);
});

Deno.test("redaction masks resources/read text, JSON resources by key and URIs, not blobs", async () => {
  const { server } = leakyServer();
  const read = async (uri: string) =>
    resultOf(await server.handle(request(1, "resources/read", { uri }))).contents;
  assert.deepEqual(await read("memo://text"), [
    { uri: "memo://text", mimeType: "text/plain", text: `the key is ${MASK}` },
  ]);
  const contents = await read("memo://json");
  assert.ok(Array.isArray(contents) && contents.length === 1);
  const [json] = contents;
  assert.ok(isRecord(json) && typeof json.text === "string");
  assert.equal(json.mimeType, "application/json");
  assert.deepEqual(JSON.parse(json.text), {
    user: "ada",
    password: MASK,
    nested: { note: MASK },
  });
  assert.deepEqual(await read("memo://bytes"), [
    { uri: "memo://bytes", mimeType: "application/octet-stream", blob: BASE64_SECRET },
  ]);
  // A secret in the URI the client asked for is not repeated back either.
  assert.deepEqual(await read(`memo://${BASE64_SECRET}`), [
    { uri: `memo://${MASK}`, mimeType: "text/plain", text: "plain" },
  ]);
});

Deno.test("redaction masks prompt messages and descriptions, not image data", async () => {
  const { server } = leakyServer();
  const listed = resultOf(await server.handle(request(1, "prompts/list")));
  // Listings pass the server's masker like every other reply (issue 22: every outgoing byte).
  assert.ok(!JSON.stringify(listed).includes(ODK_KEY));
  assert.ok(JSON.stringify(listed).includes(MASK));
  const result = resultOf(await server.handle(request(2, "prompts/get", { name: "briefing" })));
  assert.deepEqual(result, {
    description: `Briefing with ${MASK}`,
    messages: [
      { role: "user", content: { type: "text", text: `Use ${MASK}` } },
      {
        role: "assistant",
        content: {
          type: "resource",
          resource: { uri: "memo://text", mimeType: "text/plain", text: `key ${MASK}` },
        },
      },
      { role: "user", content: { type: "image", data: BASE64_SECRET, mimeType: "image/png" } },
    ],
  });
});

Deno.test("redaction masks tool error results and JSON-RPC error messages and data", async () => {
  const { server } = leakyServer();
  const failed = resultOf(await server.handle(request(1, "tools/call", { name: "fails" })));
  assert.deepEqual(failed, {
    content: [{ type: "text", text: `cannot use ${MASK}` }],
    isError: true,
  });
  const refused = errorOf(await server.handle(request(2, "tools/call", { name: "refuses" })));
  assert.deepEqual(refused, {
    code: ErrorCode.InvalidParams,
    message: `Invalid params: bad key ${MASK}`,
    data: { api_key: MASK, detail: `key ${MASK}`, count: 3 },
  });
  // A name the client sent that matches a rule is masked where the server echoes it.
  const unknown = errorOf(
    await server.handle(request(3, "tools/call", { name: `x${ODK_KEY}` })),
  );
  assert.equal(unknown.message, `Unknown tool: "x${MASK}"`);
});

Deno.test("the audit log masks arguments and names by key and by rule, and keeps ids and methods", async () => {
  const { server, entries } = leakyServer();
  await server.handle(request(7, "tools/call", {
    name: "login",
    arguments: {
      user: "ada",
      password: "hunter2",
      api_key: "k-123",
      "API-Key": "k-456",
      note: `key ${ODK_KEY}`,
      nested: [{ Password: "p" }, { token: "t" }, BASE64_SECRET],
    },
  }));
  await server.handle(request(BASE64_SECRET, "tools/call", { name: BASE64_SECRET }));
  await server.handle(request(9, "resources/read", { uri: `memo://${BASE64_SECRET}` }));
  // Ids stay as sent: the reply must echo them, and the audit must match replies.
  assert.deepEqual(entries.map((entry) => [entry.request_id, entry.method, entry.name]), [
    [7, "tools/call", "login"],
    [BASE64_SECRET, "tools/call", MASK],
    [9, "resources/read", `memo://${MASK}`],
  ]);
  assert.deepEqual(entries[0]?.arguments, {
    user: "ada",
    password: MASK,
    api_key: MASK,
    "API-Key": MASK,
    note: `key ${MASK}`,
    nested: [{ Password: MASK }, { token: MASK }, MASK],
  });
  assert.ok(!JSON.stringify(entries).includes("hunter2"));
  assert.ok(!JSON.stringify(entries).includes(ODK_KEY));
});

Deno.test("with redaction off, audit arguments are still masked by the default keys and presets", async () => {
  const { server, entries } = desk((audit) => ({ audit }));
  await server.handle(request(1, "tools/call", {
    name: "login",
    arguments: { user: "ada", password: "hunter2", note: `ref ${ODK_KEY}` },
  }));
  // The custom ODK rule lives in `redact`, so without it only the defaults apply.
  assert.deepEqual(entries[0]?.arguments, { user: "ada", password: MASK, note: `ref ${ODK_KEY}` });
});

Deno.test({
  name: "redaction masks the title and description of resource links in tool results",
  fn: async () => {
    const { sink } = memorySink();
    const server = createServer({
      name: "links",
      version: "1.0.0",
      guardrails: createGuardrails({ redact: { patterns: [ODK_RULE] }, audit: sink }),
      tools: [defineTool({
        name: "link",
        description: "Links to an order",
        inputSchema: { type: "object" },
        handler: () => [{
          type: "resource_link",
          uri: "orders://ORD-2",
          name: "ORD-2",
          title: `Paid with ${ODK_KEY}`,
          description: `Paid with ${ODK_KEY}`,
        }],
      })],
    });
    const result = resultOf(await server.handle(request(1, "tools/call", { name: "link" })));
    assert.deepEqual(result.content, [{
      type: "resource_link",
      uri: "orders://ORD-2",
      name: "ORD-2",
      title: `Paid with ${MASK}`,
      description: `Paid with ${MASK}`,
    }]);
  },
});

Deno.test("redaction masks log notifications and progress messages a handler sends", async () => {
  const { sink } = memorySink();
  const server = createServer({
    name: "chatty",
    version: "1.0.0",
    guardrails: createGuardrails({ redact: { patterns: [ODK_RULE] }, audit: sink }),
    tools: [defineTool({
      name: "chatty",
      description: "Logs and reports progress",
      inputSchema: { type: "object" },
      handler: (_args, context) => {
        context.log("error", { password: "hunter2", note: `using ${ODK_KEY}` }, "desk");
        context.log("error", `plain ${ODK_KEY}`);
        context.progress(1, 2, `step with ${ODK_KEY}`);
        return "done";
      },
    })],
  });
  const transport = new MemoryTransport([
    request(1, "tools/call", { name: "chatty", _meta: { progressToken: "p" } }),
  ]);
  await server.connect(transport);
  assert.deepEqual(transport.replies, [
    {
      jsonrpc: "2.0",
      method: "notifications/message",
      params: { level: "error", data: { password: MASK, note: `using ${MASK}` }, logger: "desk" },
    },
    {
      jsonrpc: "2.0",
      method: "notifications/message",
      params: { level: "error", data: `plain ${MASK}` },
    },
    {
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: "p", progress: 1, total: 2, message: `step with ${MASK}` },
    },
    { jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "done" }] } },
  ]);
});
