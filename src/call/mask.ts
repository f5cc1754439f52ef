/**
 * The mask: what everything a server sends passes through (replies,
 * notifications, diagnostics, requests to the client, task notices, audit
 * entries, telemetry). Guardrails contribute masks; the server composes
 * them into its one masker.
 *
 * @module
 */

/**
 * Masks a value and keeps its JSON shape: only string leaves (and object
 * keys) may change, so a masked reply is still a valid reply.
 *
 * @example A mask that hides one word in any value
 * ```ts
 * import type { Mask } from "@warden/mcp/guardrails";
 * const hideWord: Mask = (value) =>
 *   JSON.parse(JSON.stringify(value).replaceAll("hunter2", "[REDACTED]"));
 * ```
 */
export type Mask = <T>(value: T) => T;

/**
 * Composes masks into one that applies them in the order given; undefined
 * when there is none, so that "nothing to mask" stays visible to callers.
 *
 * @param masks The masks, first applied first.
 * @returns The composed mask, the only one itself, or undefined.
 */
export function composeMasks(masks: readonly Mask[]): Mask | undefined {
  if (masks.length <= 1) return masks[0];
  const steps = [...masks];
  return function composedMask<T>(value: T): T {
    let masked = value;
    for (const mask of steps) masked = mask(masked);
    return masked;
  };
}

/**
 * Errors that have passed a masking step already (the redaction guardrail
 * masks a call's error on its way out). The server masks every other error
 * it sends, so each is masked exactly once even by a mask that is not
 * idempotent. Weak, so a marked error costs nothing once it is gone.
 */
const maskedErrors = new WeakSet<object>();

/**
 * Marks `error` as masked already, so the server's last step sends it as it
 * is; returns it.
 */
export function markMasked<T extends object>(error: T): T {
  maskedErrors.add(error);
  return error;
}

/** Whether `error` was marked by {@linkcode markMasked}. */
export function isMasked(error: object): boolean {
  return maskedErrors.has(error);
}
