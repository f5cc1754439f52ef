/**
 * Guarded calls built by hand for the tests of single guardrails and of the
 * pipeline that composes them: a call of each kind, a `next` that records
 * what reached it, and the error of a refused outcome.
 *
 * @module
 */

import assert from "node:assert/strict";
import type { CallKind, GuardedCall } from "../../src/call/context.ts";
import type { CallNext, CallOutcome } from "../../src/call/outcome.ts";
import { RpcError } from "../../src/jsonrpc/errors.ts";
import { testContext } from "./helpers.ts";

const METHODS: Readonly<Record<CallKind, string>> = {
  tool: "tools/call",
  resource: "resources/read",
  prompt: "prompts/get",
};

/** A call of `kind` to `name`, by `principal` when given. */
export function guardedCall(kind: CallKind, name: string, principal?: string): GuardedCall {
  return {
    kind,
    method: METHODS[kind],
    name,
    arguments: {},
    context: testContext(principal),
  };
}

/** A `next` that records each call it receives and answers `ok`. */
export function recorder(): { next: CallNext; seen: GuardedCall[]; outcome: CallOutcome } {
  const seen: GuardedCall[] = [];
  const outcome: CallOutcome = { status: "ok", result: { content: [] } };
  const next: CallNext = (call) => {
    seen.push(call);
    return Promise.resolve(outcome);
  };
  return { next, seen, outcome };
}

/** The error of a refused outcome, failing the test if the outcome is not refused. */
export function errorOf(outcome: CallOutcome): RpcError {
  assert.ok("error" in outcome, `expected a refusal, got status ${outcome.status}`);
  assert.ok(outcome.error instanceof RpcError);
  return outcome.error;
}
