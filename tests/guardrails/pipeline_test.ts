/**
 * The guardrail pipeline end to end: `createServer({ guardrails: createGuardrails(...) })`
 * spoken to through `server.handle()`, for every outcome of every guarded
 * method, what is audited and when, and where custom guardrails run. Access,
 * rate limiting, redaction and the audit log at shutdown each have their own
 * file in the folder of their room.
 */

import assert from "node:assert/strict";
import { createServer, ErrorCode, RpcError } from "../../mod.ts";
import type { Guardrail } from "../../src/call/guardrail.ts";
import { type AuditEntry, createGuardrails, type GuardedCall } from "../../guardrails.ts";
import {
  captureLog,
  errorOf,
  initialize,
  isRecord,
  request,
  resultOf,
} from "../_helpers/helpers.ts";
import {
  desk,
  deskItems,
  firstText,
  MASK,
  memorySink,
  ODK_KEY,
  ODK_RULE,
  START,
} from "../_helpers/guarded_desk.ts";

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
