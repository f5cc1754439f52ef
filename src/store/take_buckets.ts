/**
 * All-or-nothing takes over several token buckets, for backends that read
 * and write buckets one by one (memory, Deno KV). The Redis backend runs the
 * same arithmetic as a server-side script.
 *
 * @module
 */

import { takeTokens, type TokenBucket } from "./token_bucket.ts";
import type { BucketTake, BucketTakeResult } from "./shared_store.ts";

/** The result of {@linkcode takeBuckets}: the decision, and the buckets to write if allowed. */
export interface TakeBucketsOutcome {
  /** The decision. */
  readonly result: BucketTakeResult;
  /** The buckets to store, by index in the request; empty when refused. */
  readonly writes: readonly TokenBucket[];
}

const ALLOWED: BucketTakeResult = Object.freeze({ allowed: true });

/**
 * Decides a take over the current buckets (`undefined` is a full bucket).
 *
 * @example
 * ```ts ignore
 * const { result } = takeBuckets([{ key: "a", capacity: 1, refillPerSecond: 1, cost: 1 }], [undefined], 0);
 * ```
 */
export function takeBuckets(
  takes: readonly BucketTake[],
  current: readonly (TokenBucket | undefined)[],
  now: number,
): TakeBucketsOutcome {
  const writes: TokenBucket[] = [];
  const refused: number[] = [];
  let retryAfterSeconds = 0;
  takes.forEach((take, index) => {
    const outcome = takeTokens(current[index], take, take.cost, now);
    if (outcome.allowed) writes.push(outcome.bucket);
    else {
      refused.push(index);
      retryAfterSeconds = Math.max(retryAfterSeconds, outcome.retryAfterSeconds);
    }
  });
  if (refused.length > 0) {
    return { result: { allowed: false, retryAfterSeconds, refused }, writes: [] };
  }
  return { result: ALLOWED, writes };
}

/** How long a bucket is worth keeping: the time it takes to fill up again, plus a second. */
export function bucketTtlMs(take: BucketTake): number {
  return Math.ceil((take.capacity / take.refillPerSecond) * 1000) + 1000;
}
