/**
 * The guardrail pipeline end to end: `createServer({ guardrails: createGuardrails(...) })`
 * spoken to through `server.handle()` and the in-memory transport, for every
 * outcome of every guarded method, bypass attempts, the order of the steps,
 * the limiter under concurrency, redaction of every outgoing path and the
 * audit log's completeness at shutdown.
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
import type { Guardrail } from "../../src/call/guardrail.ts";
import type { GuardrailsConfig } from "../../src/guardrails/policy/create_guardrails.ts";
import {
  type AuditEntry,
  type AuditSink,
  callbackAuditSink,
  createGuardrails,
  type GuardedCall,
} from "../../guardrails.ts";
import type { AuditTarget } from "../../src/guardrails/policy/create_guardrails.ts";
import { createMemoryPair, MemoryTransport } from "../../testing.ts";
import {
  captureLog,
  errorOf,
  initialize,
  isRecord,
  request,
  resultOf,
} from "../_helpers/helpers.ts";

/** The order desk's own API key format, masked by a custom rule: "ODK-" and 24+ letters or digits. */
const ODK_RULE = "ODK-[A-Za-z0-9]{24,}";
const ODK_KEY = "ODK-4f9a8b7c6d5e4f3a2b1c0d9e";
/** Valid base64 that the test rule below also matches, to show binary fields are never scanned. */
const BASE64_SECRET = "ZZSECRETabcd1234";
const BASE64_RULE = "ZZSECRET[a-z0-9]{8}";
const MASK = "[REDACTED]";
const START = Date.UTC(2025, 5, 18, 9, 30);

/** A clock that only moves when told to. */
function fakeClock(): { now: () => number; advance: (ms: number) => void } {
  let time = START;
  return { now: () => time, advance: (ms) => void (time += ms) };
}

/** An audit sink that keeps entries in memory. */
function memorySink(): { sink: AuditSink; entries: AuditEntry[] } {
  const entries: AuditEntry[] = [];
  const sink = callbackAuditSink((entry) => void entries.push(entry));
  return { sink, entries };
}

/** The text of a tool result's first content block. */
function firstText(result: Record<string, unknown>): string {
  const content = result.content;
  assert.ok(Array.isArray(content), JSON.stringify(result));
  const block: unknown = content[0];
  assert.ok(isRecord(block) && typeof block.text === "string", JSON.stringify(result));
  return block.text;
}

/** Names of the items in a list result. */
function namesIn(reply: unknown, key: string, field = "name"): string[] {
  const list = resultOf(reply)[key];
  assert.ok(Array.isArray(list), JSON.stringify(reply));
  return list.map((item: unknown) => (isRecord(item) ? String(item[field]) : "?")).sort();
}

const ORDER_ID = { type: "string", pattern: "^ORD-[0-9]+$" } as const;

/**
 * Tools, resources and prompts with one item per outcome. `calls` records
 * every handler that ran, so a test can prove a refused call never got there.
 */
function deskItems(calls: string[]): Pick<ServerOptions, "tools" | "resources" | "prompts"> {
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
function deskPolicy(audit: AuditSink): GuardrailsConfig {
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

interface Desk {
  server: Server;
  entries: AuditEntry[];
  calls: string[];
  lines: string[];
  clock: ReturnType<typeof fakeClock>;
}

function desk(
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

type Expected =
  | { outcome: "ok" | "tool_error"; code: null }
  | { outcome: "denied" | "rate_limited" | "invalid" | "internal_error" | "error"; code: number };

interface Case {
  label: string;
  method: "tools/call" | "resources/read" | "prompts/get";
  params: Record<string, unknown>;
  expected: Expected;
  /** The arguments the audit entry must show, when not the ones sent. */
  audited?: unknown;
  /** Extra checks on the reply. */
  check?: (reply: unknown) => void;
}

const ok: Expected = { outcome: "ok", code: null };
const denied: Expected = { outcome: "denied", code: ErrorCode.AccessDenied };
const limited: Expected = { outcome: "rate_limited", code: ErrorCode.RateLimited };
const invalid: Expected = { outcome: "invalid", code: ErrorCode.InvalidParams };
const notFound: Expected = { outcome: "invalid", code: ErrorCode.MethodNotFound };
const internal: Expected = { outcome: "internal_error", code: ErrorCode.InternalError };

function checkRateLimited(label: string) {
  return (reply: unknown): void => {
    const error = errorOf(reply);
    assert.ok(isRecord(error.data), JSON.stringify(reply));
    const seconds = error.data.retry_after_seconds;
    assert.ok(typeof seconds === "number" && Number.isInteger(seconds) && seconds >= 1, label);
    // 1 token at 0.25 per second: 4 s until the next one.
    assert.equal(seconds, 4);
    assert.deepEqual(Object.keys(error.data), ["retry_after_seconds"]);
  };
}

function checkDenied(label: string) {
  return (reply: unknown): void => {
    // The message names the item and nothing else: no rule, no principal.
    assert.equal(errorOf(reply).message, `Access denied: ${label}`);
    assert.equal(errorOf(reply).data, undefined);
  };
}

const CASES: readonly Case[] = [
  {
    label: "tool ok",
    method: "tools/call",
    params: { name: "get_order", arguments: { order_id: "ORD-1" } },
    expected: ok,
    check: (reply) => assert.equal(firstText(resultOf(reply)), "Order ORD-1"),
  },
  {
    label: "tool rate limited",
    method: "tools/call",
    params: { name: "get_order", arguments: { order_id: "ORD-2" } },
    expected: limited,
    check: checkRateLimited("tool"),
  },
  {
    label: "tool error",
    method: "tools/call",
    params: { name: "fail", arguments: {} },
    expected: { outcome: "tool_error", code: null },
    check: (reply) => {
      assert.equal(resultOf(reply).isError, true);
      assert.equal(firstText(resultOf(reply)), "the warehouse is closed");
    },
  },
  {
    label: "tool denied",
    method: "tools/call",
    params: { name: "cancel_order", arguments: { order_id: "ORD-1" } },
    expected: denied,
    check: checkDenied('tool "cancel_order"'),
  },
  {
    label: "tool invalid",
    method: "tools/call",
    params: { name: "login", arguments: { user: 7, password: "hunter2" } },
    expected: invalid,
    audited: { user: 7, password: MASK },
    check: (reply) => {
      const data = errorOf(reply).data;
      assert.ok(isRecord(data) && Array.isArray(data.violations), JSON.stringify(reply));
      assert.deepEqual(data.violations.map((v: unknown) => isRecord(v) && v.path), ["$.user"]);
    },
  },
  {
    label: "tool not found",
    method: "tools/call",
    params: { name: "no_such_tool", arguments: {} },
    expected: notFound,
  },
  {
    label: "tool internal error",
    method: "tools/call",
    params: { name: "crash", arguments: {} },
    // The handler threw the RpcError itself: audited as the handler's error, whatever its code.
    expected: { outcome: "error", code: ErrorCode.InternalError },
  },
  {
    label: "resource ok",
    method: "resources/read",
    params: { uri: "orders://ORD-1" },
    expected: ok,
    check: (reply) => {
      assert.deepEqual(resultOf(reply).contents, [{
        uri: "orders://ORD-1",
        mimeType: "application/json",
        text: '{"id":"ORD-1"}',
      }]);
    },
  },
  {
    label: "resource rate limited",
    method: "resources/read",
    params: { uri: "orders://ORD-1" },
    expected: limited,
    check: checkRateLimited("resource"),
  },
  {
    label: "resource denied",
    method: "resources/read",
    params: { uri: "vault://keys" },
    expected: denied,
    check: checkDenied('resource "vault://keys"'),
  },
  {
    label: "resource invalid",
    method: "resources/read",
    params: { uri: "orders://bad" },
    // The reader threw -32602 itself: the handler's error, not a validation step's.
    expected: { outcome: "error", code: ErrorCode.InvalidParams },
  },
  {
    label: "resource not found",
    method: "resources/read",
    params: { uri: "orders://ORD-404" },
    expected: notFound,
  },
  {
    label: "resource internal error",
    method: "resources/read",
    params: { uri: "orders://broken" },
    expected: internal,
    check: (reply) => assert.equal(errorOf(reply).message, "Internal error"),
  },
  {
    label: "prompt ok",
    method: "prompts/get",
    params: { name: "summarize", arguments: { order_id: "ORD-1" } },
    expected: ok,
    check: (reply) => {
      assert.deepEqual(resultOf(reply).messages, [
        { role: "user", content: { type: "text", text: "Summarize ORD-1" } },
      ]);
    },
  },
  {
    label: "prompt rate limited",
    method: "prompts/get",
    params: { name: "summarize", arguments: { order_id: "ORD-1" } },
    expected: limited,
    check: checkRateLimited("prompt"),
  },
  {
    label: "prompt denied",
    method: "prompts/get",
    params: { name: "internal_notes" },
    expected: denied,
    check: checkDenied('prompt "internal_notes"'),
  },
  {
    label: "prompt invalid",
    method: "prompts/get",
    params: { name: "review", arguments: {} },
    expected: invalid,
    check: (reply) => {
      assert.deepEqual(errorOf(reply).data, {
        violations: [{ path: "$.path", message: "is required" }],
      });
    },
  },
  {
    label: "prompt not found",
    method: "prompts/get",
    params: { name: "no_such_prompt" },
    expected: notFound,
  },
  {
    label: "prompt internal error",
    method: "prompts/get",
    params: { name: "broken_prompt" },
    expected: internal,
    check: (reply) => assert.equal(errorOf(reply).message, "Internal error"),
  },
];

/** What reached a handler after running CASES: never a denied or rate-limited call. */
const HANDLERS_RUN = [
  "get_order",
  "fail",
  "crash",
  "orders://ORD-1",
  "orders://bad",
  "orders://broken",
  "summarize",
  "broken_prompt",
];

Deno.test("createServer() with guardrails ends each guarded method in every outcome, audited once each", async () => {
  const { server, entries, calls } = desk();
  await server.handle(initialize(0));
  assert.equal(entries.length, 0, "initialize is not a guarded call");
  let id = 1;
  for (const c of CASES) {
    const before: number = entries.length;
    const reply: unknown = await server.handle(request(id, c.method, c.params));
    if (c.expected.code === null) resultOf(reply);
    else assert.equal(errorOf(reply).code, c.expected.code, `${c.label}: ${JSON.stringify(reply)}`);
    c.check?.(reply);
    assert.equal(entries.length, before + 1, `${c.label}: one audit entry`);
    const entry: AuditEntry | undefined = entries[before];
    assert.ok(entry !== undefined);
    assert.ok(entry.duration_ms >= 0, c.label);
    assert.deepEqual({ ...entry, duration_ms: 0 }, {
      seq: before + 1,
      time: new Date(START).toISOString(),
      principal: "alice",
      client: { name: "test-client", version: "1.0.0" },
      method: c.method,
      name: c.params.name ?? c.params.uri,
      arguments: c.audited ?? (c.method === "resources/read" ? {} : c.params.arguments ?? {}),
      outcome: c.expected.outcome,
      error_code: c.expected.code,
      duration_ms: 0,
      request_id: id,
    }, c.label);
    id++;
  }
  assert.deepEqual(calls, HANDLERS_RUN);
});

Deno.test("createServer() with guardrails audits no list, ping or initialize call", async () => {
  const { server, entries } = desk();
  await server.handle(initialize(0));
  for (const method of ["ping", "tools/list", "resources/list", "prompts/list"]) {
    resultOf(await server.handle(request(1, method)));
  }
  assert.equal(entries.length, 0);
});

Deno.test("the audit log records the principal as null and the client as null before initialize", async () => {
  const { sink, entries } = memorySink();
  const server = createServer({
    name: "anonymous",
    version: "1.0.0",
    guardrails: createGuardrails({ audit: sink }),
    ...deskItems([]),
  });
  resultOf(await server.handle(request("r-1", "tools/call", { name: "fail" })));
  assert.equal(entries.length, 1);
  assert.equal(entries[0]?.principal, null);
  assert.equal(entries[0]?.client, null);
  assert.equal(entries[0]?.request_id, "r-1");
});

Deno.test("the injected clock drives bucket refills and audit times", async () => {
  const { server, entries, clock } = desk();
  const call = request(1, "tools/call", { name: "get_order", arguments: { order_id: "ORD-1" } });
  const retryAfter = async (): Promise<unknown> => {
    const reply = await server.handle(call);
    if (isRecord(reply) && isRecord(reply.result)) return "ok";
    const { data } = errorOf(reply);
    return isRecord(data) ? data.retry_after_seconds : data;
  };

  const seen = [await retryAfter(), await retryAfter()];
  clock.advance(3_001); // 0.75 of a token at 0.25 per second: one more second to wait
  seen.push(await retryAfter());
  clock.advance(999);
  seen.push(await retryAfter(), await retryAfter());
  assert.deepEqual(seen, ["ok", 4, 1, "ok", 4]);
  assert.deepEqual(entries.map((entry) => entry.time), [
    new Date(START).toISOString(),
    new Date(START).toISOString(),
    new Date(START + 3_001).toISOString(),
    new Date(START + 4_000).toISOString(),
    new Date(START + 4_000).toISOString(),
  ]);
});

/** Runs one session over a MemoryTransport and returns the replies by id. */
async function session(
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

const LISTS = [
  request("tools", "tools/list"),
  request("resources", "resources/list"),
  request("prompts", "prompts/list"),
];

Deno.test("the access policy hides denied tools, resources and prompts from the lists", async () => {
  const { server } = desk();
  const replies = await session(server, LISTS);
  assert.deepEqual(namesIn(replies.get("tools"), "tools"), ["crash", "fail", "get_order", "login"]);
  assert.deepEqual(namesIn(replies.get("resources"), "resources", "uri"), [
    "orders://ORD-1",
    "orders://bad",
    "orders://broken",
  ]);
  assert.deepEqual(namesIn(replies.get("prompts"), "prompts"), [
    "broken_prompt",
    "review",
    "summarize",
  ]);
});

/** Allow lists for everyone, widened for `admin`, narrowed for `auditor`. */
function principalPolicy(audit: AuditSink): GuardrailsConfig {
  return {
    access: {
      tools: { allow: ["get_order"], deny: ["crash"] },
      principals: {
        admin: { tools: { allow: ["*"] }, resources: { deny: ["orders://*"] } },
        auditor: { prompts: { allow: ["review"] } },
      },
    },
    audit,
  };
}

Deno.test("the access policy applies per-principal rules by the session's principal", async () => {
  const { server, entries } = desk(principalPolicy);
  const messages = [
    ...LISTS,
    request("cancel", "tools/call", { name: "cancel_order", arguments: { order_id: "ORD-1" } }),
    request("crash", "tools/call", { name: "crash" }),
    request("vault", "resources/read", { uri: "vault://keys" }),
    request("order", "resources/read", { uri: "orders://ORD-1" }),
  ];
  const cases: [
    principal: string | undefined,
    tools: string[],
    resources: string[],
    prompts: string[],
  ][] = [
    // createServer({ principal: "alice" }) applies when connect() names none; alice has no own rules.
    [undefined, ["get_order"], [
      "orders://ORD-1",
      "orders://bad",
      "orders://broken",
      "vault://keys",
    ], ["broken_prompt", "internal_notes", "review", "summarize"]],
    ["admin", ["cancel_order", "fail", "get_order", "login"], ["vault://keys"], [
      "broken_prompt",
      "internal_notes",
      "review",
      "summarize",
    ]],
    ["auditor", ["get_order"], [
      "orders://ORD-1",
      "orders://bad",
      "orders://broken",
      "vault://keys",
    ], ["review"]],
  ];
  for (const [principal, tools, resources, prompts] of cases) {
    const label = principal ?? "the server's principal";
    const replies = await session(server, messages, principal);
    assert.deepEqual(namesIn(replies.get("tools"), "tools"), tools, label);
    assert.deepEqual(namesIn(replies.get("resources"), "resources", "uri"), resources, label);
    assert.deepEqual(namesIn(replies.get("prompts"), "prompts"), prompts, label);
    const code = (id: string) => {
      const reply = replies.get(id);
      return isRecord(reply) && isRecord(reply.error) ? reply.error.code : "ok";
    };
    const allowed = (name: string) => tools.includes(name) ? "ok" : ErrorCode.AccessDenied;
    assert.equal(code("cancel"), allowed("cancel_order"), label);
    assert.equal(code("crash"), ErrorCode.AccessDenied, `${label}: deny beats allow`);
    assert.equal(code("vault"), resources.includes("vault://keys") ? "ok" : -32001, label);
    assert.equal(code("order"), resources.includes("orders://ORD-1") ? "ok" : -32001, label);
  }
  assert.deepEqual(
    [...new Set(entries.map((entry) => entry.principal))],
    ["alice", "admin", "auditor"],
  );
});

Deno.test("a client cannot choose its principal: clientInfo, _meta and params are ignored", async () => {
  const { server, entries, calls } = desk(principalPolicy);
  const replies = await session(
    server,
    [
      request("tools", "tools/list"),
      request(1, "tools/call", { name: "cancel_order", arguments: { order_id: "ORD-1" } }),
      request(2, "tools/call", {
        name: "cancel_order",
        arguments: { order_id: "ORD-1" },
        _meta: { principal: "admin" },
        principal: "admin",
      }),
    ],
    undefined,
    "admin",
  );
  assert.deepEqual(namesIn(replies.get("tools"), "tools"), ["get_order"]);
  assert.equal(errorOf(replies.get(1)).code, ErrorCode.AccessDenied);
  assert.equal(errorOf(replies.get(2)).code, ErrorCode.AccessDenied);
  assert.deepEqual(calls, []);
  assert.deepEqual(entries.map((entry) => [entry.principal, entry.client?.name]), [
    ["alice", "admin"],
    ["alice", "admin"],
  ]);
});

/** Names that look like cancel_order, or try to reach a prototype, or abuse the glob syntax. */
const LOOKALIKES: readonly string[] = [
  "Cancel_order",
  "CANCEL_ORDER",
  "cancel_order ",
  " cancel_order",
  "cancel_order\u0000",
  "cancel_order\n",
  "c\u0430ncel_order", // Cyrillic а (U+0430)
  "cancel\u200border", // zero-width space
  "cancel_ord\u0435r", // Cyrillic е (U+0435)
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "*",
  "cancel_*",
  "*_order",
  "get_*",
  "x".repeat(10_000),
  `cancel_order${"x".repeat(10_000)}`,
];

Deno.test("no lookalike name reaches a denied tool's handler, through a deny rule or an allow list", async () => {
  const denyOnly = (audit: AuditSink): GuardrailsConfig => ({
    access: { tools: { deny: ["cancel_order"] } },
    audit,
  });
  const allowList = (audit: AuditSink): GuardrailsConfig => ({
    access: { tools: { allow: ["get_order"] } },
    audit,
  });
  for (const [label, config] of [["deny", denyOnly], ["allow", allowList]] as const) {
    const { server, calls, entries } = desk(config);
    await server.handle(initialize(0));
    let id = 1;
    for (const name of [...LOOKALIKES, "cancel_order"]) {
      const shown = JSON.stringify(name.slice(0, 20));
      const reply = await server.handle(
        request(id++, "tools/call", { name, arguments: { order_id: "ORD-1" } }),
      );
      const error = errorOf(reply);
      // Matching is exact: a lookalike is a different, unregistered name.
      const expected = label === "deny" && name !== "cancel_order"
        ? ErrorCode.MethodNotFound
        : ErrorCode.AccessDenied;
      assert.equal(error.code, expected, `${label} ${shown}`);
      // A huge name is never echoed whole, and control characters are escaped.
      assert.ok(error.message.length < 120, `${label} ${shown}: ${error.message.length} chars`);
      const controls = [...error.message].filter((char) => char.charCodeAt(0) < 0x20);
      assert.deepEqual(controls, [], `${label} ${shown}`);
    }
    assert.deepEqual(calls, [], label);
    assert.equal(entries.length, LOOKALIKES.length + 1, label);
  }
});

Deno.test("a denied name is refused with -32001 whether or not it exists (no existence oracle)", async () => {
  const { server, calls } = desk((audit) => ({
    access: {
      tools: { deny: ["cancel_*"] },
      resources: { allow: ["orders://ORD-*"] },
      prompts: { allow: ["summarize"] },
    },
    audit,
  }));
  const cases: [method: string, params: Record<string, unknown>, message: string][] = [
    ["tools/call", { name: "cancel_order" }, 'tool "cancel_order"'],
    ["tools/call", { name: "cancel_everything" }, 'tool "cancel_everything"'],
    ["resources/read", { uri: "vault://keys" }, 'resource "vault://keys"'],
    ["resources/read", { uri: "vault://nothing-here" }, 'resource "vault://nothing-here"'],
    ["resources/read", { uri: "ORDERS://ORD-1" }, 'resource "ORDERS://ORD-1"'],
    ["prompts/get", { name: "internal_notes" }, 'prompt "internal_notes"'],
    ["prompts/get", { name: "internal_nothing" }, 'prompt "internal_nothing"'],
  ];
  for (const [method, params, label] of cases) {
    const error = errorOf(await server.handle(request(1, method, params)));
    assert.deepEqual(error, { code: ErrorCode.AccessDenied, message: `Access denied: ${label}` });
  }
  assert.deepEqual(calls, []);
});

Deno.test("resource URIs are matched exactly: lookalikes of a denied URI never reach its reader", async () => {
  const { server, calls } = desk((audit) => ({
    access: { resources: { allow: ["orders://*"], deny: ["vault://*"] } },
    audit,
  }));
  for (
    const uri of [
      "Vault://keys",
      "VAULT://keys",
      " vault://keys",
      "vault://keys ",
      "vault://keys/",
      "vault://keys?x=1",
      "vault://./keys",
      "vault://%6Beys",
      "vault:/keys",
      "orders://../vault://keys",
    ]
  ) {
    const error = errorOf(await server.handle(request(1, "resources/read", { uri })));
    // Only the last one is inside the allow list; it names no registered resource.
    const expected = uri.startsWith("orders://")
      ? ErrorCode.MethodNotFound
      : ErrorCode.AccessDenied;
    assert.equal(error.code, expected, uri);
  }
  assert.deepEqual(calls, []);
});

/** Deny cancel_order; one global bucket of `capacity` tokens that never refills under the fake clock. */
function globalBucket(capacity: number) {
  return (audit: AuditSink): GuardrailsConfig => ({
    access: { tools: { deny: ["cancel_order"] } },
    rateLimit: { rules: [{ scope: "global", capacity, refillPerSecond: 1 }] },
    audit,
  });
}

/** Sends tools/call requests one after another and returns each reply's error code, or "ok". */
async function callTools(server: Server, calls: [string, Record<string, unknown>][]) {
  const codes: (number | "ok")[] = [];
  let id = 1;
  for (const [name, args] of calls) {
    const reply = await server.handle(request(id++, "tools/call", { name, arguments: args }));
    codes.push(isRecord(reply) && isRecord(reply.error) ? errorOf(reply).code : "ok");
  }
  return codes;
}

Deno.test("a call the access policy denies consumes no rate-limit token", async () => {
  const { server, calls } = desk(globalBucket(2));
  const cancel: [string, Record<string, unknown>] = ["cancel_order", { order_id: "ORD-1" }];
  const get: [string, Record<string, unknown>] = ["get_order", { order_id: "ORD-1" }];
  const codes = await callTools(server, [cancel, cancel, cancel, cancel, cancel, get, get, get]);
  assert.deepEqual(codes, [-32001, -32001, -32001, -32001, -32001, "ok", "ok", -32002]);
  assert.deepEqual(calls, ["get_order", "get_order"]);
});

Deno.test("a rate-limited call never reaches argument validation or the handler", async () => {
  const { server, calls, entries } = desk(globalBucket(1));
  const codes = await callTools(server, [
    ["get_order", { order_id: "ORD-1" }],
    ["get_order", { order_id: 42 }], // would be -32602 if validation ran
    ["login", { user: "ada" }],
    ["no_such_tool", {}], // would be -32601 if the lookup ran
  ]);
  assert.deepEqual(codes, ["ok", -32002, -32002, -32002]);
  assert.deepEqual(calls, ["get_order"]);
  assert.deepEqual(entries.map((entry) => entry.outcome), [
    "ok",
    "rate_limited",
    "rate_limited",
    "rate_limited",
  ]);
});

Deno.test("a call with invalid arguments or an unknown name still consumes a token (it passed the limiter)", async () => {
  // Observed and intended: the limiter runs before validation and the lookup,
  // so a client cannot probe arguments or names for free.
  const { server, calls } = desk(globalBucket(3));
  const codes = await callTools(server, [
    ["get_order", { order_id: "not an id" }],
    ["get_order", {}],
    ["no_such_tool", {}],
    ["get_order", { order_id: "ORD-1" }],
  ]);
  assert.deepEqual(codes, [-32602, -32602, -32601, -32002]);
  assert.deepEqual(calls, []);
});

Deno.test("the limiter is exact under concurrency: 100 concurrent calls, capacity 10, no refill", async () => {
  const { sink, entries } = memorySink();
  const clock = fakeClock();
  let running = 0;
  let peak = 0;
  const server = createServer({
    name: "busy",
    version: "1.0.0",
    guardrails: createGuardrails({
      rateLimit: { rules: [{ scope: "tool", capacity: 10, refillPerSecond: 1 }] },
      audit: sink,
    }, { now: clock.now }),
    tools: [defineTool({
      name: "work",
      description: "Takes a moment",
      inputSchema: { type: "object" },
      handler: async () => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((resolve) => setTimeout(resolve, 20));
        running--;
        return "done";
      },
    })],
  });
  const messages = Array.from(
    { length: 100 },
    (_, i) => request(i + 1, "tools/call", { name: "work" }),
  );
  const replies = await session(server, messages);
  await server.close();
  const codes = messages.map((message) => {
    const reply = replies.get(message.id);
    return isRecord(reply) && isRecord(reply.error) ? errorOf(reply).code : "ok";
  });
  assert.equal(codes.filter((code) => code === "ok").length, 10);
  assert.equal(codes.filter((code) => code === ErrorCode.RateLimited).length, 90);
  assert.ok(peak > 1, `the calls overlapped (peak ${peak})`);
  assert.equal(entries.length, 100);
  assert.equal(entries.filter((entry) => entry.outcome === "ok").length, 10);
  assert.equal(entries.filter((entry) => entry.outcome === "rate_limited").length, 90);
  assert.deepEqual(entries.map((entry) => entry.seq), messages.map((_, i) => i + 1));
});

Deno.test("per-principal buckets are exact across concurrent sessions of one server", async () => {
  const { sink, entries } = memorySink();
  const server = createServer({
    name: "busy",
    version: "1.0.0",
    guardrails: createGuardrails({
      rateLimit: { rules: [{ scope: "principal", capacity: 10, refillPerSecond: 1 }] },
      audit: sink,
    }, { now: () => START }),
    tools: [defineTool({
      name: "work",
      description: "Takes a moment",
      inputSchema: { type: "object" },
      handler: async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        return "done";
      },
    })],
  });
  const messages = Array.from(
    { length: 40 },
    (_, i) => request(i + 1, "tools/call", { name: "work" }),
  );
  const sessions = await Promise.all(
    ["alice", "bob", "alice"].map((principal) => session(server, messages, principal)),
  );
  const okCount = (replies: Map<unknown, unknown>) =>
    [...replies.values()].filter((reply) => isRecord(reply) && isRecord(reply.result)).length - 1;
  const [alice1, bob, alice2] = sessions.map((replies) => okCount(replies));
  assert.equal(bob, 10);
  assert.equal((alice1 ?? 0) + (alice2 ?? 0), 10, "alice's two sessions share one bucket");
  assert.equal(entries.length, 120);
});

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
  // The catalogue is the server's own text, not a call's output: it is published as written.
  assert.ok(JSON.stringify(listed).includes(ODK_KEY));
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

/** Waits `ms` of real time, or until `signal` aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

/** The desk with slow tools, for sessions that end while calls are in flight. */
function slowDesk(
  audit: (sink: AuditSink) => AuditTarget,
  shutdownGraceMs: number,
): { server: Server; entries: AuditEntry[]; lines: string[] } {
  const { sink, entries } = memorySink();
  const { lines, log } = captureLog();
  const server = createServer({
    name: "slow",
    version: "1.0.0",
    log,
    shutdownGraceMs,
    principal: "alice",
    guardrails: createGuardrails({
      access: { tools: { deny: ["cancel_order"] } },
      rateLimit: {
        rules: [{ scope: "tool", match: ["limited"], capacity: 2, refillPerSecond: 1 }],
      },
      audit: audit(sink),
    }, { now: () => START }),
    tools: [
      defineTool({
        name: "slow",
        description: "Finishes 30 ms after it starts",
        inputSchema: { type: "object", properties: { n: { type: "integer" } } },
        handler: async ({ n }) => {
          await sleep(30);
          return `slow ${n}`;
        },
      }),
      defineTool({
        name: "stuck",
        description: "Finishes only when aborted",
        inputSchema: { type: "object" },
        handler: async (_args, context) => {
          await sleep(60_000, context.signal);
          throw new Error("aborted");
        },
      }),
      defineTool({
        name: "limited",
        description: "Rate limited",
        inputSchema: { type: "object" },
        handler: () => "limited",
      }),
      defineTool({
        name: "fail",
        description: "Fails",
        inputSchema: { type: "object" },
        handler: async () => {
          await sleep(10);
          throw new Error("failed");
        },
      }),
      defineTool({
        name: "cancel_order",
        description: "Denied",
        inputSchema: { type: "object" },
        handler: () => "cancelled",
      }),
    ],
  });
  return { server, entries, lines };
}

/** A mixed burst: `[name, arguments, expected outcome]`, sent back to back, then EOF. */
const BURST: readonly [string, Record<string, unknown>, string][] = [
  ["slow", { n: 1 }, "ok"],
  ["cancel_order", {}, "denied"],
  ["limited", {}, "ok"],
  ["slow", { n: "two" }, "invalid"],
  ["limited", {}, "ok"],
  ["fail", {}, "tool_error"],
  ["limited", {}, "rate_limited"],
  ["nope", {}, "invalid"],
  ["slow", { n: 3 }, "ok"],
  ["slow", { n: 4 }, "ok"],
  ["fail", {}, "tool_error"],
  ["slow", { n: 5 }, "ok"],
];

function burstMessages(): unknown[] {
  return BURST.map(([name, args], i) => request(i + 1, "tools/call", { name, arguments: args }));
}

/** Checks N entries, seq 1..N without gaps, one per request id, with the expected outcomes. */
function assertComplete(entries: readonly AuditEntry[]): void {
  assert.equal(entries.length, BURST.length);
  assert.deepEqual(entries.map((entry) => entry.seq), BURST.map((_, i) => i + 1));
  const byId = new Map(entries.map((entry) => [entry.request_id, entry.outcome]));
  assert.equal(byId.size, BURST.length, "one entry per request");
  assert.deepEqual(BURST.map((_, i) => byId.get(i + 1)), BURST.map(([, , outcome]) => outcome));
}

Deno.test("the audit log has one entry per call after an abrupt EOF with calls in flight", async () => {
  const { server, entries } = slowDesk((sink) => sink, 2_000);
  const transport = new MemoryTransport(burstMessages());
  await server.connect(transport);
  // connect() resolved: every call was answered within the grace period.
  assert.equal(transport.replies.length, BURST.length);
  await server.close();
  assertComplete(entries);
});

Deno.test("a call still running after the grace period is aborted and audited as cancelled", async () => {
  const { server, entries, lines } = slowDesk((sink) => sink, 100);
  const transport = new MemoryTransport([
    ...burstMessages(),
    request("stuck", "tools/call", { name: "stuck" }),
  ]);
  await server.connect(transport);
  await server.close();
  assert.equal(transport.replies.length, BURST.length + 1);
  assert.deepEqual(transport.replies.find((reply) => isRecord(reply) && reply.id === "stuck"), {
    jsonrpc: "2.0",
    id: "stuck",
    error: { code: ErrorCode.InternalError, message: "Request cancelled" },
  });
  assert.equal(entries.length, BURST.length + 1);
  const stuck = entries.find((entry) => entry.request_id === "stuck");
  assert.equal(stuck?.outcome, "cancelled");
  assert.deepEqual(entries.map((entry) => entry.seq), entries.map((_, i) => i + 1));
  assert.deepEqual(lines, []);
});

Deno.test({
  name: "a call aborted at shutdown is audited with the -32603 its reply carried",
  fn: async () => {
    const { server, entries } = slowDesk((sink) => sink, 50);
    await server.connect(new MemoryTransport([request("stuck", "tools/call", { name: "stuck" })]));
    await server.close();
    assert.deepEqual(
      entries.map((entry) => [entry.outcome, entry.error_code]),
      [["cancelled", ErrorCode.InternalError]],
    );
  },
});

Deno.test("a call the client cancels gets no reply and is audited as cancelled with no code", async () => {
  const { server, entries } = slowDesk((sink) => sink, 2_000);
  const transport = new MemoryTransport([
    request("stuck", "tools/call", { name: "stuck" }),
    { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "stuck" } },
    request(1, "tools/call", { name: "slow", arguments: { n: 1 } }),
  ]);
  await server.connect(transport);
  await server.close();
  assert.deepEqual(transport.replies.map((reply) => isRecord(reply) && reply.id), [1]);
  assert.deepEqual(
    entries.map((entry) => [entry.request_id, entry.outcome, entry.error_code]),
    [["stuck", "cancelled", null], [1, "ok", null]],
  );
});

Deno.test("server.close() during a session aborts in-flight calls and still audits every one", async () => {
  const { server, entries } = slowDesk((sink) => sink, 5_000);
  const [client, end] = createMemoryPair();
  const serving = server.connect(end);
  // Read the replies as they come, so the server's writes never wait on us.
  const replies = Array.fromAsync(client.readable);
  const writer = client.writable.getWriter();
  for (const message of burstMessages()) await writer.write(JSON.stringify(message));
  await writer.write(JSON.stringify(request("stuck", "tools/call", { name: "stuck" })));
  await sleep(5);
  await server.close();
  await serving;
  assert.equal(entries.length, BURST.length + 1);
  assert.deepEqual(entries.map((entry) => entry.seq), entries.map((_, i) => i + 1));
  assert.equal(entries.find((entry) => entry.request_id === "stuck")?.outcome, "cancelled");
  await writer.close().catch(() => {});
  assert.equal((await replies).length, BURST.length + 1);
});

Deno.test("a file audit sink holds exactly one JSON line per call after EOF and close()", async () => {
  const dir = await Deno.makeTempDir({ prefix: "warden-audit-" });
  try {
    const path = `${dir}/audit.jsonl`;
    const { server } = slowDesk(() => ({ file: path }), 2_000);
    await server.connect(new MemoryTransport(burstMessages()));
    await server.close();
    const text = await Deno.readTextFile(path);
    assert.ok(text.endsWith("\n"));
    const lines = text.split("\n").slice(0, -1);
    const entries: AuditEntry[] = lines.map((line) => JSON.parse(line));
    assertComplete(entries);
    // Appended, never truncated: a second server adds its own lines after the first's.
    const again = slowDesk(() => ({ file: path }), 2_000);
    await again.server.connect(new MemoryTransport(burstMessages().slice(0, 3)));
    await again.server.close();
    const after = (await Deno.readTextFile(path)).split("\n").slice(0, -1);
    assert.equal(after.length, BURST.length + 3);
    assert.deepEqual(after.slice(0, BURST.length), lines);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a throwing or rejecting callback sink never breaks a call; failures are reported once each", async () => {
  const reported: string[] = [];
  const onError = (error: unknown) => void reported.push(String(error));
  for (
    const fn of [
      () => {
        throw new Error("disk full");
      },
      () => Promise.reject(new Error("disk full")),
    ]
  ) {
    reported.length = 0;
    const { server, calls } = desk((_audit) => ({
      access: { tools: { deny: ["cancel_order"] } },
      audit: callbackAuditSink(fn, { onError }),
    }));
    const codes = await callTools(server, [
      ["get_order", { order_id: "ORD-1" }],
      ["cancel_order", { order_id: "ORD-1" }],
      ["get_order", { order_id: "ORD-2" }],
    ]);
    await server.close();
    assert.deepEqual(codes, ["ok", -32001, "ok"]);
    assert.deepEqual(calls, ["get_order", "get_order"]);
    assert.deepEqual(reported, ["Error: disk full"]);
  }
});

Deno.test({
  name: "a custom AuditSink whose write() throws does not turn a finished call into -32603",
  fn: async () => {
    const throwing: AuditSink = {
      write: () => {
        throw new Error("sink broke");
      },
      flush: () => Promise.resolve(),
      close: () => Promise.resolve(),
    };
    const { server, calls } = desk(() => ({ audit: throwing }));
    const reply = await server.handle(
      request(1, "tools/call", { name: "get_order", arguments: { order_id: "ORD-1" } }),
    );
    assert.deepEqual(calls, ["get_order"]);
    assert.equal(firstText(resultOf(reply)), "Order ORD-1");
  },
});

Deno.test({
  name: "a guarded call with malformed params (no name, no uri, non-object arguments) is audited",
  fn: async () => {
    const { server, entries } = desk();
    const malformed = [
      request(1, "tools/call", {}),
      request(2, "tools/call", { name: 42 }),
      request(3, "tools/call", { name: "get_order", arguments: ["ORD-1"] }),
      request(4, "resources/read", {}),
      request(5, "prompts/get", { name: "review", arguments: "x" }),
      request(6, "tools/call"),
    ];
    for (const message of malformed) {
      assert.equal(errorOf(await server.handle(message)).code, ErrorCode.InvalidParams);
    }
    assert.equal(entries.length, malformed.length);
    assert.ok(entries.every((entry) => entry.outcome === "invalid"));
  },
});

Deno.test("a custom guardrail runs after access and rate limit, before validation; its refusals are audited", async () => {
  const seen: unknown[] = [];
  const officeHours: Guardrail = {
    name: "office-hours",
    stage: "custom",
    run: (call: GuardedCall, next) => {
      seen.push([call.name, call.arguments]);
      if (call.name !== "login") return next(call);
      // Its message is redacted like any other on the way out.
      return Promise.resolve({
        status: "denied",
        error: new RpcError(ErrorCode.AccessDenied, `Access denied: closed, ask ${ODK_KEY}`),
      });
    },
  };
  const { sink, entries } = memorySink();
  const calls: string[] = [];
  const server = createServer({
    name: "custom",
    version: "1.0.0",
    // Given first, yet it runs in the custom stage, after the built-ins.
    guardrails: [
      officeHours,
      ...createGuardrails({
        access: { tools: { deny: ["cancel_order"] } },
        rateLimit: {
          rules: [{ scope: "tool", match: ["get_order"], capacity: 2, refillPerSecond: 1 }],
        },
        redact: { patterns: [ODK_RULE] },
        audit: sink,
      }, { now: () => START }),
    ],
    ...deskItems(calls),
  });
  const results = [];
  for (
    const [name, args] of [
      ["cancel_order", { order_id: "ORD-1" }],
      ["get_order", { order_id: "ORD-1" }],
      ["get_order", { order_id: 42 }],
      ["get_order", { order_id: "ORD-1" }],
      ["login", { user: "ada" }],
    ] as const
  ) {
    const reply = await server.handle(request(1, "tools/call", { name, arguments: args }));
    results.push(isRecord(reply) && isRecord(reply.error) ? errorOf(reply).code : "ok");
  }
  assert.deepEqual(results, [-32001, "ok", -32602, -32002, -32001]);
  // Not the denied call, not the rate-limited one; the invalid one before validation.
  assert.deepEqual(seen, [
    ["get_order", { order_id: "ORD-1" }],
    ["get_order", { order_id: 42 }],
    ["login", { user: "ada" }],
  ]);
  assert.deepEqual(calls, ["get_order"]);
  assert.deepEqual(entries.map((entry) => [entry.name, entry.outcome, entry.error_code]), [
    ["cancel_order", "denied", -32001],
    ["get_order", "ok", null],
    ["get_order", "invalid", -32602],
    ["get_order", "rate_limited", -32002],
    ["login", "denied", -32001],
  ]);
  const refused = await server.handle(request(2, "tools/call", { name: "login" }));
  assert.equal(errorOf(refused).message, `Access denied: closed, ask ${MASK}`);
});

Deno.test("a custom guardrail that throws is answered -32603 and audited as internal_error", async () => {
  const { lines, log } = captureLog();
  const { sink, entries } = memorySink();
  const calls: string[] = [];
  const server = createServer({
    name: "faulty",
    version: "1.0.0",
    log,
    guardrails: [
      {
        name: "faulty",
        stage: "custom",
        run: () => Promise.reject(new Error(`bug near ${ODK_KEY}`)),
      },
      ...createGuardrails({ redact: { patterns: [ODK_RULE] }, audit: sink }),
    ],
    ...deskItems(calls),
  });
  const reply = await server.handle(
    request(1, "tools/call", { name: "get_order", arguments: { order_id: "ORD-1" } }),
  );
  assert.deepEqual(errorOf(reply), { code: ErrorCode.InternalError, message: "Internal error" });
  assert.deepEqual(calls, []);
  assert.deepEqual(entries.map((entry) => [entry.outcome, entry.error_code]), [[
    "internal_error",
    ErrorCode.InternalError,
  ]]);
  assert.equal(lines.length, 1);
  assert.match(lines[0] ?? "", /the call pipeline failed on tools\/call ["']get_order["']/);
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
