/**
 * The signature a guardrail implements: one step of the call pipeline,
 * optionally a list filter.
 *
 * @module
 */

import type { GuardedCall } from "./context.ts";
import type { Mask } from "./mask.ts";
import type { CallOutcome } from "./outcome.ts";

/**
 * A step of the call pipeline. `run` receives the call and the rest of the
 * pipeline; it may refuse (return an error outcome without calling `next`),
 * pass through, or change what comes back. `next` returns the outcome
 * itself when every later step answered synchronously, else a promise of it;
 * `run` may likewise return an outcome or a promise. A guardrail that only
 * passes `next`'s value on (or refuses with a plain outcome) keeps a call
 * that needs no waiting free of promises; one that needs to wait may be
 * `async` and `await next(call)`, which works for both. `visible`, when
 * present, also filters tools/list, resources/list and prompts/list.
 *
 * @example A guardrail that refuses calls outside office hours
 * ```ts
 * import { ErrorCode, RpcError } from "@warden/mcp";
 * import type { Guardrail } from "@warden/mcp/guardrails";
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
  /**
   * Where it runs in the fixed order (audit, redact, access, rate_limit,
   * custom); built-ins set their own, user guardrails use "custom".
   */
  readonly stage: "audit" | "redact" | "access" | "rate_limit" | "custom";
  /**
   * The step itself: `next` runs the rest of the pipeline, at most once. Both
   * may answer with the outcome itself or with a promise of it (await either).
   */
  run(
    call: GuardedCall,
    next: (call: GuardedCall) => CallOutcome | Promise<CallOutcome>,
  ): CallOutcome | Promise<CallOutcome>;
  /**
   * Whether `principal` may see `item` (a tool or prompt name, or a
   * resource URI) in a list; absent means yes.
   */
  visible?(
    item: { readonly kind: GuardedCall["kind"]; readonly name: string },
    principal: string | undefined,
  ): boolean;
  /** Resolves when everything the guardrail buffered is written (audit sinks). */
  flush?(): Promise<void>;
  /**
   * What this guardrail masks in everything the server sends: the server
   * composes the masks of its guardrails, in pipeline order, into its one
   * masker, which replies, notifications, diagnostics, requests to the
   * client, task notices, audit entries and telemetry all pass
   * (`CallContext.mask` hands it to guardrails). It must keep the shape.
   */
  readonly mask?: Mask;
}

/** Where a guardrail sits in the fixed order. */
export type GuardrailStage = Guardrail["stage"];

/** An item a list method may show. */
export type ListedItem = Parameters<NonNullable<Guardrail["visible"]>>[0];
