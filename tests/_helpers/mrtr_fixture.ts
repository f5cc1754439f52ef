/**
 * The fixture of the request-state security tests: a server whose tool,
 * prompt and resource each ask once, an audit log and a fake clock, and
 * helpers to take a first round and to check that a retry is refused.
 */

import assert from "node:assert/strict";
import {
  definePrompt,
  defineTool,
  type RequestContext,
  type Server,
  type ServerOptions,
} from "../../mod.ts";
import type { Guardrail } from "../../src/call/guardrail.ts";
import { type AuditEntry, auditLog, callbackAuditSink } from "../../guardrails.ts";
import { errorOf, modernRequest, resultOf } from "./helpers.ts";
import { type Message, type Peer, testServer } from "./peer.ts";

const FORM = { type: "object", properties: { ok: { type: "boolean" } } } as const;
export const YES = { action: "accept", content: { ok: true } };
export const KEY_A = "a-secret-of-at-least-thirty-two-bytes!!";
export const KEY_B = "another-secret-of-at-least-32-bytes!!!!";

async function confirm(ctx: RequestContext, what: string): Promise<string> {
  const answer = await ctx.elicit(`Go ahead with ${what}?`, FORM);
  return answer.action === "accept" && answer.content.ok === true ? `did ${what}` : "stopped";
}

/** One guarded method that asks, with the params of a first request to it. */
export interface Target {
  readonly method: string;
  readonly params: Record<string, unknown>;
}

export const TARGETS: readonly Target[] = [
  { method: "tools/call", params: { name: "asker", arguments: { x: 1 } } },
  { method: "prompts/get", params: { name: "asker", arguments: { x: "1" } } },
  { method: "resources/read", params: { uri: "test://asker" } },
];

/** The same request aimed elsewhere: another item, other arguments, another method. */
export function elsewhere(target: Target): Target[] {
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

export interface Fixture {
  readonly server: Server;
  readonly audit: AuditEntry[];
  readonly runs: { count: number };
  readonly clock: { now: number };
}

export function fixture(
  options: Partial<ServerOptions> = {},
  guardrails: Guardrail[] = [],
): Fixture {
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

export async function send(
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
export async function firstRound(
  peer: Peer,
  target: Target,
): Promise<{ state: string; key: string }> {
  const result = resultOf(await send(peer, target));
  assert.equal(result.resultType, "input_required", target.method);
  const [key] = Object.keys(result.inputRequests as Message);
  assert.ok(typeof result.requestState === "string" && key !== undefined);
  return { state: result.requestState, key };
}

export function retryParams(key: string, state: unknown): Record<string, unknown> {
  return { inputResponses: { [key]: YES }, requestState: state };
}

/** Sends a retry that must be refused: -32602, handler not run, audited as invalid. */
export async function assertRefused(
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

export function decode(state: string): Uint8Array {
  const body = state.slice(state.indexOf(".") + 1).replaceAll("-", "+").replaceAll("_", "/");
  return Uint8Array.from(atob(body), (c) => c.charCodeAt(0));
}

export function encode(prefix: string, bytes: Uint8Array): string {
  const text = btoa(String.fromCharCode(...bytes));
  return `${prefix}.${text.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "")}`;
}
