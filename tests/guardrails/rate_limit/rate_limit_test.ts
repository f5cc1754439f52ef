/**
 * The rate limiter's decisions: buckets per scope (global, tool, principal,
 * tool+principal), rule matching, refills on a fake clock, per-name costs,
 * all-or-nothing charging, key construction, exactness under concurrency and
 * eviction, configuration errors, and a failing store.
 */

import assert from "node:assert/strict";
import { type BucketStore, MemoryBucketStore } from "../../../src/store/bucket_store.ts";
import {
  bucketKeys,
  compileRateLimits,
  decideRateLimit,
  type RateLimitCall,
  type RateLimiterOptions,
  type RateLimits,
} from "../../../src/guardrails/rate_limit/limits.ts";
import { createRateLimiter, rateLimitWith } from "../../../src/guardrails/rate_limit/rate_limit.ts";
import { testContext } from "../../_helpers/helpers.ts";

/** Calls compileRateLimits with a value the type checker would reject, as a JSON config could. */
function compileUnchecked(options: unknown): RateLimits {
  return Reflect.apply(compileRateLimits, undefined, [options]);
}

function call(name: string, principal?: string): RateLimitCall {
  return { kind: "tool", name, principal };
}

/** A limiter on a fake clock, with its store for inspection. */
function limiter(options: RateLimiterOptions, maxKeys?: number) {
  const clock = { now: 0 };
  const store = new MemoryBucketStore(maxKeys === undefined ? {} : { maxKeys });
  const rateLimit = createRateLimiter(options, { store, now: () => clock.now });
  return { clock, store, allowed: (item: RateLimitCall) => rateLimit(item).allowed, rateLimit };
}

Deno.test("createRateLimiter() shares a global bucket across tools and principals", () => {
  const { allowed } = limiter({ rules: [{ scope: "global", capacity: 2, refillPerSecond: 1 }] });
  assert.equal(allowed(call("a", "alice")), true);
  assert.equal(allowed(call("b", "bob")), true);
  assert.equal(allowed(call("c")), false);
});

Deno.test("createRateLimiter() keeps a bucket per item under the tool scope", () => {
  const { allowed } = limiter({
    rules: [{ scope: "tool", capacity: 1, refillPerSecond: 1, kinds: ["tool", "prompt"] }],
  });
  assert.equal(allowed(call("a", "alice")), true);
  assert.equal(allowed(call("b", "alice")), true);
  assert.equal(allowed(call("a", "bob")), false);
  assert.equal(allowed({ kind: "prompt", name: "a", principal: "bob" }), true);
});

Deno.test("createRateLimiter() keeps a bucket per principal, anonymous callers sharing one", () => {
  const { allowed } = limiter({ rules: [{ scope: "principal", capacity: 1, refillPerSecond: 1 }] });
  assert.equal(allowed(call("a", "alice")), true);
  assert.equal(allowed(call("a", "bob")), true);
  assert.equal(allowed(call("b", "alice")), false);
  assert.equal(allowed(call("a")), true);
  assert.equal(allowed(call("b")), false);
  assert.equal(allowed(call("a", "null")), true);
});

Deno.test("createRateLimiter() keeps a bucket per principal and item under tool+principal", () => {
  const { allowed } = limiter({
    rules: [{ scope: "tool+principal", capacity: 1, refillPerSecond: 1 }],
  });
  assert.equal(allowed(call("a", "alice")), true);
  assert.equal(allowed(call("a", "bob")), true);
  assert.equal(allowed(call("b", "alice")), true);
  assert.equal(allowed(call("a", "alice")), false);
  assert.equal(allowed(call("b", "bob")), true);
});

Deno.test("createRateLimiter() applies a rule only to the kinds and names it matches", () => {
  const { allowed } = limiter({
    rules: [{ scope: "global", capacity: 1, refillPerSecond: 1, match: ["orders_*"] }],
  });
  assert.equal(allowed(call("orders_list")), true);
  assert.equal(allowed(call("orders_get")), false);
  assert.equal(allowed(call("ping")), true);
  assert.equal(allowed(call("ping")), true);
  assert.equal(allowed({ kind: "resource", name: "orders_list", principal: undefined }), true);
  assert.equal(allowed({ kind: "prompt", name: "orders_list", principal: undefined }), true);
});

Deno.test("createRateLimiter() refills buckets as the clock moves", () => {
  const { allowed, clock, rateLimit } = limiter({
    rules: [{ scope: "tool", capacity: 2, refillPerSecond: 0.5 }],
  });
  assert.equal(allowed(call("a")), true);
  assert.equal(allowed(call("a")), true);
  assert.deepEqual(rateLimit(call("a")), { allowed: false, retryAfterSeconds: 2, refusedBy: [0] });
  clock.now = 1999;
  assert.equal(allowed(call("a")), false);
  clock.now = 2000;
  assert.equal(allowed(call("a")), true);
  assert.equal(allowed(call("a")), false);
});

Deno.test("createRateLimiter() charges per-name costs, by exact name only", () => {
  const { allowed } = limiter({
    rules: [{
      scope: "global",
      capacity: 10,
      refillPerSecond: 1,
      cost: { export_orders: 5, "*": 10, toString: 10 },
    }],
  });
  assert.equal(allowed(call("export_orders")), true);
  assert.equal(allowed(call("constructor")), true); // costs 1, not a prototype member
  assert.equal(allowed(call("export_orders")), false); // 4 left
  for (let left = 4; left > 0; left--) assert.equal(allowed(call("x")), true);
  assert.equal(allowed(call("x")), false);
});

Deno.test("decideRateLimit() charges no bucket unless every rule passes", () => {
  const limits = compileRateLimits({
    rules: [
      { scope: "global", capacity: 10, refillPerSecond: 1 },
      { scope: "tool", capacity: 1, refillPerSecond: 0.25 },
    ],
  });
  const [globalKey, toolKey] = bucketKeys(limits, call("a"));
  assert.ok(globalKey !== undefined && toolKey !== undefined);
  const first = decideRateLimit(limits, call("a"), new Map(), 0);
  assert.ok(first.allowed);
  assert.deepEqual(first.updates.get(globalKey), { tokens: 9, updatedAt: 0 });
  assert.deepEqual(first.updates.get(toolKey), { tokens: 0, updatedAt: 0 });
  const second = decideRateLimit(limits, call("a"), first.updates, 0);
  assert.deepEqual(second, {
    allowed: false,
    retryAfterSeconds: 4,
    refusedBy: [1],
    updates: new Map(),
  });
  assert.deepEqual(decideRateLimit(limits, call("b"), first.updates, 0).updates.get(globalKey), {
    tokens: 8,
    updatedAt: 0,
  });
  const none = decideRateLimit(
    limits,
    { kind: "prompt", name: "a", principal: undefined },
    new Map(),
    0,
  );
  assert.deepEqual(none, { allowed: true, updates: new Map() });
});

Deno.test("decideRateLimit() answers the longest wait among refusing rules", () => {
  const limits = compileRateLimits({
    rules: [
      { scope: "global", capacity: 1, refillPerSecond: 1 },
      { scope: "principal", capacity: 1, refillPerSecond: 0.25 },
      { scope: "tool", capacity: 1, refillPerSecond: 0.5 },
    ],
  });
  const empty = new Map(
    bucketKeys(limits, call("a", "alice")).map((key) => [key, { tokens: 0, updatedAt: 0 }]),
  );
  const decision = decideRateLimit(limits, call("a", "alice"), empty, 0);
  assert.ok(!decision.allowed);
  assert.equal(decision.retryAfterSeconds, 4);
  assert.deepEqual(decision.refusedBy, [0, 1, 2]);
});

Deno.test("bucketKeys() cannot be made to collide by crafted names", () => {
  const limits = compileRateLimits({
    rules: [{ scope: "tool+principal", capacity: 1, refillPerSecond: 1 }],
  });
  const pairs: [name: string, principal: string | undefined][] = [
    ["a|b", "c"],
    ["a", "b|c"],
    ['a","b', "c"],
    ["a", 'b","c'],
    ["a", "null"],
    ["a", undefined],
    ["a", ""],
    ["a\u0000", ""],
    ["a", "\u0000"],
  ];
  const keys = pairs.map(([name, principal]) => bucketKeys(limits, call(name, principal))[0]);
  assert.equal(new Set(keys).size, pairs.length);
  assert.equal(
    bucketKeys(limits, { kind: "prompt", name: "a", principal: "b" })[0] === keys[1],
    false,
  );

  const { allowed } = limiter({
    rules: [
      { scope: "principal", capacity: 1, refillPerSecond: 1 },
      { scope: "tool+principal", capacity: 5, refillPerSecond: 1 },
    ],
  });
  assert.equal(allowed(call("a", "b|c")), true);
  assert.equal(allowed(call("a|b", "c")), true);
  assert.equal(allowed(call("x", "b|c")), false);
});

Deno.test("createRateLimiter() admits exactly the capacity from 100 concurrent callers", async () => {
  const { rateLimit } = limiter({ rules: [{ scope: "tool", capacity: 10, refillPerSecond: 1 }] });
  const outcomes = await Promise.all(
    Array.from({ length: 100 }, async (_, index) => {
      for (let turn = 0; turn < index % 4; turn++) await Promise.resolve();
      await new Promise((resolve) => setTimeout(resolve, index % 3));
      return rateLimit(call("get_order", `caller-${index % 7}`)).allowed;
    }),
  );
  assert.equal(outcomes.filter((allowed) => allowed).length, 10);
});

Deno.test("createRateLimiter() forgets evicted buckets, which come back full", () => {
  const { allowed, store } = limiter(
    { rules: [{ scope: "principal", capacity: 1, refillPerSecond: 1 }] },
    2,
  );
  assert.equal(allowed(call("a", "alice")), true);
  assert.equal(allowed(call("a", "alice")), false);
  assert.equal(allowed(call("a", "bob")), true);
  assert.equal(allowed(call("a", "carol")), true);
  assert.equal(store.size, 2);
  assert.equal(allowed(call("a", "alice")), true);
});

Deno.test("decideRateLimit() rejects forged limits and malformed calls", () => {
  const limits = compileRateLimits({ rules: [] });
  assert.deepEqual(decideRateLimit(limits, call("a"), new Map(), 0), {
    allowed: true,
    updates: new Map(),
  });
  assert.throws(
    () => decideRateLimit({ type: "warden.rate-limits" }, call("a"), new Map(), 0),
    new TypeError("Invalid rate limits: expected limits from compileRateLimits()"),
  );
  const malformed: RateLimitCall[] = [
    { kind: JSON.parse('"tools"'), name: "a", principal: undefined },
    { kind: "tool", name: JSON.parse("1"), principal: undefined },
  ];
  for (const item of malformed) {
    assert.throws(
      () => bucketKeys(limits, item),
      new TypeError("Invalid rate limit call: expected a known kind and a string name"),
    );
  }
});

Deno.test("compileRateLimits() reports configuration errors with their path", () => {
  const rule = { scope: "tool", capacity: 5, refillPerSecond: 1 };
  const cases: [options: unknown, error: Error][] = [
    [null, new TypeError("Invalid rate limits: the top level must be object, got null")],
    [
      {},
      new TypeError("Invalid rate limits: the top level must have required property 'rules'"),
    ],
    [
      { rules: [], limits: [] },
      new TypeError(
        'Invalid rate limits: unknown key "limits" at the top level, expected one of rules',
      ),
    ],
    [
      { rules: ["x"] },
      new TypeError("Invalid rate limits: rules[0] must be object, got string"),
    ],
    [
      { rules: [rule, { ...rule, burst: 3 }] },
      new TypeError(
        'Invalid rate limits: unknown key "burst" at rules[1], expected one of scope, capacity, refillPerSecond, match, kinds, cost',
      ),
    ],
    [
      { rules: [{ ...rule, scope: "tools" }] },
      new RangeError(
        'Invalid rate limits: rules[0].scope must be one of "global", "tool", "principal", "tool+principal", got "tools"',
      ),
    ],
    [
      { rules: [{ ...rule, scope: undefined }] },
      new TypeError("Invalid rate limits: rules[0] must have required property 'scope'"),
    ],
    [
      { rules: [{ ...rule, capacity: "5" }] },
      new TypeError("Invalid rate limits: rules[0].capacity must be number, got string"),
    ],
    [
      { rules: [{ ...rule, capacity: 0 }] },
      new RangeError("Invalid rate limits: rules[0].capacity must be > 0, got 0"),
    ],
    [
      { rules: [{ ...rule, refillPerSecond: -1 }] },
      new RangeError("Invalid rate limits: rules[0].refillPerSecond must be > 0, got -1"),
    ],
    [
      { rules: [{ ...rule, refillPerSecond: NaN }] },
      new TypeError("Invalid rate limits: rules[0].refillPerSecond must be number, got NaN"),
    ],
    [
      { rules: [{ ...rule, match: "orders_*" }] },
      new TypeError("Invalid rate limits: rules[0].match must be array, got string"),
    ],
    [
      { rules: [{ ...rule, match: [] }] },
      new RangeError("Invalid rate limits: rules[0].match must NOT have fewer than 1 item"),
    ],
    [
      { rules: [{ ...rule, match: ["ok", ""] }] },
      new RangeError("Invalid rate limits: glob is empty at rules[0].match[1]"),
    ],
    [
      { rules: [{ ...rule, kinds: ["tool", "tools"] }] },
      new RangeError(
        'Invalid rate limits: rules[0].kinds[1] must be one of "tool", "resource", "prompt", got "tools"',
      ),
    ],
    [
      { rules: [{ ...rule, cost: [] }] },
      new TypeError("Invalid rate limits: rules[0].cost must be object, got array"),
    ],
    [
      { rules: [{ ...rule, cost: { export: 0 } }] },
      new RangeError("Invalid rate limits: rules[0].cost.export must be > 0, got 0"),
    ],
    [
      { rules: [{ ...rule, cost: { export: 6 } }] },
      new RangeError(
        'Invalid rate limits: cost 6 exceeds the capacity 5 at rules[0].cost["export"]',
      ),
    ],
  ];
  for (const [options, error] of cases) {
    assert.throws(() => compileUnchecked(options), error);
  }
  assert.ok(
    Object.isFrozen(
      compileRateLimits({ rules: [{ scope: "global", capacity: 1, refillPerSecond: 1 }] }),
    ),
  );
});

Deno.test("bucketKeys() writes each scope's key as the JSON text of its tuple", () => {
  const limits = compileRateLimits({
    rules: [
      { scope: "global", capacity: 1, refillPerSecond: 1, kinds: ["tool", "prompt"] },
      { scope: "tool", capacity: 1, refillPerSecond: 1, kinds: ["tool", "prompt"] },
      { scope: "principal", capacity: 1, refillPerSecond: 1, kinds: ["tool", "prompt"] },
      { scope: "tool+principal", capacity: 1, refillPerSecond: 1, kinds: ["tool", "prompt"] },
    ],
  });
  const table: [call: RateLimitCall, keys: string[]][] = [
    [call("a", "alice"), [
      '[0,"global"]',
      '[1,"tool","tool","a"]',
      '[2,"principal","alice"]',
      '[3,"tool+principal","tool","a","alice"]',
    ]],
    [{ kind: "prompt", name: "a", principal: undefined }, [
      '[0,"global"]',
      '[1,"tool","prompt","a"]',
      '[2,"principal",null]',
      '[3,"tool+principal","prompt","a",null]',
    ]],
    [call("", "null"), [
      '[0,"global"]',
      '[1,"tool","tool",""]',
      '[2,"principal","null"]',
      '[3,"tool+principal","tool","","null"]',
    ]],
  ];
  // Twice, the second time from the cache; then again after 5000 other names have
  // filled it and made it start over.
  for (let round = 0; round < 3; round++) {
    for (const [item, keys] of table) assert.deepEqual(bucketKeys(limits, item), keys);
    if (round === 1) {
      for (let i = 0; i < 5000; i++) bucketKeys(limits, call(`n${i}`, `p${i}`));
    }
  }
});

Deno.test("createRateLimiter() stays exact while its key cache starts over", () => {
  const { allowed, clock } = limiter({
    rules: [{ scope: "tool+principal", capacity: 1, refillPerSecond: 0.001 }],
  }, 20_000);
  assert.equal(allowed(call("a", "alice")), true);
  for (let i = 0; i < 9000; i++) assert.equal(allowed(call(`n${i % 3000}`, `p${i}`)), true);
  assert.equal(allowed(call("a", "alice")), false);
  clock.now = 1_000_000;
  assert.equal(allowed(call("a", "alice")), true);
});

Deno.test("rateLimit() rejects rather than throws when its store fails", async () => {
  const failing: BucketStore = {
    get: () => {
      throw new Error("store down");
    },
    set: () => {},
  };
  const guardrail = rateLimitWith(
    { rules: [{ scope: "global", capacity: 1, refillPerSecond: 1 }] },
    { store: failing },
  );
  let reached = false;
  const result = guardrail.run(
    {
      kind: "tool",
      method: "tools/call",
      name: "a",
      arguments: {},
      context: testContext(),
    },
    () => {
      reached = true;
      return Promise.resolve({ status: "ok", result: {} });
    },
  );
  assert.ok(result instanceof Promise);
  await assert.rejects(result, new Error("store down"));
  assert.equal(reached, false);
});
