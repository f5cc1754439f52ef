/**
 * Quotas per principal: how much of what a server holds (tasks, open
 * listen streams, calls in flight, remembered multi round-trip states) one
 * principal may take, so that one caller cannot exhaust what the others
 * need. The counts, the defaults and the refusal every quota answers with.
 *
 * @module
 */

import { ErrorCode, RpcError } from "../jsonrpc/errors.ts";
import type { CallOutcome } from "../call/outcome.ts";

/** The quotas of one server, each a count per principal. */
export interface Quotas {
  /** Tasks kept (working or finished, until their TTL) per principal. */
  readonly tasks: number;
  /** `subscriptions/listen` streams open at once per principal. */
  readonly listenStreams: number;
  /** Guarded calls (tools, resources, prompts, completion, subscriptions) in flight per principal. */
  readonly inflightCalls: number;
  /** Multi round-trip states remembered (to tell replays) per principal. */
  readonly requestStates: number;
}

/** The defaults, documented in docs/guardrails.md#quotas. */
export const DEFAULT_QUOTAS: Quotas = {
  tasks: 100,
  listenStreams: 16,
  inflightCalls: 64,
  requestStates: 1000,
};

/** The names of the quotas as they appear in options and refusals. */
export type QuotaName = keyof Quotas;

/** Checks configured quotas and fills in the defaults; a bad one is a RangeError naming it. */
export function resolveQuotas(given: Partial<Record<QuotaName, number>> | undefined): Quotas {
  if (given === undefined) return DEFAULT_QUOTAS;
  if (typeof given !== "object" || given === null) {
    throw new TypeError("Cannot create server: quotas must be an object");
  }
  const quotas = { ...DEFAULT_QUOTAS };
  for (const name of Object.keys(DEFAULT_QUOTAS) as QuotaName[]) {
    const value = given[name];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new RangeError(`Cannot create server: quotas.${name} must be a positive integer`);
    }
    quotas[name] = value;
  }
  return quotas;
}

/** The error of a refusal: -32002 (the modern front door sends -31002), saying which quota. */
export function quotaError(name: QuotaName, limit: number): RpcError {
  return new RpcError(
    ErrorCode.RateLimited,
    `Quota exceeded: at most ${limit} ${DESCRIBED[name]} per principal`,
    { quota: name, limit },
  );
}

const DESCRIBED: Readonly<Record<QuotaName, string>> = {
  tasks: "tasks kept",
  listenStreams: "open listen streams",
  inflightCalls: "calls in flight",
  requestStates: "multi round-trip states remembered",
};

/** The outcome of a refusal: "quota_exceeded", which the audit log records as such. */
export function quotaOutcome(
  name: QuotaName,
  limit: number,
): Extract<CallOutcome, { readonly error: RpcError }> {
  return { status: "quota_exceeded", error: quotaError(name, limit) };
}

/** Entries at zero kept for reuse before they are swept (a bound on what idle principals cost). */
const MAX_IDLE = 1024;

/**
 * How many of one thing each principal holds, up to a limit. Anonymous
 * callers (no principal) share one count. A principal whose count drops to
 * zero keeps its entry for its next take (a call answered synchronously
 * takes and gives back at once, and re-inserting a map entry per call costs
 * more than the call's own bookkeeping); once more than
 * {@linkcode MAX_IDLE} entries are idle they are swept, so the table holds
 * the principals holding something and at most that many more.
 */
export class PrincipalCounts {
  /** The most each principal may hold. */
  readonly limit: number;
  readonly #counts = new Map<string | undefined, { held: number }>();
  /** Entries at zero. */
  #idle = 0;

  /** @param limit The most each principal may hold, at least 1. */
  constructor(limit: number) {
    this.limit = limit;
  }

  /** Entries kept: the principals holding something, and idle ones up to the bound. */
  get size(): number {
    return this.#counts.size;
  }

  /** How many `principal` holds. */
  held(principal: string | undefined): number {
    return this.#counts.get(principal)?.held ?? 0;
  }

  /** Takes one for `principal`; false (and nothing taken) when it holds its limit already. */
  take(principal: string | undefined): boolean {
    const count = this.#counts.get(principal);
    if (count === undefined) {
      this.#counts.set(principal, { held: 1 });
      return true;
    }
    if (count.held >= this.limit) return false;
    if (count.held === 0) this.#idle--;
    count.held++;
    return true;
  }

  /** Gives one back. */
  release(principal: string | undefined): void {
    const count = this.#counts.get(principal);
    if (count === undefined || count.held === 0) return;
    count.held--;
    if (count.held > 0) return;
    this.#idle++;
    if (this.#idle > MAX_IDLE) this.#sweep();
  }

  /** Drops every entry at zero. */
  #sweep(): void {
    for (const [principal, count] of this.#counts) {
      if (count.held === 0) this.#counts.delete(principal);
    }
    this.#idle = 0;
  }
}
