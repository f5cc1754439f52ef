/**
 * Quotas per principal of what revision 2026-07-28 keeps: tasks (one
 * instance, and two sharing a store), open listen streams and remembered
 * `requestState`s. One principal at its bound is refused with -31002 and an
 * audited `quota_exceeded`; another principal is not affected.
 */

import assert from "node:assert/strict";
import { createServer, defineTool, type Server, type ServerOptions } from "../../mod.ts";
import { type AuditEntry, auditLog, callbackAuditSink } from "../../guardrails.ts";
import { MemoryStore } from "../../store.ts";
import { StdioTransport } from "../../src/transports/stdio.ts";
import { MemoryTaskStore, SharedTaskStore, TaskStoreFullError } from "../../tasks.ts";
import { captureLog, errorOf, modernRequest, notification, resultOf } from "../_helpers/helpers.ts";
import { jsonOf, modernPost, post, SseReader } from "../_helpers/http_helpers.ts";
import { connectPeer, type Message, type Peer } from "../_helpers/peer.ts";
import { WITH_TASKS } from "../_helpers/task_helpers.ts";

const FORM = { type: "object", properties: { ok: { type: "boolean" } } } as const;

/** The principals whose `slow` task handler began, in order. */
const started: string[] = [];

/** A server with a task tool that waits until closed, a tool that asks twice, and an audit log. */
function quotaServer(
  extra: Omit<Partial<ServerOptions>, "tools"> = {},
): { server: Server; audit: AuditEntry[] } {
  const audit: AuditEntry[] = [];
  const server = createServer({
    name: "quotas",
    version: "1.0.0",
    log: captureLog().log,
    http: { keepAliveMs: 0, authenticate: (r) => r.headers.get("x-user") ?? undefined },
    guardrails: [auditLog({ sink: callbackAuditSink((entry) => void audit.push(entry)) })],
    tools: [
      defineTool({
        name: "slow",
        description: "Runs until the server closes",
        task: "required",
        inputSchema: { type: "object" },
        handler: (_args, ctx) => {
          // Its side effect: a start over the quota must not get this far.
          started.push(ctx.principal ?? "");
          return new Promise<string>((_resolve, reject) => {
            ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true });
          });
        },
      }),
      defineTool({
        name: "twice",
        description: "Asks two questions",
        inputSchema: { type: "object" },
        handler: async (_args, ctx) => {
          await ctx.elicit("First?", FORM);
          await ctx.elicit("Second?", FORM);
          return "both";
        },
      }),
    ],
    ...extra,
  });
  return { server, audit };
}

const START = { name: "slow", arguments: {} };

function quotaRefusals(audit: readonly AuditEntry[]): (string | null)[] {
  return audit.filter((e) => e.outcome === "quota_exceeded").map((e) => e.principal);
}

function assertQuota(reply: unknown, quota: string, limit: number): void {
  const error = errorOf(reply);
  assert.equal(error.code, -31002);
  assert.deepEqual(error.data, { quota, limit });
}

let ids = 0;

async function startOn(peer: Peer): Promise<Message> {
  const id = `start-${++ids}`;
  await peer.send(modernRequest(id, "tools/call", START, WITH_TASKS));
  return await peer.take((m) => m.id === id, "a tools/call reply");
}

Deno.test("tasks (in-memory): a principal at its quota is refused, another still gets its tasks", async () => {
  const { server, audit } = quotaServer({ quotas: { tasks: 2 } });
  const alice = await connectPeer(server, { principal: "alice", initialize: false });
  const bob = await connectPeer(server, { principal: "bob", initialize: false });
  started.length = 0;
  for (let i = 0; i < 2; i++) assert.equal(resultOf(await startOn(alice)).resultType, "task");
  assertQuota(await startOn(alice), "tasks", 2);
  // Refused before its handler ran: no side effect of a start over the quota.
  assert.deepEqual(started, ["alice", "alice"]);
  for (let i = 0; i < 2; i++) assert.equal(resultOf(await startOn(bob)).resultType, "task");
  assert.deepEqual(quotaRefusals(audit), ["alice"]);
  await server.close();
  await alice.close();
  await bob.close();
});

Deno.test("tasks (HTTP): a principal at its quota is refused with 200 and -31002, another is served", async () => {
  const { server, audit } = quotaServer({ quotas: { tasks: 1 } });
  const start = modernRequest(1, "tools/call", START, WITH_TASKS);
  const as = async (user: string) =>
    await jsonOf(await modernPost(server, start, { "x-user": user }));
  assert.equal(resultOf(await as("alice")).resultType, "task");
  const response = await modernPost(server, start, { "x-user": "alice" });
  assert.equal(response.status, 200);
  assertQuota(await jsonOf(response), "tasks", 1);
  assert.equal(resultOf(await as("bob")).resultType, "task");
  assert.deepEqual(quotaRefusals(audit), ["alice"]);
  assert.deepEqual(
    audit.filter((e) => e.outcome === "quota_exceeded").map((e) => e.error_code),
    [-31002],
  );
  await server.close();
});

Deno.test("tasks on two instances sharing a store: the quota holds across them", async () => {
  const store = new MemoryStore();
  const a = quotaServer({ quotas: { tasks: 2 }, store });
  const b = quotaServer({ quotas: { tasks: 2 }, store });
  const start = modernRequest(1, "tools/call", START, WITH_TASKS);
  const on = async (server: Server, user: string) =>
    await jsonOf(await modernPost(server, start, { "x-user": user }));
  assert.equal(resultOf(await on(a.server, "alice")).resultType, "task");
  assert.equal(resultOf(await on(b.server, "alice")).resultType, "task");
  // Two held, one on each instance: the third is refused on either.
  assertQuota(await on(a.server, "alice"), "tasks", 2);
  assertQuota(await on(b.server, "alice"), "tasks", 2);
  assert.equal(resultOf(await on(b.server, "bob")).resultType, "task");
  assert.equal(resultOf(await on(a.server, "bob")).resultType, "task");
  assert.deepEqual([...quotaRefusals(a.audit), ...quotaRefusals(b.audit)], ["alice", "alice"]);
  await a.server.close();
  await b.server.close();
  await store.close();
});

const TASK = {
  principal: "alice",
  tool: "t",
  status: "working" as const,
  createdAt: 0,
  lastUpdatedAt: 0,
  pollIntervalMs: 1000,
};

Deno.test("task stores free a principal's place when its task is deleted or expires", async () => {
  let now = 0;
  const shared = new MemoryStore({ now: () => now });
  const stores = [
    new MemoryTaskStore({ maxTasksPerPrincipal: 1, now: () => now }),
    new SharedTaskStore(shared, { maxTasksPerPrincipal: 1, now: () => now }),
  ];
  for (const store of stores) {
    const name = store.constructor.name;
    await store.create({ ...TASK, taskId: `${name}-1`, ttlMs: null });
    const full = await store.create({ ...TASK, taskId: `${name}-2`, ttlMs: null }).catch((e) => e);
    assert.ok(full instanceof TaskStoreFullError, name);
    assert.equal(full.perPrincipal, 1, name);
    // Another principal, and the anonymous one, have their own place.
    await store.create({ ...TASK, principal: "bob", taskId: `${name}-b`, ttlMs: null });
    await store.create({ ...TASK, principal: null, taskId: `${name}-n`, ttlMs: null });
    await store.delete(`${name}-1`);
    now += 2;
    await store.create({ ...TASK, taskId: `${name}-3`, ttlMs: 1000, createdAt: now });
    now += 1001;
    if (store instanceof MemoryTaskStore) await store.expire();
    await store.create({ ...TASK, taskId: `${name}-4`, ttlMs: 1000, createdAt: now });
    store.close();
  }
  await shared.close();
});

const LISTEN = { notifications: { toolsListChanged: true } };
const LISTEN_HEADERS = {
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": "subscriptions/listen",
};

Deno.test("listen streams (in-memory): a principal at its quota is refused until one of its streams ends", async () => {
  const { server, audit } = quotaServer({ quotas: { listenStreams: 1 } });
  const alice = await connectPeer(server, { principal: "alice", initialize: false });
  const bob = await connectPeer(server, { principal: "bob", initialize: false });
  await alice.send(modernRequest("a1", "subscriptions/listen", LISTEN));
  await alice.next("notifications/subscriptions/acknowledged");
  await alice.send(modernRequest("a2", "subscriptions/listen", LISTEN));
  assertQuota(await alice.take((m) => m.id === "a2", "a2's refusal"), "listenStreams", 1);
  await bob.send(modernRequest("b1", "subscriptions/listen", LISTEN));
  await bob.next("notifications/subscriptions/acknowledged");
  // Alice ends her stream; she may open another.
  await alice.send(notification("notifications/cancelled", { requestId: "a1", reason: "done" }));
  await alice.send(modernRequest("a3", "subscriptions/listen", LISTEN));
  await alice.next("notifications/subscriptions/acknowledged");
  assert.deepEqual(quotaRefusals(audit), ["alice"]);
  const refused = audit.find((e) => e.outcome === "quota_exceeded");
  assert.equal(refused?.method, "subscriptions/listen");
  // The audit records the code the client was sent.
  assert.equal(refused?.error_code, -31002);
  await server.close();
  await alice.close();
  await bob.close();
});

Deno.test("listen streams (HTTP): a principal at its quota is refused, another opens its stream", async () => {
  const { server, audit } = quotaServer({ quotas: { listenStreams: 1 } });
  const open = (user: string) =>
    post(server, modernRequest(1, "subscriptions/listen", LISTEN), {
      ...LISTEN_HEADERS,
      "x-user": user,
    });
  const first = new SseReader(await open("alice"));
  assert.equal((await first.message()).method, "notifications/subscriptions/acknowledged");
  const refused = await open("alice");
  assert.equal(refused.status, 200);
  assertQuota(await jsonOf(refused), "listenStreams", 1);
  const bobs = new SseReader(await open("bob"));
  assert.equal((await bobs.message()).method, "notifications/subscriptions/acknowledged");
  // Closing the stream gives the place back.
  await first.cancel();
  await new Promise((resolve) => setTimeout(resolve, 10));
  const again = new SseReader(await open("alice"));
  assert.equal((await again.message()).method, "notifications/subscriptions/acknowledged");
  assert.deepEqual(quotaRefusals(audit), ["alice"]);
  await again.cancel();
  await bobs.cancel();
  await server.close();
});

const ELICIT = { elicitation: {} };
const YES = { action: "accept", content: { ok: true } };

/** The answers to every input a round asked for. */
function answers(round: Record<string, unknown>): Record<string, unknown> {
  const asked = round.inputRequests as Record<string, unknown>;
  return Object.fromEntries(Object.keys(asked).map((key) => [key, YES]));
}

/** Sends one `twice` call with `params` and resolves to its reply. */
type Caller = (params: Record<string, unknown>) => Promise<Record<string, unknown>>;

/** `twice` over HTTP, authenticated as `user`. */
function overHttp(server: Server, user: string): Caller {
  return (params) =>
    modernPost(
      server,
      modernRequest(1, "tools/call", { name: "twice", arguments: {}, ...params }, ELICIT),
      { "x-user": user },
    ).then(jsonOf);
}

/** `twice` over the in-memory pair, on a connection of `peer`'s principal. */
function overMemory(peer: Peer): Caller {
  return async (params) => {
    const id = `twice-${++ids}`;
    await peer.send(
      modernRequest(id, "tools/call", { name: "twice", arguments: {}, ...params }, ELICIT),
    );
    return await peer.take((m) => m.id === id, id);
  };
}

/**
 * Rounds of `twice`: each retry opens the state of the round before; the
 * reply to the last retry (of `rounds`, 2 at most) is returned.
 */
async function rounds(call: Caller, count = 2): Promise<Record<string, unknown>> {
  const first = resultOf(await call({}));
  const retry = await call({ inputResponses: answers(first), requestState: first.requestState });
  if (count === 1) return retry;
  const second = resultOf(retry);
  assert.equal(second.resultType, "input_required");
  return await call({ inputResponses: answers(second), requestState: second.requestState });
}

/** Rounds of `twice` over HTTP for `user`. */
function twoRounds(server: Server, user: string, count = 2): Promise<Record<string, unknown>> {
  return rounds(overHttp(server, user), count);
}

Deno.test("request states (in-memory): a principal with its quota remembered is refused, another is served", async () => {
  const { server, audit } = quotaServer({ quotas: { requestStates: 2 } });
  const alice = await connectPeer(server, { principal: "alice", initialize: false });
  const bob = await connectPeer(server, { principal: "bob", initialize: false });
  assert.deepEqual(resultOf(await rounds(overMemory(alice))).content, [
    { type: "text", text: "both" },
  ]);
  assertQuota(await rounds(overMemory(alice), 1), "requestStates", 2);
  assert.deepEqual(resultOf(await rounds(overMemory(bob))).content, [
    { type: "text", text: "both" },
  ]);
  assert.deepEqual(quotaRefusals(audit), ["alice"]);
  await server.close();
  await alice.close();
  await bob.close();
});

Deno.test("request states (HTTP): a principal with its quota remembered is refused, another is served", async () => {
  const { server, audit } = quotaServer({ quotas: { requestStates: 2 } });
  // Two rounds open two states: Alice's memory is full.
  assert.deepEqual(resultOf(await twoRounds(server, "alice")).content, [
    { type: "text", text: "both" },
  ]);
  // Her next call's state would be one too many; Bob's two rounds are his own.
  assertQuota(await twoRounds(server, "alice", 1), "requestStates", 2);
  assert.deepEqual(resultOf(await twoRounds(server, "bob")).content, [
    { type: "text", text: "both" },
  ]);
  assert.deepEqual(quotaRefusals(audit), ["alice"]);
  await server.close();
});

Deno.test("request states: the quota frees as remembered states expire", async () => {
  const clock = { now: 1_000_000 };
  const { server } = quotaServer({
    quotas: { requestStates: 1 },
    requestStateTtlMs: 1000,
    now: () => clock.now,
  });
  const call = overHttp(server, "alice");
  const first = resultOf(await call({}));
  // Opening the first state fills Alice's memory until it expires.
  await call({ inputResponses: answers(first), requestState: first.requestState });
  clock.now += 900;
  const fresh = resultOf(await call({}));
  const retry = { inputResponses: answers(fresh), requestState: fresh.requestState };
  assertQuota(await call(retry), "requestStates", 1);
  clock.now += 101;
  // The first state expired (and with it its memory); the refused one was never remembered.
  assert.equal(resultOf(await call(retry)).resultType, "input_required");
  await server.close();
});

Deno.test("listen streams (stdio): a stream cancelled in the same read as the next listen gives its place to it", async () => {
  const { server } = quotaServer({ quotas: { listenStreams: 1 } });
  const frames = [
    modernRequest("a1", "subscriptions/listen", LISTEN),
    notification("notifications/cancelled", { requestId: "a1", reason: "next" }),
    modernRequest("a2", "subscriptions/listen", LISTEN),
  ].map((message) => JSON.stringify(message)).join("\n") + "\n";
  const input = new TransformStream<Uint8Array, Uint8Array>();
  const writer = input.writable.getWriter();
  const replies: string[] = [];
  const decoder = new TextDecoder();
  const output = new WritableStream<Uint8Array>({
    write: (chunk) => void replies.push(decoder.decode(chunk)),
  });
  const served = server.connect(new StdioTransport({ input: input.readable, output }));
  // All three lines in one chunk: one read hands them to the server together.
  await writer.write(new TextEncoder().encode(frames));
  for (let i = 0; i < 100 && !replies.join("").includes('"a2"'); i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const text = replies.join("");
  assert.ok(!text.includes("Quota exceeded"), text);
  assert.match(text, /subscriptionId":"a2"/);
  await writer.close();
  await served;
  await server.close();
});
