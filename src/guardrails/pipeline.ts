/**
 * The call pipeline every guarded method runs through, and the signature a
 * guardrail implements. Order, outermost first: audit → redaction → access
 * policy → rate limit → custom guardrails → argument validation → handler.
 * The audit sees every call, including those refused at any step; redaction
 * sees everything that leaves, refusals included.
 *
 * @module
 */

import type { RpcError } from "../jsonrpc/errors.ts";
import type { RequestContext } from "../core/context.ts";

/** What a call is about. */
export type CallKind = "tool" | "resource" | "prompt";

/** One guarded call: a tools/call, resources/read or prompts/get. */
export interface GuardedCall {
  /** What kind of item is called. */
  readonly kind: CallKind;
  /** The JSON-RPC method. */
  readonly method: string;
  /** The tool or prompt name, or the resource URI. */
  readonly name: string;
  /** The call's arguments (empty for resources). */
  readonly arguments: Readonly<Record<string, unknown>>;
  /**
   * The request's context: principal, client, id, signal and `_meta`. The
   * principal is the one configured for the session; the client's self-description
   * is never trusted for decisions.
   */
  readonly context: RequestContext;
}

/** How a call ended. */
export type CallStatus =
  | "ok"
  | "tool_error"
  | "denied"
  | "rate_limited"
  | "invalid"
  | "not_found"
  | "internal_error"
  | "cancelled";

/**
 * The end of a call: a result to send, or a protocol error. Bad tool
 * arguments are "invalid" either way: a -32602 error, or (revision
 * 2025-11-25, SEP-1303) an `isError` result the model can read.
 */
export type CallOutcome =
  | { readonly status: "ok" | "tool_error" | "invalid"; readonly result: Record<string, unknown> }
  | { readonly status: Exclude<CallStatus, "ok" | "tool_error">; readonly error: RpcError };

/** The rest of the pipeline, as seen from one guardrail. */
export type CallNext = (call: GuardedCall) => Promise<CallOutcome>;

/** Where a guardrail sits in the fixed order. */
export type GuardrailStage = "audit" | "redact" | "access" | "rate_limit" | "custom";

/** An item a list method may show. */
export interface ListedItem {
  /** What kind of item. */
  readonly kind: CallKind;
  /** Tool or prompt name, or resource URI. */
  readonly name: string;
}

/**
 * A step of the call pipeline. `run` receives the call and the rest of the
 * pipeline; it may refuse (return an error outcome without calling `next`),
 * pass through, or change what comes back. `visible`, when present, also
 * filters tools/list, resources/list and prompts/list.
 *
 * @example A guardrail that refuses calls outside office hours
 * ```ts
 * import { ErrorCode, RpcError, type Guardrail } from "@warden/mcp";
 * const officeHours: Guardrail = {
 *   name: "office-hours",
 *   stage: "custom",
 *   run: (call, next) => {
 *     const hour = new Date().getUTCHours();
 *     if (hour >= 8 && hour < 18) return next(call);
 *     return Promise.resolve({
 *       status: "denied",
 *       error: new RpcError(ErrorCode.AccessDenied, `Access denied: ${call.name}`),
 *     });
 *   },
 * };
 * ```
 */
export interface Guardrail {
  /** A name for diagnostics. */
  readonly name: string;
  /** Where it runs; built-ins set their own, user guardrails use "custom". */
  readonly stage: GuardrailStage;
  /** The step itself. */
  run(call: GuardedCall, next: CallNext): Promise<CallOutcome>;
  /** Whether `principal` may see `item` in a list; absent means yes. */
  visible?(item: ListedItem, principal: string | undefined): boolean;
  /**
   * Masks data the server sends outside a call's result: log data, progress
   * messages, sampling and elicitation requests. It must keep the shape.
   */
  outgoing?<T>(value: T): T;
  /** Resolves when everything the guardrail buffered is written (audit sinks). */
  flush?(): Promise<void>;
}

const STAGE_ORDER: Readonly<Record<GuardrailStage, number>> = {
  audit: 0,
  redact: 1,
  access: 2,
  rate_limit: 3,
  custom: 4,
};

/** Sorts guardrails into the fixed order; custom ones keep the order they were given in. */
export function orderGuardrails(guardrails: readonly Guardrail[]): Guardrail[] {
  // Array.prototype.sort is stable, so equal stages keep their relative order.
  return [...guardrails].sort((a, b) => STAGE_ORDER[a.stage] - STAGE_ORDER[b.stage]);
}

/**
 * Builds one function from the ordered guardrails around `core`. Each
 * guardrail gets a `next` that may be called at most once, so a faulty
 * guardrail cannot run the handler twice.
 */
export function composePipeline(guardrails: readonly Guardrail[], core: CallNext): CallNext {
  const ordered = orderGuardrails(guardrails);
  return ordered.reduceRight<CallNext>((next, guardrail) => (call) => {
    let called = false;
    const once: CallNext = (c) => {
      if (called) {
        return Promise.reject(new Error(`Guardrail '${guardrail.name}' called next() twice`));
      }
      called = true;
      return next(c);
    };
    return guardrail.run(call, once);
  }, core);
}
