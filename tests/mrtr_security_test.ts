/**
 * `requestState` is attacker-controlled: every guarded method that can
 * answer input_required refuses a state that was tampered with, has
 * expired, or belongs to another principal, item, argument set or method,
 * with -32602, audited as "invalid"; the handler never runs on one.
 */

import assert from "node:assert/strict";
import {
  type AuditEntry,
  auditLog,
  callbackAuditSink,
  definePrompt,
  defineTool,
  type Guardrail,
  rateLimit,
  type RequestContext,
  type Server,
  type ServerOptions,
} from "../mod.ts";
import { errorOf, modernRequest, resultOf } from "./helpers.ts";
import { connectPeer, type Message, type Peer, testServer } from "./peer.ts";

const FORM = { type: "object", properties: { ok: { type: "boolean" } } } as const;
const YES = { action: "accept", content: { ok: true } };
const KEY_A = "a-secret-of-at-least-thirty-two-bytes!!";
const KEY_B = "another-secret-of-at-least-32-bytes!!!!";

async function confirm(ctx: RequestContext, what: string): Promise<string> {
  const answer = await ctx.elicit(`Go ahead with ${what}?`, FORM);
  return answer.action === "accept" && answer.content.ok === true ? `did ${what}` : "stopped";
}

/** One guarded method that asks, with the params of a first request to it. */
interface Target {
  readonly method: string;
  readonly params: Record<string, unknown>;
}

const TARGETS: readonly Target[] = [
  { method: "tools/call", params: { name: "asker", arguments: { x: 1 } } },
  { method: "prompts/get", params: { name: "asker", arguments: { x: "1" } } },
  { method: "resources/read", params: { uri: "test://asker" } },
];

/** The same request aimed elsewhere: another item, other arguments, another method. */
function elsewhere(target: Target): Target[] {
  const others: Target[] = TARGETS.filter((t) => t.method !== target.method);
  if (target.method === "tools/call") {
    others.push(
      { method: "tools/call", params: { name: "other_asker", arguments: { x: 1 } } },
      { method: "tools/call", params: { name: "asker", arguments: { x: 2 } } },
      { method: "tools/call", params: { name: "asker", arguments: { x: 1, y: 1 } } },
      { method: "tools/call", params: { name: "asker", arguments: {} } },
    );
  } else if (target.method === "prompts/get") {
    others.push(
      { method: "prompts/get", params: { name: "other_asker", arguments: { x: "1" } } },
      { method: "prompts/get", params: { name: "asker", arguments: { x: "2" } } },
    );
  } else {
    others.push({ method: "resources/read", params: { uri: "test://other_asker" } });
  }
  return others;
}

interface Fixture {
  readonly server: Server;
  readonly audit: AuditEntry[];
  readonly runs: { count: number };
  readonly clock: { now: number };
}

function fixture(options: Partial<ServerOptions> = {}, guardrails: Guardrail[] = []): Fixture {
  const audit: AuditEntry[] = [];
  const runs = { count: 0 };
  const clock = { now: 1_000_000 };
  const tools = ["asker", "other_asker"].map((name) =>
    defineTool({
      name,
      description: name,
      inputSchema: {
        type: "object",
        properties: { x: { type: "integer" }, y: { type: "integer" } },
      },
      handler: (_args, ctx) => {
        runs.count++;
        return confirm(ctx, name);
      },
    })
  );
  const prompts = ["asker", "other_asker"].map((name) =>
    definePrompt({
      name,
      description: name,
      arguments: [{ name: "x" }],
      get: (_args, ctx) => {
        runs.count++;
        return confirm(ctx, name);
      },
    })
  );
  const resources = ["asker", "other_asker"].map((name) => ({
    uri: `test://${name}`,
    name,
    read: (ctx: RequestContext) => {
      runs.count++;
      return confirm(ctx, name);
    },
  }));
  const server = testServer({
    tools,
    prompts,
    resources,
    now: () => clock.now,
    guardrails: [
      auditLog({ sink: callbackAuditSink((entry) => void audit.push(entry)) }),
      ...guardrails,
    ],
    ...options,
  });
  return { server, audit, runs, clock };
}

let nextId = 1;

async function send(
  peer: Peer,
  target: Target,
  extra: Record<string, unknown> = {},
): Promise<Message> {
  const id = nextId++;
  await peer.send(
    modernRequest(id, target.method, { ...target.params, ...extra }, { elicitation: {} }),
  );
  return peer.take((reply) => reply.id === id && !("method" in reply), `reply ${id}`);
}

/** A first round: the sealed state and the input key. */
async function firstRound(peer: Peer, target: Target): Promise<{ state: string; key: string }> {
  const result = resultOf(await send(peer, target));
  assert.equal(result.resultType, "input_required", target.method);
  const [key] = Object.keys(result.inputRequests as Message);
  assert.ok(typeof result.requestState === "string" && key !== undefined);
  return { state: result.requestState, key };
}

function retryParams(key: string, state: unknown): Record<string, unknown> {
  return { inputResponses: { [key]: YES }, requestState: state };
}

/** Sends a retry that must be refused: -32602, handler not run, audited as invalid. */
async function assertRefused(
  fx: Fixture,
  peer: Peer,
  target: Target,
  key: string,
  state: unknown,
  what: string,
): Promise<void> {
  const runs = fx.runs.count;
  const auditBefore = fx.audit.length;
  const reply = await send(peer, target, retryParams(key, state));
  const error = errorOf(reply);
  assert.equal(error.code, -32602, `${target.method}: ${what}`);
  assert.match(error.message, /requestState/, what);
  assert.equal(fx.runs.count, runs, `${what}: the handler must not run`);
  const entries = fx.audit.slice(auditBefore);
  assert.equal(entries.length, 1, what);
  assert.equal(entries[0]?.outcome, "invalid", what);
  assert.equal(entries[0]?.error_code, -32602, what);
  assert.equal(entries[0]?.method, target.method, what);
}

function decode(state: string): Uint8Array {
  const body = state.slice(state.indexOf(".") + 1).replaceAll("-", "+").replaceAll("_", "/");
  return Uint8Array.from(atob(body), (c) => c.charCodeAt(0));
}

function encode(prefix: string, bytes: Uint8Array): string {
  const text = btoa(String.fromCharCode(...bytes));
  return `${prefix}.${text.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "")}`;
}

Deno.test("a state with any byte flipped, truncated or extended is refused on every method", async () => {
  const fx = fixture();
  const peer = await connectPeer(fx.server, { principal: "alice", initialize: false });
  for (const target of TARGETS) {
    const { state, key } = await firstRound(peer, target);
    const prefix = state.slice(0, state.indexOf("."));
    const bytes = decode(state);
    for (let i = 0; i < bytes.length; i++) {
      for (const mask of [0x01, 0x80]) {
        const flipped = bytes.slice();
        flipped[i] = (flipped[i] ?? 0) ^ mask;
        await assertRefused(fx, peer, target, key, encode(prefix, flipped), `byte ${i} ^ ${mask}`);
      }
    }
    for (const length of [0, 1, 12, 13, 28, 29, bytes.length - 16, bytes.length - 1]) {
      await assertRefused(
        fx,
        peer,
        target,
        key,
        encode(prefix, bytes.slice(0, length)),
        `cut at ${length}`,
      );
    }
    for (const tail of [[0], [1, 2, 3], new Array(16).fill(7)]) {
      const longer = new Uint8Array([...bytes, ...tail]);
      await assertRefused(fx, peer, target, key, encode(prefix, longer), `+${tail.length} bytes`);
    }
    const textual: unknown[] = [
      "",
      "w1.",
      "w2" + state.slice(2),
      state.slice(3),
      state + "A",
      state + "=",
      state.slice(0, -1),
      ` ${state}`,
      state.replace(".", ".."),
      state.toUpperCase(),
      42,
      null,
      { state },
      [state],
      "x".repeat(300_000),
    ];
    for (const forged of textual) {
      await assertRefused(
        fx,
        peer,
        target,
        key,
        forged,
        `forged ${JSON.stringify(forged).slice(0, 30)}`,
      );
    }
    // The genuine state still works: nothing above was a false refusal of a good one.
    const done = resultOf(await send(peer, target, retryParams(key, state)));
    assert.equal(done.resultType, "complete", target.method);
  }
  await peer.close();
  await fx.server.close();
});

Deno.test("an expired state is refused; one just inside its lifetime is accepted", async () => {
  const fx = fixture({ requestStateTtlMs: 1_000 });
  const peer = await connectPeer(fx.server, { principal: "alice", initialize: false });
  for (const target of TARGETS) {
    const { state, key } = await firstRound(peer, target);
    fx.clock.now += 999;
    assert.equal(
      resultOf(await send(peer, target, retryParams(key, state))).resultType,
      "complete",
    );
    fx.clock.now += 1;
    await assertRefused(fx, peer, target, key, state, "at expiry");
    fx.clock.now += 86_400_000;
    await assertRefused(fx, peer, target, key, state, "a day later");
  }
  await peer.close();
  await fx.server.close();
});

Deno.test("a state replayed by another principal is refused", async () => {
  const fx = fixture();
  const alice = await connectPeer(fx.server, { principal: "alice", initialize: false });
  const bob = await connectPeer(fx.server, { principal: "bob", initialize: false });
  const anonymous = await connectPeer(fx.server, { initialize: false });
  for (const target of TARGETS) {
    const { state, key } = await firstRound(alice, target);
    await assertRefused(fx, bob, target, key, state, "bob replays alice's state");
    await assertRefused(fx, anonymous, target, key, state, "an anonymous caller replays it");
    const fromAnonymous = await firstRound(anonymous, target);
    await assertRefused(
      fx,
      alice,
      target,
      fromAnonymous.key,
      fromAnonymous.state,
      "alice replays an anonymous state",
    );
    assert.equal(
      resultOf(await send(alice, target, retryParams(key, state))).resultType,
      "complete",
    );
  }
  for (const peer of [alice, bob, anonymous]) await peer.close();
  await fx.server.close();
});

Deno.test("a state replayed for another item, other arguments or another method is refused", async () => {
  const fx = fixture();
  const peer = await connectPeer(fx.server, { principal: "alice", initialize: false });
  for (const target of TARGETS) {
    const { state, key } = await firstRound(peer, target);
    for (const other of elsewhere(target)) {
      await assertRefused(
        fx,
        peer,
        other,
        key,
        state,
        `${target.method} state on ${JSON.stringify(other)}`,
      );
    }
  }
  await peer.close();
  await fx.server.close();
});

Deno.test("every round is audited: interim rounds as input_required, the last as ok", async () => {
  const fx = fixture();
  const peer = await connectPeer(fx.server, { principal: "alice", initialize: false });
  for (const target of TARGETS) {
    const before = fx.audit.length;
    const { state, key } = await firstRound(peer, target);
    await send(peer, target, retryParams(key, state));
    const entries = fx.audit.slice(before);
    assert.deepEqual(entries.map((e) => [e.method, e.outcome, e.error_code, e.principal]), [
      [target.method, "input_required", null, "alice"],
      [target.method, "ok", null, "alice"],
    ]);
  }
  await peer.close();
  await fx.server.close();
});

Deno.test("a retry with a valid state does not take a second rate-limit token; a forged one does", async () => {
  const limiter = rateLimit({
    rules: [{
      scope: "tool",
      capacity: 2,
      refillPerSecond: 0.001,
      kinds: ["tool", "resource", "prompt"],
    }],
  }, { now: () => 0 });
  const fx = fixture({}, [limiter]);
  const peer = await connectPeer(fx.server, { principal: "alice", initialize: false });
  for (const target of TARGETS) {
    // Token 1 of 2.
    const { state, key } = await firstRound(peer, target);
    // Free: the same call continuing.
    const done = resultOf(await send(peer, target, retryParams(key, state)));
    assert.equal(done.resultType, "complete", `${target.method}: the continuation passes`);
    // A forged continuation pays (token 2) and is refused.
    const bytes = decode(state);
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 1;
    const forged = errorOf(await send(peer, target, retryParams(key, encode("w1", bytes))));
    assert.equal(forged.code, -32602, target.method);
    // So the bucket is empty now.
    assert.equal(errorOf(await send(peer, target)).code, -31002, target.method);
  }
  await peer.close();
  await fx.server.close();
});

Deno.test("a valid state replayed pays like a new call: one state buys one free continuation", async () => {
  const limiter = rateLimit({
    rules: [{
      scope: "tool",
      capacity: 2,
      refillPerSecond: 0.001,
      kinds: ["tool", "resource", "prompt"],
    }],
  }, { now: () => 0 });
  const fx = fixture({}, [limiter]);
  const peer = await connectPeer(fx.server, { principal: "alice", initialize: false });
  for (const target of TARGETS) {
    const { state, key } = await firstRound(peer, target); // token 1
    const runs = fx.runs.count;
    for (let i = 0; i < 2; i++) {
      // The continuation (free), then a replay of it (token 2): both are served.
      const done = resultOf(await send(peer, target, retryParams(key, state)));
      assert.equal(done.resultType, "complete", `${target.method} use ${i}`);
    }
    assert.equal(fx.runs.count, runs + 2);
    // A third use finds the bucket empty: replays are not free.
    assert.equal(errorOf(await send(peer, target, retryParams(key, state))).code, -31002);
    assert.equal(fx.runs.count, runs + 2);
  }
  await peer.close();
  await fx.server.close();
});

Deno.test("servers sharing requestStateKey accept each other's states; other keys refuse them", async () => {
  const a = fixture({ requestStateKey: KEY_A });
  const a2 = fixture({ requestStateKey: KEY_A });
  const b = fixture({ requestStateKey: KEY_B });
  const random = fixture();
  const peers = await Promise.all(
    [a, a2, b, random].map((fx) =>
      connectPeer(fx.server, { principal: "alice", initialize: false })
    ),
  );
  const [onA, onA2, onB, onRandom] = peers as [Peer, Peer, Peer, Peer];
  for (const target of TARGETS) {
    const { state, key } = await firstRound(onA, target);
    assert.equal(
      resultOf(await send(onA2, target, retryParams(key, state))).resultType,
      "complete",
    );
    await assertRefused(b, onB, target, key, state, "another key");
    await assertRefused(random, onRandom, target, key, state, "a random per-process key");
  }
  for (const peer of peers) await peer.close();
  for (const fx of [a, a2, b, random]) await fx.server.close();
});

Deno.test("a key list rotates: the old key still opens, the new key seals", async () => {
  const old = fixture({ requestStateKey: KEY_A });
  const rotated = fixture({ requestStateKey: [KEY_B, KEY_A] });
  const next = fixture({ requestStateKey: [KEY_B] });
  const peers = await Promise.all(
    [old, rotated, next].map((fx) =>
      connectPeer(fx.server, { principal: "alice", initialize: false })
    ),
  );
  const [onOld, onRotated, onNext] = peers as [Peer, Peer, Peer];
  for (const target of TARGETS) {
    const sealedOld = await firstRound(onOld, target);
    const opened = resultOf(
      await send(onRotated, target, retryParams(sealedOld.key, sealedOld.state)),
    );
    assert.equal(opened.resultType, "complete", "the old key opens");
    const sealedNew = await firstRound(onRotated, target);
    const reopened = resultOf(
      await send(onNext, target, retryParams(sealedNew.key, sealedNew.state)),
    );
    assert.equal(reopened.resultType, "complete", "sealed with the new key");
    await assertRefused(old, onOld, target, sealedNew.key, sealedNew.state, "the old-only server");
  }
  for (const peer of peers) await peer.close();
  for (const fx of [old, rotated, next]) await fx.server.close();
});

Deno.test("a short requestStateKey is refused at start-up, naming the option", () => {
  assert.throws(
    () => testServer({ requestStateKey: "short" }),
    (error: unknown) => error instanceof RangeError && /requestStateKey/.test(error.message),
  );
  assert.throws(
    () => testServer({ requestStateKey: [KEY_A, "short"] }),
    (error: unknown) => error instanceof RangeError && /requestStateKey\[1\]/.test(error.message),
  );
});

Deno.test("a retry cannot replace an answer sealed in an earlier round", async () => {
  const form = { type: "object", properties: { name: { type: "string" } } } as const;
  const server = testServer({
    tools: [defineTool({
      name: "two_questions",
      description: "Asks twice, one after the other",
      inputSchema: { type: "object", properties: {} },
      handler: async (_args, ctx) => {
        const first = await ctx.elicit("First?", form);
        const second = await ctx.elicit("Second?", form);
        return [first, second].map((a) => a.action === "accept" ? a.content.name : "-").join(",");
      },
    })],
  });
  const peer = await connectPeer(server, { initialize: false });
  const target: Target = { method: "tools/call", params: { name: "two_questions" } };
  const round1 = await firstRound(peer, target);
  const answer = (name: string) => ({ action: "accept", content: { name } });
  const round2 = resultOf(
    await send(peer, target, {
      inputResponses: { [round1.key]: answer("approved") },
      requestState: round1.state,
    }),
  );
  const [key2] = Object.keys(round2.inputRequests as Message);
  const done = await send(peer, target, {
    inputResponses: { [round1.key]: answer("forged"), [key2 ?? ""]: answer("second") },
    requestState: round2.requestState,
  });
  assert.deepEqual(resultOf(done).content, [{ type: "text", text: "approved,second" }]);
  // The state is encrypted, not only signed: the sealed answer cannot be read off it.
  assert.ok(
    !atob(
      String(round2.requestState).slice(3).replaceAll("-", "+").replaceAll("_", "/"),
    ).includes("approved"),
  );
  await peer.close();
  await server.close();
});
