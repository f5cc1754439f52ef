/**
 * The rate limiter as state and as a guardrail: {@linkcode createRateLimiter}
 * keeps buckets in a bucket store (or takes them from a shared store) and
 * {@linkcode rateLimit} puts it in the call pipeline. The rules themselves
 * are in `limits.ts`.
 *
 * @module
 */

import { localBuckets } from "../../store/memory_store.ts";
import { ErrorCode, RpcError } from "../../jsonrpc/errors.ts";
import { itemLabel } from "../access/access_policy.ts";
import { type BucketStore, MemoryBucketStore } from "../../store/bucket_store.ts";
import type { Guardrail } from "../../call/guardrail.ts";
import type { SharedStore } from "../../store/shared_store.ts";
import type { TokenBucket } from "../../store/token_bucket.ts";
import { sharedRateLimit, type StoreOutagePolicy } from "./shared_rate_limit.ts";
import {
  charge,
  checkCall,
  compileRateLimits,
  planTakes,
  type RateLimitCall,
  type RateLimiterOptions,
  type RateLimitOutcome,
  type RateLimitRefusal,
  rulesOf,
} from "./limits.ts";

/** What {@linkcode createRateLimiter} and {@linkcode rateLimitWith} run against. */
export interface RateLimiterDeps {
  /**
   * Where buckets live between calls.
   * @default {new MemoryBucketStore()}
   */
  store?: BucketStore;
  /**
   * The clock, in milliseconds.
   * @default {Date.now}
   */
  now?: () => number;
  /**
   * A shared store (see `src/store/`). An in-process store lends its
   * synchronous buckets; Redis or Deno KV make every call one atomic take
   * on the store, shared by all the instances that open it.
   * @default {undefined} (buckets in this process only)
   */
  shared?: SharedStore;
  /**
   * What a call gets while a shared store is unreachable: refused with the
   * rate-limited error (`fail-closed`) or let through unlimited (`fail-open`).
   * @default {"fail-closed"}
   */
  onOutage?: StoreOutagePolicy;
}

/**
 * Creates a rate limiter over a bucket store. Each call reads its buckets,
 * decides and writes them back synchronously, with no `await` in between, so
 * concurrent calls in one process cannot overdraw a bucket.
 *
 * @param options The rules, validated now.
 * @param deps The store and the clock.
 * @returns A function deciding one call and charging its buckets if allowed.
 * @throws {TypeError} If a value in `options` has the wrong type or a key is unknown.
 * @throws {RangeError} If a value in `options` is out of range.
 *
 * @example Usage
 * ```ts
 * import { createRateLimiter } from "./rate_limit.ts";
 * const limit = createRateLimiter(
 *   { rules: [{ scope: "principal", capacity: 2, refillPerSecond: 1 }] },
 *   { now: () => 0 },
 * );
 * const call = { kind: "tool", name: "get_order", principal: "alice" } as const;
 * console.assert(limit(call).allowed && limit(call).allowed);
 * console.assert(!limit(call).allowed);
 * ```
 */
export function createRateLimiter(
  options: RateLimiterOptions,
  deps: RateLimiterDeps = {},
): (call: RateLimitCall) => RateLimitOutcome {
  const limit = createLimiter(options, deps);
  return function limitCall(call: RateLimitCall): RateLimitOutcome {
    checkCall(call.kind, call.name);
    const refusal = limit(call);
    if (refusal === undefined) return { allowed: true };
    return { allowed: false, ...refusal };
  };
}

/**
 * The limiter behind {@linkcode createRateLimiter} and {@linkcode rateLimit}:
 * `undefined` when the call is allowed (and charged), else why not.
 */
function createLimiter(
  options: RateLimiterOptions,
  deps: RateLimiterDeps,
): (call: RateLimitCall) => RateLimitRefusal | undefined {
  const rules = rulesOf(compileRateLimits(options));
  const store = deps.store ?? localBuckets(deps.shared) ?? new MemoryBucketStore();
  const now = deps.now ?? Date.now;
  const read = (key: string) => store.get(key);
  const write = (key: string, bucket: TokenBucket) => store.set(key, bucket);
  return (call) => charge(rules, call, read, write, now());
}

/**
 * The rate limiter as a pipeline guardrail (`stage: "rate_limit"`), over
 * {@linkcode createRateLimiter}: the rules are validated here, at start-up,
 * and each call is decided and charged synchronously.
 *
 * A call is limited by its kind, its name and the session's principal. A
 * refused call never reaches the rest of the pipeline and charges no bucket;
 * it ends with -32002, `data` of exactly `{ retry_after_seconds }` (a whole
 * number of seconds, at least 1) and a message naming the item and the wait,
 * e.g. `Rate limit exceeded: tool "get_order", retry in 3 s`. The name is
 * written as in the access policy's messages: a JSON string, cut to 80
 * characters. Rate limits hide nothing from the list methods. A multi
 * round-trip retry whose sealed state verified (`context.continuation`) is
 * not charged again: its first round paid.
 *
 * @param options The rules.
 * @param deps The store and the clock.
 * @returns The guardrail, for `createServer({ guardrails })`.
 * @throws {TypeError} If a value in `options` has the wrong type or a key is unknown.
 * @throws {RangeError} If a value in `options` is out of range.
 *
 * @example Ten calls a minute per caller and tool, with bursts of five
 * ```ts
 * import { createServer } from "@warden/mcp";
 * import { rateLimit } from "@warden/mcp/guardrails";
 * const server = createServer({
 *   name: "orders",
 *   version: "1.0.0",
 *   guardrails: [
 *     rateLimit({
 *       rules: [{ scope: "tool+principal", capacity: 5, refillPerSecond: 10 / 60 }],
 *     }),
 *   ],
 * });
 * ```
 */
export function rateLimit(
  options: RateLimiterOptions,
  deps: {
    /**
     * The clock, in milliseconds.
     * @default {Date.now}
     */
    now?: () => number;
    /**
     * A shared store (see `@warden/mcp/store`). An in-process store lends its
     * synchronous buckets; Redis or Deno KV make every call one atomic take
     * on the store, shared by all the instances that open it.
     * @default {undefined} (buckets in this process only)
     */
    shared?: SharedStore;
    /**
     * What a call gets while a shared store is unreachable: refused with the
     * rate-limited error (`fail-closed`) or let through unlimited (`fail-open`).
     * @default {"fail-closed"}
     */
    onOutage?: "fail-closed" | "fail-open";
  } = {},
): Guardrail {
  return rateLimitWith(options, deps);
}

/**
 * {@linkcode rateLimit} with every seam injectable, the bucket store
 * included (tests; a store that fails, a bounded one).
 */
export function rateLimitWith(options: RateLimiterOptions, deps: RateLimiterDeps = {}): Guardrail {
  const shared = deps.shared;
  if (shared !== undefined && localBuckets(shared) === undefined && deps.store === undefined) {
    const rules = rulesOf(compileRateLimits(options));
    const onOutage = deps.onOutage ?? "fail-closed";
    return sharedRateLimit({ shared, onOutage, plan: (call) => planTakes(rules, call) });
  }
  const limit = createLimiter(options, deps);
  return {
    name: "rate-limit",
    stage: "rate_limit",
    // Not async: an allowed call hands on what `next` gives (an outcome, or its promise).
    run(call, next) {
      // The same call continuing (a verified MRTR retry, a task's polls) was charged when it began.
      if (call.context.continuation) return next(call);
      let refusal: RateLimitRefusal | undefined;
      try {
        checkCall(call.kind, call.name);
        refusal = limit({ kind: call.kind, name: call.name, principal: call.context.principal });
      } catch (error) {
        return Promise.reject(error);
      }
      if (refusal === undefined) return next(call);
      const seconds = refusal.retryAfterSeconds;
      const label = itemLabel(call.kind, call.name, call.context.mask);
      const message = `Rate limit exceeded: ${label}, retry in ${seconds} s`;
      return {
        status: "rate_limited",
        error: new RpcError(ErrorCode.RateLimited, message, { retry_after_seconds: seconds }),
      };
    },
  };
}
