/**
 * `takeTokens()`, the token bucket every rate limit charges: refill, cap,
 * charge and refusal by table, no float drift, and its range checks.
 */

import assert from "node:assert/strict";
import { type BucketLimit, takeTokens, type TokenBucket } from "../../src/store/token_bucket.ts";

Deno.test("takeTokens() refills, caps, charges and refuses by the table", () => {
  const ten: BucketLimit = { capacity: 10, refillPerSecond: 1 };
  type Row = [
    what: string,
    bucket: TokenBucket | undefined,
    limit: BucketLimit,
    cost: number,
    now: number,
    expected: { allowed: boolean; tokens: number; updatedAt: number; retryAfterSeconds?: number },
  ];
  const rows: Row[] = [
    ["starts full", undefined, ten, 1, 1000, { allowed: true, tokens: 9, updatedAt: 1000 }],
    ["takes the last token", { tokens: 1, updatedAt: 0 }, ten, 1, 0, {
      allowed: true,
      tokens: 0,
      updatedAt: 0,
    }],
    ["refuses when empty", { tokens: 0, updatedAt: 0 }, ten, 1, 0, {
      allowed: false,
      tokens: 0,
      updatedAt: 0,
      retryAfterSeconds: 1,
    }],
    [
      "refills over time",
      { tokens: 0, updatedAt: 0 },
      { capacity: 10, refillPerSecond: 2 },
      1,
      1500,
      {
        allowed: true,
        tokens: 2,
        updatedAt: 1500,
      },
    ],
    ["caps the refill", { tokens: 5, updatedAt: 0 }, ten, 1, 60_000, {
      allowed: true,
      tokens: 9,
      updatedAt: 60_000,
    }],
    ["refills nothing when the clock goes back", { tokens: 2, updatedAt: 5000 }, ten, 1, 1000, {
      allowed: true,
      tokens: 1,
      updatedAt: 5000,
    }],
    ["takes a cost above 1", { tokens: 3, updatedAt: 0 }, ten, 3, 0, {
      allowed: true,
      tokens: 0,
      updatedAt: 0,
    }],
    [
      "refuses a cost above what is left, consuming nothing",
      { tokens: 2.5, updatedAt: 0 },
      ten,
      3,
      0,
      {
        allowed: false,
        tokens: 2.5,
        updatedAt: 0,
        retryAfterSeconds: 1,
      },
    ],
    [
      "rounds the wait up",
      { tokens: 0.5, updatedAt: 0 },
      { capacity: 10, refillPerSecond: 2 },
      3,
      0,
      {
        allowed: false,
        tokens: 0.5,
        updatedAt: 0,
        retryAfterSeconds: 2,
      },
    ],
    [
      "keeps a whole wait whole",
      { tokens: 0, updatedAt: 0 },
      { capacity: 1, refillPerSecond: 0.5 },
      1,
      0,
      {
        allowed: false,
        tokens: 0,
        updatedAt: 0,
        retryAfterSeconds: 2,
      },
    ],
    [
      "waits at least a second",
      { tokens: 0, updatedAt: 0 },
      { capacity: 5, refillPerSecond: 1000 },
      1,
      0,
      {
        allowed: false,
        tokens: 0,
        updatedAt: 0,
        retryAfterSeconds: 1,
      },
    ],
    [
      "keeps a huge wait finite",
      { tokens: 0, updatedAt: 0 },
      { capacity: 1, refillPerSecond: 1e-300 },
      1,
      0,
      {
        allowed: false,
        tokens: 0,
        updatedAt: 0,
        retryAfterSeconds: Number.MAX_SAFE_INTEGER,
      },
    ],
    ["trims a bucket above a lowered capacity", { tokens: 50, updatedAt: 0 }, ten, 1, 0, {
      allowed: true,
      tokens: 9,
      updatedAt: 0,
    }],
  ];
  for (const [what, bucket, limit, cost, now, expected] of rows) {
    const result = takeTokens(bucket, limit, cost, now);
    const actual = {
      allowed: result.allowed,
      tokens: result.bucket.tokens,
      updatedAt: result.bucket.updatedAt,
      ...(result.allowed ? {} : { retryAfterSeconds: result.retryAfterSeconds }),
    };
    assert.deepEqual(actual, expected, what);
  }
});

Deno.test("takeTokens() does not let float drift refuse a paid-up call", () => {
  let bucket: TokenBucket | undefined;
  for (let take = 1; take <= 10; take++) {
    const result = takeTokens(bucket, { capacity: 10, refillPerSecond: 1 }, 1, 0);
    assert.ok(result.allowed, `take ${take} of 10`);
    bucket = result.bucket;
  }
  assert.equal(takeTokens(bucket, { capacity: 10, refillPerSecond: 1 }, 1, 0).allowed, false);

  bucket = undefined;
  for (let take = 1; take <= 10; take++) {
    const result = takeTokens(bucket, { capacity: 1, refillPerSecond: 1 }, 0.1, 0);
    assert.ok(result.allowed, `take ${take} of 0.1`);
    bucket = result.bucket;
  }
  assert.equal(takeTokens(bucket, { capacity: 1, refillPerSecond: 1 }, 0.1, 0).allowed, false);

  // Ten refills of 0.1 sum to 0.9999999999999999 in floating point.
  const slow: BucketLimit = { capacity: 1, refillPerSecond: 0.1 };
  bucket = { tokens: 0, updatedAt: 0 };
  for (let second = 1; second <= 9; second++) {
    const result = takeTokens(bucket, slow, 1, second * 1000);
    assert.ok(!result.allowed, `second ${second}`);
    assert.equal(result.retryAfterSeconds, 10 - second);
    bucket = result.bucket;
  }
  assert.ok(takeTokens(bucket, slow, 1, 10_000).allowed);
});

Deno.test("takeTokens() rejects numbers out of range", () => {
  const ten: BucketLimit = { capacity: 10, refillPerSecond: 1 };
  const full: TokenBucket = { tokens: 10, updatedAt: 0 };
  const cases: [() => unknown, RangeError][] = [
    [
      () => takeTokens(full, ten, 0, 0),
      new RangeError("Cannot take tokens: expected a finite number above 0 at cost, got 0"),
    ],
    [
      () => takeTokens(full, ten, 11, 0),
      new RangeError("Cannot take tokens: cost 11 exceeds the capacity 10"),
    ],
    [
      () => takeTokens(full, ten, 1, NaN),
      new RangeError("Cannot take tokens: now must be finite, got NaN"),
    ],
    [
      () => takeTokens(full, { capacity: 0, refillPerSecond: 1 }, 1, 0),
      new RangeError("Cannot take tokens: expected a finite number above 0 at capacity, got 0"),
    ],
    [
      () => takeTokens(full, { capacity: 1, refillPerSecond: Infinity }, 1, 0),
      new RangeError(
        "Cannot take tokens: expected a finite number above 0 at refillPerSecond, got Infinity",
      ),
    ],
    [
      () => takeTokens({ tokens: NaN, updatedAt: 0 }, ten, 1, 0),
      new RangeError("Cannot take tokens: the bucket holds a number that is not finite"),
    ],
  ];
  for (const [take, error] of cases) assert.throws(take, error);
});
