/**
 * The call pipeline every guarded method runs through. Order, outermost
 * first: audit → redaction → access policy → rate limit → custom guardrails
 * → argument validation → handler. The audit sees every call, including
 * those refused at any step; redaction sees everything that leaves,
 * refusals included.
 *
 * @module
 */

import type { GuardedCall } from "./context.ts";
import type { Guardrail, GuardrailStage } from "./guardrail.ts";
import { type CallNext, isPending, type MaybeOutcome } from "./outcome.ts";

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
 * The outcome comes back as it is when every step answered synchronously
 * (no promise is made on the way), else as a promise. A step may also throw
 * synchronously: the caller treats that as it treats a rejection.
 */
export type Pipeline = (call: GuardedCall, core: CallNext) => MaybeOutcome;

/**
 * Builds the pipeline from the guardrails (sorted into the fixed order).
 * Each guardrail gets a `next` that may be called at most once, so a faulty
 * guardrail cannot run the handler twice.
 */
export function composePipeline(guardrails: readonly Guardrail[]): Pipeline {
  const ordered = orderGuardrails(guardrails);
  const step = (index: number, call: GuardedCall, core: CallNext): MaybeOutcome => {
    const guardrail = ordered[index];
    if (guardrail === undefined) return core(call);
    let called = false;
    const next: CallNext = (c) => {
      if (called) {
        // A rejection, not a throw: a guardrail that awaits sees it where it awaits.
        return Promise.reject(new Error(`Guardrail '${guardrail.name}' called next() twice`));
      }
      called = true;
      return step(index + 1, c, core);
    };
    const outcome = guardrail.run(call, next);
    // A thenable of a guardrail's own becomes a promise, so every step after may call `then`.
    return outcome instanceof Promise || !isPending(outcome) ? outcome : Promise.resolve(outcome);
  };
  return (call, core) => step(0, call, core);
}
