/**
 * The server's one masker: the masks of its guardrails composed in pipeline
 * order. Every channel gets it from here — handler contexts (log, progress,
 * requests to the client), task notices, modern errors, the diagnostic log,
 * and the guardrails themselves per call (`CallContext.mask`: the audit log,
 * telemetry).
 *
 * @module
 */

import type { Guardrail } from "../call/guardrail.ts";
import { composeMasks, type Mask } from "../call/mask.ts";
import type { ContextServices } from "../core/context_base.ts";

/** The mask of a server whose guardrails mask nothing. */
function keepAsIs<T>(value: T): T {
  return value;
}

/**
 * The masker of a server with these guardrails (already in pipeline order),
 * as every context and channel borrows it.
 */
export function serverMasker(guardrails: readonly Guardrail[]): ContextServices {
  const masks: Mask[] = [];
  for (const guardrail of guardrails) {
    if (guardrail.mask !== undefined) masks.push(guardrail.mask);
  }
  const callMask = composeMasks(masks);
  return { mask: callMask ?? keepAsIs, callMask };
}

/** The frames of a V8 stack trace, each on its own line ("    at f (file:1:2)"). */
const STACK_FRAMES = /\n\s+at [^\n]*/g;

/**
 * The server's diagnostic log: `write` (stderr when absent) behind the
 * masker, since diagnostics carry error messages and stacks; without
 * `stacks`, the frames of a stack are left out (its first line stays).
 */
export function maskedLog(
  write: ((message: string) => void) | undefined,
  mask: Mask,
  stacks = true,
): (message: string) => void {
  const writeLine = write ?? ((message: string) => console.error(message));
  if (stacks) return (message) => writeLine(mask(message));
  return (message) => writeLine(mask(message.replace(STACK_FRAMES, "")));
}
