/**
 * The rate limiter inside a server: where it sits in the pipeline (after
 * access, before validation and the lookup) and that it stays exact under
 * concurrent calls and concurrent sessions.
 */

import assert from "node:assert/strict";
import { createServer, defineTool, ErrorCode } from "../../../mod.ts";
import { type AuditSink, createGuardrails } from "../../../guardrails.ts";
import type { GuardrailsConfig } from "../../../src/guardrails/policy/create_guardrails.ts";
import { errorOf, isRecord, request } from "../../_helpers/helpers.ts";
import {
  callTools,
  desk,
  fakeClock,
  memorySink,
  session,
  START,
} from "../../_helpers/guarded_desk.ts";

/** Deny cancel_order; one global bucket of `capacity` tokens that never refills under the fake clock. */
function globalBucket(capacity: number) {
  return (audit: AuditSink): GuardrailsConfig => ({
    access: { tools: { deny: ["cancel_order"] } },
    rateLimit: { rules: [{ scope: "global", capacity, refillPerSecond: 1 }] },
    audit,
  });
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
