/**
 * The signature a guardrail implements: one step of the call pipeline,
 * optionally a list filter.
 *
 * @module
 */

import type { CallKind, GuardedCall } from "./context.ts";
import type { Mask } from "./mask.ts";
import type { CallNext, CallOutcome } from "./outcome.ts";

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
