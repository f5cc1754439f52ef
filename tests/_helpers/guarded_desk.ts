/**
 * The order desk the guardrail pipeline tests share: tools, resources and
 * prompts with one item per outcome, its policy, a fake clock, an audit sink
 * that keeps entries in memory, and sessions over the in-memory transport.
 *
 * @module
 */

import assert from "node:assert/strict";
import {
  createServer,
  defineTool,
  ErrorCode,
  RpcError,
  type Server,
  type ServerOptions,
} from "../../mod.ts";
import {
  type AuditEntry,
  type AuditSink,
  callbackAuditSink,
  createGuardrails,
} from "../../guardrails.ts";
import type { GuardrailsConfig } from "../../src/guardrails/policy/create_guardrails.ts";
import { MemoryTransport } from "../../testing.ts";
import { captureLog, errorOf, isRecord, request, resultOf } from "./helpers.ts";

/** The order desk's own API key format, masked by a custom rule: "ODK-" and 24+ letters or digits. */
export const ODK_RULE = "ODK-[A-Za-z0-9]{24,}";
/** A key in the ODK format. */
export const ODK_KEY = "ODK-4f9a8b7c6d5e4f3a2b1c0d9e";
/** Valid base64 that the test rule below also matches, to show binary fields are never scanned. */
export const BASE64_SECRET = "ZZSECRETabcd1234";
/** A redaction rule that matches BASE64_SECRET. */
export const BASE64_RULE = "ZZSECRET[a-z0-9]{8}";
/** What a masked secret becomes. */
export const MASK = "[REDACTED]";
/** The fake clock's start, and the time of every audit entry until it moves. */
export const START: number = Date.UTC(2025, 5, 18, 9, 30);

/** A clock that only moves when told to. */
export function fakeClock(): { now: () => number; advance: (ms: number) => void } {
  let time = START;
  return { now: () => time, advance: (ms) => void (time += ms) };
}

/** An audit sink that keeps entries in memory. */
export function memorySink(): { sink: AuditSink; entries: AuditEntry[] } {
  const entries: AuditEntry[] = [];
  const sink = callbackAuditSink((entry) => void entries.push(entry));
  return { sink, entries };
}

/** The text of a tool result's first content block. */
export function firstText(result: Record<string, unknown>): string {
  const content = result.content;
  assert.ok(Array.isArray(content), JSON.stringify(result));
  const block: unknown = content[0];
  assert.ok(isRecord(block) && typeof block.text === "string", JSON.stringify(result));
  return block.text;
}

/** Names of the items in a list result. */
export function namesIn(reply: unknown, key: string, field = "name"): string[] {
  const list = resultOf(reply)[key];
  assert.ok(Array.isArray(list), JSON.stringify(reply));
  return list.map((item: unknown) => (isRecord(item) ? String(item[field]) : "?")).sort();
}

const ORDER_ID = { type: "string", pattern: "^ORD-[0-9]+$" } as const;

/**
 * Tools, resources and prompts with one item per outcome. `calls` records
 * every handler that ran, so a test can prove a refused call never got there.
 */
export function deskItems(calls: string[]): Pick<ServerOptions, "tools" | "resources" | "prompts"> {
  const ran = (name: string) => void calls.push(name);
  return {
    tools: [
      defineTool({
        name: "get_order",
        description: "Look an order up",
        inputSchema: { type: "object", properties: { order_id: ORDER_ID }, required: ["order_id"] },
        handler: ({ order_id }) => {
          ran("get_order");
          return `Order ${order_id}`;
        },
      }),
      defineTool({
        name: "login",
        description: "Takes credentials (to see them masked in the audit log)",
        inputSchema: {
          type: "object",
          properties: {
            user: { type: "string" },
            password: { type: "string" },
            api_key: { type: "string" },
            note: { type: "string" },
          },
        },
        handler: () => {
          ran("login");
          return "welcome";
        },
      }),
      defineTool({
        name: "cancel_order",
        description: "Cancel an order",
        inputSchema: { type: "object", properties: { order_id: ORDER_ID }, required: ["order_id"] },
        handler: () => {
          ran("cancel_order");
          return "cancelled";
        },
      }),
      defineTool({
        name: "fail",
        description: "Fails as a tool (isError)",
        inputSchema: { type: "object" },
        handler: () => {
          ran("fail");
          throw new Error("the warehouse is closed");
        },
      }),
      defineTool({
        name: "crash",
        description: "Fails as a protocol error",
        inputSchema: { type: "object" },
        handler: () => {
          ran("crash");
          throw new RpcError(ErrorCode.InternalError, "Internal error");
        },
      }),
    ],
    resources: [
      {
        uri: "orders://ORD-1",
        name: "ORD-1",
        read: () => {
          ran("orders://ORD-1");
          return { id: "ORD-1" };
        },
      },
      {
        uri: "orders://bad",
        name: "bad",
        read: () => {
          ran("orders://bad");
          throw new RpcError(ErrorCode.InvalidParams, "Invalid params: no such order");
        },
      },
      {
        uri: "orders://broken",
        name: "broken",
        read: () => {
          ran("orders://broken");
          throw new Error("disk on fire");
        },
      },
      { uri: "vault://keys", name: "keys", read: () => (ran("vault://keys"), "top secret") },
    ],
    prompts: [
      {
        name: "summarize",
        arguments: [{ name: "order_id", required: true }],
        get: (args: { order_id?: string }) => {
          ran("summarize");
          return `Summarize ${args.order_id}`;
        },
      },
      {
        name: "review",
        arguments: [{ name: "path", required: true }],
        get: (args: { path?: string }) => {
          ran("review");
          return `Review ${args.path}`;
        },
      },
      {
        name: "broken_prompt",
        get: () => {
          ran("broken_prompt");
          throw new Error("template missing");
        },
      },
      { name: "internal_notes", get: () => (ran("internal_notes"), "notes") },
    ],
  };
}

/** The desk's policy: deny one of each kind, limit one of each kind to a single call. */
export function deskPolicy(audit: AuditSink): GuardrailsConfig {
  return {
    access: {
      tools: { deny: ["cancel_order"] },
      resources: { deny: ["vault://*"] },
      prompts: { deny: ["internal_*"] },
    },
    rateLimit: {
      rules: [{
        scope: "tool",
        match: ["get_order", "orders://ORD-1", "summarize"],
        kinds: ["tool", "resource", "prompt"],
        capacity: 1,
        refillPerSecond: 0.25,
      }],
    },
    redact: { patterns: [ODK_RULE] },
    audit,
  };
}

/** A desk server and what a test reads from it. */
export interface Desk {
  server: Server;
  entries: AuditEntry[];
  calls: string[];
  lines: string[];
  clock: ReturnType<typeof fakeClock>;
}

/**
 * The desk under `config` (by default its own policy) for principal `alice`,
 * its guardrails on a fake clock, its log captured.
 */
export function desk(
  config: (audit: AuditSink) => GuardrailsConfig = deskPolicy,
  extra: Partial<ServerOptions> = {},
): Desk {
  const { sink, entries } = memorySink();
  const calls: string[] = [];
  const clock = fakeClock();
  const { lines, log } = captureLog();
  const server = createServer({
    name: "desk",
    version: "1.0.0",
    log,
    principal: "alice",
    guardrails: createGuardrails(config(sink), { now: clock.now }),
    ...deskItems(calls),
    ...extra,
  });
  return { server, entries, calls, lines, clock };
}

/** Runs one session over a MemoryTransport and returns the replies by id. */
export async function session(
  server: Server,
  messages: readonly unknown[],
  principal?: string,
  clientName = "test-client",
): Promise<Map<unknown, unknown>> {
  const transport = new MemoryTransport([
    request(0, "initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: clientName, version: "1.0.0" },
    }),
    { jsonrpc: "2.0", method: "notifications/initialized" },
    ...messages,
  ]);
  await server.connect(transport, principal === undefined ? {} : { principal });
  await transport.closed;
  const byId = new Map<unknown, unknown>();
  for (const reply of transport.replies) {
    if (isRecord(reply)) byId.set(reply.id, reply);
  }
  return byId;
}

/** Sends tools/call requests one after another and returns each reply's error code, or "ok". */
export async function callTools(
  server: Server,
  calls: [string, Record<string, unknown>][],
): Promise<(number | "ok")[]> {
  const codes: (number | "ok")[] = [];
  let id = 1;
  for (const [name, args] of calls) {
    const reply = await server.handle(request(id++, "tools/call", { name, arguments: args }));
    codes.push(isRecord(reply) && isRecord(reply.error) ? errorOf(reply).code : "ok");
  }
  return codes;
}
