/**
 * `MemoryBucketStore`: a bounded LRU map of token buckets, checked by hand
 * and against a plain LRU list over random sequences.
 */

import assert from "node:assert/strict";
import { MemoryBucketStore } from "../../src/store/bucket_store.ts";
import type { TokenBucket } from "../../src/store/token_bucket.ts";

Deno.test("MemoryBucketStore drops the least recently used bucket beyond maxKeys", () => {
  const store = new MemoryBucketStore({ maxKeys: 2 });
  const bucket: TokenBucket = { tokens: 1, updatedAt: 0 };
  store.set("a", bucket);
  store.set("b", bucket);
  assert.equal(store.get("a"), bucket);
  store.set("c", bucket);
  assert.equal(store.size, 2);
  assert.equal(store.get("b"), undefined);
  assert.equal(store.get("a"), bucket);
  store.set("c", { tokens: 0, updatedAt: 1 });
  store.set("d", bucket);
  assert.equal(store.get("a"), undefined);
  assert.deepEqual(store.get("c"), { tokens: 0, updatedAt: 1 });

  const large = new MemoryBucketStore();
  for (let index = 0; index <= 10_000; index++) large.set(`${index}`, bucket);
  assert.equal(large.size, 10_000);
  assert.equal(large.get("0"), undefined);
  assert.equal(large.get("1"), bucket);

  for (const maxKeys of [0, -1, 1.5, NaN, Infinity]) {
    assert.throws(
      () => new MemoryBucketStore({ maxKeys }),
      new RangeError(`Invalid bucket store: maxKeys must be an integer above 0, got ${maxKeys}`),
    );
  }
});

/** A small deterministic generator, so a failing sequence can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

Deno.test("MemoryBucketStore keeps the same buckets as a plain LRU list would", () => {
  for (const maxKeys of [1, 2, 3, 8]) {
    const store = new MemoryBucketStore({ maxKeys });
    const model: [key: string, bucket: TokenBucket][] = []; // least recently used first
    const next = random(maxKeys);
    for (let step = 0; step < 5000; step++) {
      const key = `k${Math.floor(next() * (maxKeys + 3))}`;
      const at = model.findIndex(([known]) => known === key);
      if (next() < 0.5) {
        const expected = at === -1 ? undefined : model.splice(at, 1)[0];
        if (expected !== undefined) model.push(expected);
        assert.equal(store.get(key), expected?.[1], `step ${step}: get ${key}`);
      } else {
        const bucket = { tokens: step, updatedAt: step };
        if (at !== -1) model.splice(at, 1);
        model.push([key, bucket]);
        if (model.length > maxKeys) model.shift();
        store.set(key, bucket);
      }
      assert.equal(store.size, model.length, `step ${step}`);
    }
    for (const [key, bucket] of [...model]) assert.equal(store.get(key), bucket);
  }
});
