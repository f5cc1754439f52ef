/**
 * The audit entry's `error_code` is the code the client received: for every
 * kind of refusal and failure, in both eras, on stdio's path and over HTTP.
 * Each request is paired with its entry by request id, and the entry's code
 * compared with the reply's.
 */

import assert from "node:assert/strict";
import { createServer, defineTool, ErrorCode, RpcError, type Server } from "../../../mod.ts";
import { callbackAuditSink, createGuardrails } from "../../../guardrails.ts";
import { isRecord, modernRequest, request } from "../../_helpers/helpers.ts";
import { jsonOf, modernPost, openSession } from "../../_helpers/http_helpers.ts";
import { EMPTY } from "../../_helpers/peer.ts";

function auditedServer(audit: Record<string, unknown>[]): Server {
  return createServer({
    name: "audited",
    version: "1.0.0",
    guardrails: createGuardrails({
      access: { tools: { deny: ["denied"] } },
      rateLimit: {
        rules: [{ scope: "tool", match: ["limited"], capacity: 1, refillPerSecond: 0.001 }],
      },
      audit: callbackAuditSink((entry) => void audit.push({ ...entry })),
    }),
    tools: ["ok", "denied", "limited"].map((name) =>
      defineTool({ name, description: name, inputSchema: EMPTY, handler: () => "done" })
    ).concat([
      defineTool({
        name: "strict",
        description: "Takes a number",
        inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
        handler: () => "done",
      }),
      defineTool({
        name: "old_not_found",
        description: "Throws -32002, resource not found before revision 2026-07-28",
        inputSchema: EMPTY,
        handler: () => {
          throw new RpcError(-32002, "Resource not found");
        },
      }),
      defineTool({
        name: "custom",
        description: "Throws a code of its own",
        inputSchema: EMPTY,
        handler: () => {
          throw new RpcError(-32042, "Custom");
        },
      }),
    ]),
    resourceTemplates: [{ uriTemplate: "orders://{id}", name: "order", read: () => undefined }],
    prompts: [{ name: "p", get: () => "hi" }],
  });
}

/** Every request shape whose code can differ between the eras. */
const CALLS: [string, Record<string, unknown>][] = [
  ["tools/call", { name: "ok", arguments: {} }],
  ["tools/call", { name: "denied", arguments: {} }],
  ["tools/call", { name: "limited", arguments: {} }],
  ["tools/call", { name: "limited", arguments: {} }],
  ["tools/call", { name: "missing", arguments: {} }],
  ["tools/call", { name: "strict", arguments: { n: "x" } }],
  ["tools/call", { name: "old_not_found", arguments: {} }],
  ["tools/call", { name: "custom", arguments: {} }],
  ["tools/call", { name: 5 }],
  ["resources/read", { uri: "orders://1" }],
  ["resources/read", { uri: "nothing://1" }],
  ["prompts/get", { name: "missing" }],
];

/** The reply's code (null for a result) against the entry of the same request id. */
function compare(
  replies: Map<number, Record<string, unknown>>,
  audit: Record<string, unknown>[],
  label: string,
): void {
  for (const [id, reply] of replies) {
    const entry = audit.find((candidate) => candidate.request_id === id);
    assert.ok(entry !== undefined, `${label}: request ${id} was audited`);
    const sent = isRecord(reply.error) ? reply.error.code : null;
    assert.equal(entry.error_code, sent, `${label}: request ${id} ${JSON.stringify(reply)}`);
  }
}

Deno.test("the audit records the code the client got, in both eras, over stdio and HTTP", async () => {
  const codes = new Set<unknown>();
  for (const transport of ["handle", "http"] as const) {
    for (const era of ["legacy", "modern"] as const) {
      const audit: Record<string, unknown>[] = [];
      const server = auditedServer(audit);
      const session = transport === "http" && era === "legacy"
        ? await openSession(server)
        : undefined;
      const replies = new Map<number, Record<string, unknown>>();
      for (const [index, [method, params]] of CALLS.entries()) {
        const id = index + 1;
        const body = era === "modern"
          ? modernRequest(id, method, params)
          : request(id, method, params);
        let reply: unknown;
        if (transport === "handle") reply = await server.handle(body);
        else if (session !== undefined) reply = await jsonOf(await session.post(body));
        else reply = await jsonOf(await modernPost(server, body));
        assert.ok(isRecord(reply));
        replies.set(id, reply);
        if (isRecord(reply.error)) codes.add(reply.error.code);
      }
      await server.close();
      compare(replies, audit, `${transport} ${era}`);
    }
  }
  // Not vacuous: both eras' own codes were sent and compared.
  for (const code of [-32001, -32002, -31001, -31002, -32601, -32602, -32042]) {
    assert.ok(codes.has(code), `code ${code} was sent`);
  }
  assert.ok(ErrorCode.AccessDenied === -32001);
});
