/**
 * The audit log's completeness when a session ends with calls in flight
 * (EOF, the grace period, client cancellation, `server.close()`), in a file
 * sink, and with sinks that throw or reject.
 */

import assert from "node:assert/strict";
import { createServer, defineTool, ErrorCode, type Server } from "../../../mod.ts";
import {
  type AuditEntry,
  type AuditSink,
  callbackAuditSink,
  createGuardrails,
} from "../../../guardrails.ts";
import type { AuditTarget } from "../../../src/guardrails/policy/create_guardrails.ts";
import { verifyAuditLog } from "../../../src/guardrails/audit/verify.ts";
import { createMemoryPair, MemoryTransport } from "../../../testing.ts";
import { captureLog, isRecord, request, resultOf } from "../../_helpers/helpers.ts";
import { callTools, desk, firstText, memorySink, START } from "../../_helpers/guarded_desk.ts";

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
  // The two failing tools are reported to the operator; nothing else is logged.
  const thrown = lines.filter((line) =>
    line.startsWith('warden: tool "fail" failed: Error: failed')
  );
  assert.equal(thrown.length, 2);
  assert.deepEqual(lines.filter((line) => !thrown.includes(line)), []);
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
    // Call entries only: the chain's genesis and checkpoint lines carry an "event".
    const entries: AuditEntry[] = lines.map((line) => JSON.parse(line)).filter((line) =>
      !("event" in line)
    );
    assertComplete(entries);
    assert.equal(verifyAuditLog(text).ok, true);
    // Appended, never truncated: a second server adds its own lines after the first's.
    const again = slowDesk(() => ({ file: path }), 2_000);
    await again.server.connect(new MemoryTransport(burstMessages().slice(0, 3)));
    await again.server.close();
    const afterText = await Deno.readTextFile(path);
    const after = afterText.split("\n").slice(0, -1);
    // Its genesis, three calls and its checkpoint.
    assert.equal(after.length, lines.length + 5);
    assert.deepEqual(after.slice(0, lines.length), lines);
    assert.deepEqual(verifyAuditLog(afterText).error, undefined);
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
