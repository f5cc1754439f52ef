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

/** What a call is about. */
export type CallKind = "tool" | "resource" | "prompt";

/** Which protocol era a request arrived in. */
export type Era = "legacy" | "modern";

/** The client as a request describes it: self-reported, never used for decisions. */
export interface CallClient {
  /** `clientInfo` (from `initialize`, or per request in the modern era). */
  readonly info: { readonly name: string; readonly version: string } | undefined;
  /** The capabilities the client declared (on the session, or on this request). */
  readonly capabilities: Readonly<Record<string, unknown>>;
  /** The protocol revision the request is served under. */
  readonly protocolVersion: string;
}

/**
 * The facts of one request that guardrails decide on: plain data, never the
 * handler's context. The principal is the one configured for the session or
 * the HTTP request; the client's self-description is never trusted.
 */
export interface CallContext {
  /** Who is calling, as configured; undefined when anonymous. */
  readonly principal: string | undefined;
  /** The client's self-description. */
  readonly client: CallClient;
  /** The JSON-RPC id of the request. */
  readonly requestId: string | number;
  /** Aborts when the client cancels or the server shuts down. */
  readonly signal: AbortSignal;
  /** Whether the request was aborted (without creating a signal). */
  readonly aborted: boolean;
  /** Whether the client itself cancelled it: then no reply is sent at all. */
  readonly cancelledByClient: boolean;
  /** The request's `_meta`, as sent. */
  readonly _meta: Readonly<Record<string, unknown>> | undefined;
  /** The protocol era the request arrived in. */
  readonly era: Era;
  /**
   * True on a multi round-trip retry whose sealed `requestState` verified:
   * the same call continuing, which the rate limiter does not charge again.
   */
  readonly continuation: boolean;
}

/**
 * One guarded call: a tools/call, resources/read or prompts/get, and every
 * other request that reads or acts on a named item (completion, resource
 * subscriptions). Guardrails may pass a changed copy to `next`.
 */
export interface GuardedCall {
  /** What kind of item is called. */
  readonly kind: CallKind;
  /** The JSON-RPC method. */
  readonly method: string;
  /** The tool or prompt name, or the resource URI. */
  readonly name: string;
  /** The call's arguments (empty for resources). */
  readonly arguments: Readonly<Record<string, unknown>>;
  /** The request's facts. */
  readonly context: CallContext;
}

/** How a call ended. */
export type CallStatus =
  | "ok"
  | "tool_error"
  | "input_required"
  | "error"
  | "denied"
  | "rate_limited"
  | "invalid"
  | "not_found"
  | "internal_error"
  | "cancelled";

/**
 * The end of a call: a result to send, or a protocol error. The step that
 * ended the call sets the status; nothing downstream rebuilds it from a
 * wire code. Bad tool arguments are "invalid" either way: a -32602 error,
 * or (revision 2025-11-25, SEP-1303) an `isError` result the model can read.
 * "input_required" is an interim multi round-trip result (revision
 * 2026-07-28); "error" is a protocol error a handler threw itself.
 */
export type CallOutcome =
  | {
    readonly status: "ok" | "tool_error" | "invalid" | "input_required";
    readonly result: Record<string, unknown>;
  }
  | {
    readonly status: Exclude<CallStatus, "ok" | "tool_error" | "input_required">;
    readonly error: RpcError;
  };

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

/** What a server lends its guardrails when it is created. */
export interface GuardrailHost {
  /**
   * The one masker everything the server writes passes (replies, log
   * notifications, diagnostics): the configured redaction guardrails in
   * order, or undefined when none is configured.
   */
  readonly mask: (<T>(value: T) => T) | undefined;
  /**
   * The redactors `mask` applies (those of the `redaction()` guardrails),
   * so that a guardrail holding one of them does not apply it a second time.
   */
  readonly redactors?: readonly unknown[];
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
  /**
   * The principal sessions run as when neither `connect()` nor
   * `createServer({ principal })` names one (set by `createGuardrails()`
   * from a policy's `principal`). A server refuses guardrails that disagree.
   */
  readonly principal?: string;
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
  /**
   * Called once by `createServer()` with what the server lends guardrails
   * (the audit log takes the server's masker from it). A guardrail given to
   * two servers keeps the last one's.
   */
  bind?(host: GuardrailHost): void;
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
 * Runs one call through the guardrails and then `core`, the step that does
 * the work for this particular request. Passing the core per call is what
 * lets every method share one pipeline while each brings its own last step.
 */
export type Pipeline = (call: GuardedCall, core: CallNext) => Promise<CallOutcome>;

/**
 * Builds the pipeline from the guardrails (sorted into the fixed order).
 * Each guardrail gets a `next` that may be called at most once, so a faulty
 * guardrail cannot run the handler twice.
 */
export function composePipeline(guardrails: readonly Guardrail[]): Pipeline {
  const ordered = orderGuardrails(guardrails);
  const step = (index: number, call: GuardedCall, core: CallNext): Promise<CallOutcome> => {
    const guardrail = ordered[index];
    if (guardrail === undefined) return core(call);
    let called = false;
    const next: CallNext = (c) => {
      if (called) {
        return Promise.reject(new Error(`Guardrail '${guardrail.name}' called next() twice`));
      }
      called = true;
      return step(index + 1, c, core);
    };
    return guardrail.run(call, next);
  };
  return (call, core) => step(0, call, core);
}
