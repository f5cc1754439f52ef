/**
 * How a guarded call ends: a result to send or a protocol error, with the
 * status the step that ended it set.
 *
 * @module
 */

import { ErrorCode, type RpcError } from "../jsonrpc/errors.ts";
import { ModernErrorCode } from "../jsonrpc/modern_errors.ts";
import type { GuardedCall } from "./context.ts";

const MODERN_ACCESS_DENIED = ModernErrorCode.AccessDenied;
const MODERN_RATE_LIMITED = ModernErrorCode.RateLimited;
const INVALID_PARAMS = ErrorCode.InvalidParams;

/**
 * The end of a call: a result to send, or a protocol error. The step that
 * ended the call sets the status; nothing downstream rebuilds it from a
 * wire code. Bad tool arguments are "invalid" either way: a -32602 error,
 * or (revision 2025-11-25, SEP-1303) an `isError` result the model can read.
 * "input_required" is an interim multi round-trip result (revision
 * 2026-07-28); "error" is a protocol error a handler threw itself;
 * "quota_exceeded" a call refused because its principal holds its quota of
 * something the server keeps (tasks, listen streams, calls in flight,
 * multi round-trip states).
 *
 * @example A guardrail that counts the failed calls of each tool
 * ```ts
 * import type { CallOutcome, Guardrail } from "@warden/mcp/guardrails";
 * const failures = new Map<string, number>();
 * function failed(outcome: CallOutcome): boolean {
 *   return outcome.status === "tool_error" || outcome.status === "internal_error";
 * }
 * const failureCounter: Guardrail = {
 *   name: "failure-counter",
 *   stage: "custom",
 *   async run(call, next) {
 *     const outcome = await next(call);
 *     if (failed(outcome)) failures.set(call.name, (failures.get(call.name) ?? 0) + 1);
 *     return outcome;
 *   },
 * };
 * ```
 */
export type CallOutcome =
  | {
    readonly status: "ok" | "tool_error" | "invalid" | "input_required";
    readonly result: Record<string, unknown>;
  }
  | {
    readonly status:
      | "error"
      | "denied"
      | "rate_limited"
      | "quota_exceeded"
      | "invalid"
      | "not_found"
      | "internal_error"
      | "cancelled";
    readonly error: RpcError;
  };

/**
 * An outcome now, or a promise of one: what a step that answers
 * synchronously returns without creating a promise.
 */
export type MaybeOutcome = CallOutcome | Promise<CallOutcome>;

/**
 * The rest of the pipeline, as seen from one guardrail: the outcome itself
 * when every later step answered synchronously, else a promise of it.
 */
export type CallNext = (call: GuardedCall) => MaybeOutcome;

/**
 * True for a promise (or any thenable) rather than an outcome. Safe on what
 * a faulty guardrail may return instead of either (undefined, a number).
 */
export function isPending(value: MaybeOutcome): value is Promise<CallOutcome> {
  return typeof value === "object" && value !== null && "then" in value &&
    typeof value.then === "function";
}

/** How a call ended. */
export type CallStatus = CallOutcome["status"];

/**
 * The error code a client is sent for an error outcome in `era`: the
 * outcome's own in the legacy era; in revision 2026-07-28 a refusal takes
 * the modern code (-31001, -31002), an item not found -32602, and -32002
 * (resource not found before that revision) becomes -32602. The front door
 * builds its reply with it and the audit log records it, so both agree.
 */
export function sentErrorCode(
  outcome: Extract<CallOutcome, { error: RpcError }>,
  era: "legacy" | "modern",
): number {
  const code = outcome.error.code;
  if (era === "legacy") return code;
  switch (outcome.status) {
    case "denied":
      return MODERN_ACCESS_DENIED;
    case "rate_limited":
    case "quota_exceeded":
      return MODERN_RATE_LIMITED;
    case "not_found":
      return INVALID_PARAMS;
    default:
      return code === -32002 ? INVALID_PARAMS : code;
  }
}
