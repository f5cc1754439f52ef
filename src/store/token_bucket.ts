/**
 * The token bucket itself: a pure function from a bucket, its limit, a cost
 * and the time to a decision and the bucket to keep. No clock and no store
 * are read here; {@linkcode createRateLimiter} supplies both.
 *
 * @module
 */

/** A token bucket's state: tokens left, and when they were counted. */
export interface TokenBucket {
  /** Tokens available at `updatedAt`, between 0 and the capacity. */
  readonly tokens: number;
  /** When `tokens` was computed, in milliseconds since the epoch. */
  readonly updatedAt: number;
}

/** The size of a bucket and how fast it fills. */
export interface BucketLimit {
  /** The most tokens the bucket holds, and what a new bucket starts with. */
  readonly capacity: number;
  /** Tokens added per second, up to `capacity`. */
  readonly refillPerSecond: number;
}

/** The outcome of {@linkcode takeTokens}: the bucket to keep, and when to retry if refused. */
export type TakeResult =
  | { allowed: true; bucket: TokenBucket }
  | { allowed: false; bucket: TokenBucket; retryAfterSeconds: number };

// Float sums such as 0.1 × 10 land a hair below the whole number they stand
// for; a shortfall this small (relative to capacity) is treated as none.
const EPSILON = 1e-9;
const WHERE = "Cannot take tokens";

/**
 * Refills a bucket for the time passed, then takes `cost` tokens if they are
 * there.
 *
 * A missing bucket starts full at `now`. Refill is the elapsed seconds times
 * `refillPerSecond`, capped at `capacity`; a clock that went backwards
 * refills nothing and `updatedAt` never moves back, so the same interval is
 * never counted twice. A refused take consumes nothing: the bucket returned
 * is the refilled one. `retryAfterSeconds` is the wait until `cost` tokens
 * are available, rounded up to a whole second, and at least 1.
 *
 * @param bucket The bucket's state, or `undefined` for a new bucket.
 * @param limit The bucket's capacity and refill rate.
 * @param cost Tokens to take, above 0 and at most `capacity`.
 * @param now The current time in milliseconds.
 * @returns Whether the tokens were taken, and the bucket to store.
 * @throws {RangeError} If a number is not finite or out of range.
 *
 * @example Usage
 * ```ts
 * import { takeTokens } from "./token_bucket.ts";
 * const limit = { capacity: 1, refillPerSecond: 0.5 };
 * const first = takeTokens(undefined, limit, 1, 0);
 * const second = takeTokens(first.bucket, limit, 1, 500);
 * console.assert(first.allowed && !second.allowed);
 * console.assert(!second.allowed && second.retryAfterSeconds === 2);
 * ```
 */
export function takeTokens(
  bucket: TokenBucket | undefined,
  limit: BucketLimit,
  cost: number,
  now: number,
): TakeResult {
  checkPositive(limit.capacity, "capacity");
  checkPositive(limit.refillPerSecond, "refillPerSecond");
  checkPositive(cost, "cost");
  if (cost > limit.capacity) {
    throw new RangeError(`${WHERE}: cost ${cost} exceeds the capacity ${limit.capacity}`);
  }
  if (!Number.isFinite(now)) throw new RangeError(`${WHERE}: now must be finite, got ${now}`);
  let tokens = limit.capacity;
  let updatedAt = now;
  if (bucket !== undefined) {
    if (!Number.isFinite(bucket.tokens) || !Number.isFinite(bucket.updatedAt)) {
      throw new RangeError(`${WHERE}: the bucket holds a number that is not finite`);
    }
    const elapsedSeconds = Math.max(0, now - bucket.updatedAt) / 1000;
    const refilled = Math.max(0, bucket.tokens) + elapsedSeconds * limit.refillPerSecond;
    tokens = Math.min(limit.capacity, refilled);
    updatedAt = Math.max(bucket.updatedAt, now);
  }
  if (tokens + EPSILON * Math.max(1, limit.capacity) >= cost) {
    return { allowed: true, bucket: { tokens: Math.max(0, tokens - cost), updatedAt } };
  }
  const wait = Math.ceil((cost - tokens) / limit.refillPerSecond - EPSILON);
  const retryAfterSeconds = Math.min(Math.max(1, wait), Number.MAX_SAFE_INTEGER);
  return { allowed: false, bucket: { tokens, updatedAt }, retryAfterSeconds };
}

function checkPositive(value: number, path: string): void {
  if (!Number.isFinite(value) || value <= 0) {
    throw new RangeError(`${WHERE}: expected a finite number above 0 at ${path}, got ${value}`);
  }
}
