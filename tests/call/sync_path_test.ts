/**
 * The synchronous fast path (issue 26): when the tool, the validator and
 * every guardrail answer synchronously, the call is answered without a
 * promise, from the pipeline up to the frame written; anything that awaits
 * takes the asynchronous path, and both give the same outcomes, release
 * the in-flight quota once and keep "next at most once".
 */

import assert from "node:assert/strict";
import { createServer, defineTool, type Server, type ToolDefinition } from "../../mod.ts";
import {
  accessPolicy,
  auditLog,
  callbackAuditSink,
  type Guardrail,
  rateLimit,
  redaction,
} from "../../guardrails.ts";
import type { AuditEntry } from "../../src/guardrails/audit/audit.ts";
import { composePipeline } from "../../src/call/compose.ts";
import type { CallOutcome } from "../../src/call/outcome.ts";
import { guardedCall } from "../_helpers/guarded_calls.ts";
import { initialize, modernRequest, request } from "../_helpers/helpers.ts";

const ECHO_SCHEMA = {
  type: "object",
  properties: { text: { type: "string" } },
  required: ["text"],
} as const;

const syncEcho = defineTool({
  name: "echo",
  description: "Returns its text",
  inputSchema: ECHO_SCHEMA,
  handler: ({ text }) => text,
});

const asyncEcho = defineTool({
  name: "echo",
  description: "Returns its text, a turn later",
  inputSchema: ECHO_SCHEMA,
  handler: async ({ text }) => await Promise.resolve(text),
});

/** The four built-in guardrails, none refusing, the audit log writing to an array. */
function fourGuardrails(entries: AuditEntry[] = []): Guardrail[] {
  return [
    auditLog({ sink: callbackAuditSink((entry) => void entries.push(entry)) }),
    redaction({ presets: true }),
    accessPolicy({ tools: { allow: ["*"] } }),
    rateLimit({ rules: [{ scope: "tool", capacity: 1e9, refillPerSecond: 1e9 }] }),
  ];
}

function isThenable(value: unknown): boolean {
  return typeof value === "object" && value !== null && "then" in value;
}

Deno.test("the four built-in guardrails hand a synchronous outcome back without a promise", async () => {
  const entries: AuditEntry[] = [];
  const pipeline = composePipeline(fourGuardrails(entries));
  const ok: CallOutcome = { status: "ok", result: { content: [] } };
  const now = pipeline(guardedCall("tool", "echo"), () => ok);
  assert.ok(!isThenable(now), "a synchronous call stays synchronous through all four");
  assert.equal((now as CallOutcome).status, "ok");
  assert.equal(entries.length, 1, "and its audit entry is written");

  const later = pipeline(guardedCall("tool", "echo"), () => Promise.resolve(ok));
  assert.ok(isThenable(later), "a step that awaits makes the pipeline a promise");
  assert.equal((await later).status, "ok");
  assert.equal(entries.length, 2);

  const refusing = composePipeline([
    ...fourGuardrails(entries),
    accessPolicy({ tools: { deny: ["echo"] } }),
  ]);
  const denied = refusing(guardedCall("tool", "echo"), () => ok);
  assert.ok(!isThenable(denied), "a refusal is synchronous too");
  assert.equal((denied as CallOutcome).status, "denied");
  assert.equal(entries.at(-1)?.outcome, "denied");
});

/**
 * Microtask turns from the moment a frame can be read to the moment its reply
 * is written, on a connected session: a ticker counts turns until the write.
 */
class TurnCounter {
  readonly #server: Server;
  #enqueue: ((frame: string) => void) | undefined;
  #onWrite: ((frame: string) => void) | undefined;
  readonly closed: Promise<void>;
  #end: (() => void) | undefined;

  constructor(server: Server) {
    this.#server = server;
    const readable = new ReadableStream<string>({
      start: (controller) => {
        this.#enqueue = (frame) => controller.enqueue(frame);
        this.#end = () => controller.close();
      },
    });
    const writable = new WritableStream<string>({
      write: (frame) => this.#onWrite?.(frame),
    });
    this.closed = server.connect({ readable, writable });
  }

  /** Sends `message` and resolves to the microtask turns until its reply was written. */
  turnsToReply(message: unknown): Promise<{ turns: number; reply: Record<string, unknown> }> {
    const { promise, resolve, reject } = Promise.withResolvers<
      { turns: number; reply: Record<string, unknown> }
    >();
    let turns = 0;
    let running = true;
    const tick = () => {
      if (!running) return;
      if (++turns > 10_000) {
        running = false;
        reject(new Error("no reply within 10000 microtask turns"));
        return;
      }
      queueMicrotask(tick);
    };
    this.#onWrite = (frame) => {
      running = false;
      this.#onWrite = undefined;
      resolve({ turns, reply: JSON.parse(frame) });
    };
    this.#enqueue?.(JSON.stringify(message));
    queueMicrotask(tick);
    return promise;
  }

  async close(): Promise<void> {
    this.#end?.();
    await this.closed;
    await this.#server.close();
  }
}

function echoCall(id: number, era: "legacy" | "modern"): unknown {
  const params = { name: "echo", arguments: { text: `t${id}` } };
  return era === "legacy"
    ? request(id, "tools/call", params)
    : modernRequest(id, "tools/call", params);
}

/** Turns to a guarded `echo` reply, and to a reply that needs no pipeline at all, in `era`. */
async function turnsInEra(
  tool: ToolDefinition,
  era: "legacy" | "modern",
): Promise<{ call: number; baseline: number }> {
  const server = createServer({
    name: "s",
    version: "1",
    tools: [tool],
    guardrails: fourGuardrails(),
  });
  // The 2026-07-28 front door loads on the first modern request: load it before counting turns.
  if (era === "modern") await server.handle(modernRequest(0, "tools/list"));
  const session = new TurnCounter(server);
  // The baseline is a request answered by a plain synchronous handler.
  const baseline = era === "legacy"
    ? await session.turnsToReply(initialize(1))
    : await session.turnsToReply(modernRequest(1, "tools/list"));
  if (era === "legacy") await session.turnsToReply(request(2, "ping"));
  const ping = era === "legacy" ? await session.turnsToReply(request(3, "ping")) : baseline;
  const call = await session.turnsToReply(echoCall(4, era));
  assert.deepEqual(call.reply.id, 4);
  assert.equal(
    JSON.stringify(call.reply).includes('"text":"t4"'),
    true,
    `the call was answered: ${JSON.stringify(call.reply)}`,
  );
  await session.close();
  return { call: call.turns, baseline: ping.turns };
}

for (const era of ["legacy", "modern"] as const) {
  Deno.test(`a guarded synchronous tools/call (${era}) is written as soon after its read as a plain request`, async () => {
    const { call, baseline } = await turnsInEra(syncEcho, era);
    assert.equal(call, baseline, "no promise between the frame and the reply");
  });

  Deno.test(`a guarded asynchronous tools/call (${era}) takes the promise path and is still answered`, async () => {
    const { call, baseline } = await turnsInEra(asyncEcho, era);
    assert.ok(call > baseline, `the async call took ${call} turns, a plain request ${baseline}`);
  });
}

/** A server whose principal may have one call in flight, with `guardrails` and `tools`. */
function oneAtATime(tools: ToolDefinition[], guardrails: Guardrail[]): Server {
  return createServer({
    name: "s",
    version: "1",
    tools,
    guardrails,
    quotas: { inflightCalls: 1 },
    log: () => {},
  });
}

function throwingTool(name: string, how: "sync" | "async"): ToolDefinition {
  return defineTool({
    name,
    description: "Fails",
    inputSchema: { type: "object" },
    handler: how === "sync"
      ? () => {
        throw new Error("sync failure");
      }
      : async () => {
        await Promise.resolve();
        throw new Error("async failure");
      },
  });
}

Deno.test("a handler that throws synchronously gives the outcome a rejection gives, and frees its quota", async () => {
  const server = oneAtATime(
    [throwingTool("sync_fail", "sync"), throwingTool("async_fail", "async"), syncEcho],
    fourGuardrails(),
  );
  await server.handle(initialize(1));
  const sync = await server.handle(request(2, "tools/call", { name: "sync_fail", arguments: {} }));
  const async = await server.handle(
    request(3, "tools/call", { name: "async_fail", arguments: {} }),
  );
  assert.deepEqual(sync, {
    jsonrpc: "2.0",
    id: 2,
    result: { content: [{ type: "text", text: "sync failure" }], isError: true },
  });
  assert.deepEqual(async, {
    jsonrpc: "2.0",
    id: 3,
    result: { content: [{ type: "text", text: "async failure" }], isError: true },
  });
  // With one call in flight allowed, a leaked place would refuse this one.
  const after = await server.handle(
    request(4, "tools/call", { name: "echo", arguments: { text: "still here" } }),
  );
  assert.deepEqual(after, {
    jsonrpc: "2.0",
    id: 4,
    result: { content: [{ type: "text", text: "still here" }] },
  });
  await server.close();
});

for (const how of ["sync", "async"] as const) {
  Deno.test(`a guardrail that throws (${how}) is -32603, the call audited, the quota freed`, async () => {
    const entries: AuditEntry[] = [];
    const broken: Guardrail = {
      name: "broken",
      stage: "custom",
      run: how === "sync"
        ? () => {
          throw new Error("guardrail bug");
        }
        : () => Promise.reject(new Error("guardrail bug")),
    };
    const server = oneAtATime([syncEcho], [...fourGuardrails(entries), broken]);
    await server.handle(initialize(1));
    for (const id of [2, 3]) {
      const reply = await server.handle(
        request(id, "tools/call", { name: "echo", arguments: { text: "x" } }),
      );
      assert.deepEqual(reply, {
        jsonrpc: "2.0",
        id,
        error: { code: -32603, message: "Internal error" },
      }, "the second call is refused the same way, not for a leaked quota");
    }
    assert.deepEqual(entries.map((entry) => entry.outcome), ["internal_error", "internal_error"]);
    await server.close();
  });

  Deno.test(`a guardrail that calls next twice (${how}) runs the handler once and fails the call`, async () => {
    let runs = 0;
    const counted = defineTool({
      name: "counted",
      description: "Counts its runs",
      inputSchema: { type: "object" },
      handler: how === "sync"
        ? () => `run ${++runs}`
        : async () => await Promise.resolve(`run ${++runs}`),
    });
    const twice: Guardrail = {
      name: "twice",
      stage: "custom",
      run: (call, next) => {
        const first = next(call);
        const second = next(call);
        // The first outcome is dropped: what the client gets is the second's rejection.
        void first;
        return second;
      },
    };
    const server = oneAtATime([counted], [...fourGuardrails(), twice]);
    await server.handle(initialize(1));
    const reply = await server.handle(request(2, "tools/call", { name: "counted", arguments: {} }));
    assert.deepEqual(reply, {
      jsonrpc: "2.0",
      id: 2,
      error: { code: -32603, message: "Internal error" },
    });
    assert.equal(runs, 1);
    const again = await server.handle(request(3, "tools/call", { name: "counted", arguments: {} }));
    assert.equal((again as { error?: unknown }).error !== undefined, true, "refused the same way");
    assert.equal(runs, 2, "and the quota was freed for it");
    await server.close();
  });
}

Deno.test("a guardrail may return a thenable of its own; one that returns no outcome is -32603, audited", async () => {
  const entries: AuditEntry[] = [];
  const thenable: Guardrail = {
    name: "thenable",
    stage: "custom",
    run: (call, next) => {
      const outcome = next(call);
      // A minimal thenable, not a Promise: every step before it still gets a promise.
      return {
        then: (resolve: (value: CallOutcome) => void) =>
          void Promise.resolve(outcome).then(resolve),
      } as unknown as Promise<CallOutcome>;
    },
  };
  const server = oneAtATime([syncEcho], [...fourGuardrails(entries), thenable]);
  await server.handle(initialize(1));
  assert.deepEqual(
    await server.handle(request(2, "tools/call", { name: "echo", arguments: { text: "via" } })),
    { jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text: "via" }] } },
  );
  await server.close();

  const nothing: Guardrail = {
    name: "nothing",
    stage: "custom",
    run: () => undefined as unknown as CallOutcome,
  };
  const broken = oneAtATime([syncEcho], [...fourGuardrails(entries), nothing]);
  await broken.handle(initialize(1));
  for (const id of [2, 3]) {
    assert.deepEqual(
      await broken.handle(request(id, "tools/call", { name: "echo", arguments: { text: "x" } })),
      { jsonrpc: "2.0", id, error: { code: -32603, message: "Internal error" } },
    );
  }
  assert.equal(entries.length, 3, "every answered call has its audit line");
  await broken.close();
});
