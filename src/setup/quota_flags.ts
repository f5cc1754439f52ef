/**
 * `--quota NAME=N`, repeatable: the quotas per principal a server script
 * takes from its command line (`createServer()`'s `quotas`).
 *
 * @module
 */

import type { ServerOptions } from "../server/types.ts";

/** The quota names a flag may set, as `createServer()`'s `quotas` names them. */
const QUOTA_NAMES: ReadonlySet<string> = new Set([
  "tasks",
  "listenStreams",
  "inflightCalls",
  "requestStates",
]);

/** Quotas by name, as given on the command line. */
export type QuotaFlags = NonNullable<ServerOptions["quotas"]>;

/**
 * Reads `--quota` values (`tasks=50`, `inflightCalls=8`…); a string saying
 * what is wrong when one is malformed, names an unknown quota or is not a
 * positive integer.
 *
 * @example
 * ```ts
 * import { parseQuotaFlags } from "./quota_flags.ts";
 * const quotas = parseQuotaFlags(["tasks=50", "listenStreams=4"]);
 * console.assert(typeof quotas === "object" && quotas.tasks === 50);
 * ```
 */
export function parseQuotaFlags(values: readonly string[]): QuotaFlags | string {
  const quotas: Record<string, number> = {};
  for (const value of values) {
    const match = /^([A-Za-z]+)=([0-9]+)$/.exec(value);
    const name = match?.[1];
    const count = Number(match?.[2]);
    if (name === undefined || !QUOTA_NAMES.has(name)) {
      return `--quota needs NAME=N with NAME one of ${[...QUOTA_NAMES].join(", ")}, got ${
        JSON.stringify(value)
      }`;
    }
    if (!Number.isSafeInteger(count) || count < 1) {
      return `--quota ${name} must be a positive integer, got ${JSON.stringify(value)}`;
    }
    quotas[name] = count;
  }
  return quotas;
}

/**
 * Sets `flags.quotas` from the `--quota` values parsed (none: nothing);
 * returns what is wrong with them, or undefined.
 *
 * @example
 * ```ts
 * import { readQuotaFlags } from "./quota_flags.ts";
 * const flags: { quotas?: { tasks?: number } } = {};
 * console.assert(readQuotaFlags(["tasks=5"], flags) === undefined && flags.quotas?.tasks === 5);
 * ```
 */
export function readQuotaFlags(
  values: unknown,
  flags: { quotas?: QuotaFlags },
): string | undefined {
  if (!Array.isArray(values)) return undefined;
  const quotas = parseQuotaFlags(values.map(String));
  if (typeof quotas === "string") return quotas;
  flags.quotas = quotas;
  return undefined;
}
