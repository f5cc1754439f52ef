/**
 * `rateLimit()` as a guardrail, driven by hand-built calls on a fake clock:
 * its name and stage, refusals with a whole wait, names in its messages,
 * buckets per principal, exactness under concurrency, and its configuration
 * checks.
 */

import assert from "node:assert/strict";
import { MemoryBucketStore } from "../../../src/store/bucket_store.ts";
import type { CallKind } from "../../../src/call/context.ts";
import type { CallNext, CallOutcome } from "../../../src/call/outcome.ts";
import { rateLimit, rateLimitWith } from "../../../src/guardrails/rate_limit/rate_limit.ts";
import type { RateLimiterOptions } from "../../../src/guardrails/rate_limit/limits.ts";
import { ErrorCode, RpcError } from "../../../src/jsonrpc/errors.ts";
import { errorOf, guardedCall, recorder } from "../../_helpers/guarded_calls.ts";

/** A rate-limit guardrail on a fake clock. */
function limited(options: RateLimiterOptions) {
  const clock = { now: 0 };
  const guardrail = rateLimitWith(options, {
    store: new MemoryBucketStore(),
    now: () => clock.now,
  });
  return { clock, guardrail };
}

Deno.test("rateLimit() names itself, runs at the rate_limit stage and hides nothing", () => {
  const guardrail = rateLimit({ rules: [] });
  assert.equal(guardrail.name, "rate-limit");
  assert.equal(guardrail.stage, "rate_limit");
  assert.equal(guardrail.visible, undefined);
});

Deno.test("rateLimit() refuses the sixth call of five with -32002 and a whole wait", async () => {
  const { clock, guardrail } = limited({
    rules: [{ scope: "tool", capacity: 5, refillPerSecond: 0.25 }],
  });
  const { next, seen, outcome: ok } = recorder();
  for (let index = 1; index <= 5; index++) {
    assert.equal(await guardrail.run(guardedCall("tool", "get_order"), next), ok, `call ${index}`);
  }
  assert.equal(seen.length, 5);

  clock.now = 1500;
  const outcome = await guardrail.run(guardedCall("tool", "get_order"), next);
  assert.equal(seen.length, 5, "the sixth call reached next");
  assert.equal(outcome.status, "rate_limited");
  const error = errorOf(outcome);
  assert.equal(error.code, ErrorCode.RateLimited);
  assert.equal(error.code, -32002);
  assert.equal(error.message, 'Rate limit exceeded: tool "get_order", retry in 3 s');
  assert.deepEqual(error.data, { retry_after_seconds: 3 });

  clock.now = 3999;
  const early = errorOf(await guardrail.run(guardedCall("tool", "get_order"), next));
  assert.deepEqual(early.data, { retry_after_seconds: 1 });
  assert.equal(early.message, 'Rate limit exceeded: tool "get_order", retry in 1 s');
  clock.now = 4000;
  assert.equal(await guardrail.run(guardedCall("tool", "get_order"), next), ok);
  assert.equal(seen.length, 6);
});

Deno.test("rateLimit() always answers a whole retry_after_seconds of at least 1", async () => {
  const rates = [1000, 3, 1, 0.7, 0.01];
  for (const refillPerSecond of rates) {
    const { guardrail } = limited({ rules: [{ scope: "global", capacity: 1, refillPerSecond }] });
    await guardrail.run(guardedCall("tool", "a"), recorder().next);
    const error = errorOf(await guardrail.run(guardedCall("tool", "a"), recorder().next));
    assert.ok(error.data !== null && typeof error.data === "object");
    assert.deepEqual(Object.keys(error.data), ["retry_after_seconds"]);
    const seconds: unknown = Reflect.get(error.data, "retry_after_seconds");
    assert.ok(typeof seconds === "number" && Number.isInteger(seconds) && seconds >= 1);
    assert.equal(seconds, Math.max(1, Math.ceil(1 / refillPerSecond)), `${refillPerSecond}/s`);
    assert.ok(error.message.endsWith(`, retry in ${seconds} s`), error.message);
  }
});

Deno.test("rateLimit() names resources and prompts, escaped and shortened", async () => {
  const { guardrail } = limited({
    rules: [{ scope: "tool", capacity: 1, refillPerSecond: 1, kinds: ["resource", "prompt"] }],
  });
  const refuse = async (kind: CallKind, name: string) => {
    await guardrail.run(guardedCall(kind, name), recorder().next);
    return errorOf(await guardrail.run(guardedCall(kind, name), recorder().next)).message;
  };
  assert.equal(
    await refuse("resource", "orders://1"),
    'Rate limit exceeded: resource "orders://1", retry in 1 s',
  );
  assert.equal(
    await refuse("prompt", 'say "hi"\n'),
    'Rate limit exceeded: prompt "say \\"hi\\"\\n", retry in 1 s',
  );
  assert.equal(
    await refuse("prompt", "p".repeat(500)),
    `Rate limit exceeded: prompt "${"p".repeat(80)}…", retry in 1 s`,
  );
  const { next, seen } = recorder();
  await guardrail.run(guardedCall("tool", "unlimited"), next);
  await guardrail.run(guardedCall("tool", "unlimited"), next);
  assert.equal(seen.length, 2, "a rule for resources and prompts limited a tool");
});

Deno.test("rateLimit() charges no bucket for a refused call", async () => {
  const { clock, guardrail } = limited({
    rules: [
      { scope: "global", capacity: 10, refillPerSecond: 0.001 },
      { scope: "tool", capacity: 1, refillPerSecond: 1 },
    ],
  });
  const { next, seen } = recorder();
  assert.equal((await guardrail.run(guardedCall("tool", "hot"), next)).status, "ok");
  for (let index = 0; index < 20; index++) {
    assert.equal((await guardrail.run(guardedCall("tool", "hot"), next)).status, "rate_limited");
  }
  clock.now = 500;
  assert.equal((await guardrail.run(guardedCall("tool", "hot"), next)).status, "rate_limited");
  // Neither the tool bucket's refill nor the shared global bucket paid for those refusals.
  clock.now = 1000;
  assert.equal((await guardrail.run(guardedCall("tool", "hot"), next)).status, "ok");
  for (let index = 0; index < 8; index++) {
    const outcome = await guardrail.run(guardedCall("tool", `cold_${index}`), next);
    assert.equal(outcome.status, "ok", `cold_${index}`);
  }
  assert.equal((await guardrail.run(guardedCall("tool", "cold_9"), next)).status, "rate_limited");
  assert.equal(seen.length, 10);
});

Deno.test("rateLimit() keys buckets by the session's principal", async () => {
  const { guardrail } = limited({
    rules: [{ scope: "principal", capacity: 2, refillPerSecond: 1 }],
  });
  const status = async (principal: string | undefined) =>
    (await guardrail.run(guardedCall("tool", "get_order", principal), recorder().next)).status;
  assert.equal(await status("alice"), "ok");
  assert.equal(await status("alice"), "ok");
  assert.equal(await status("alice"), "rate_limited");
  assert.equal(await status("bob"), "ok");
  assert.equal(await status(undefined), "ok");
  assert.equal(await status(undefined), "ok");
  assert.equal(await status(undefined), "rate_limited");
});

Deno.test("rateLimit() passes next's outcome through unchanged", async () => {
  const { guardrail } = limited({ rules: [{ scope: "global", capacity: 5, refillPerSecond: 1 }] });
  const failed: CallOutcome = { status: "tool_error", result: { isError: true, content: [] } };
  const call = guardedCall("tool", "a");
  assert.equal(await guardrail.run(call, () => Promise.resolve(failed)), failed);
  const invalid: CallOutcome = {
    status: "invalid",
    error: new RpcError(ErrorCode.InvalidParams, "Invalid arguments"),
  };
  assert.equal(await guardrail.run(call, () => Promise.resolve(invalid)), invalid);
});

Deno.test("rateLimit() lets exactly 10 of 100 concurrent callers reach next", async () => {
  const { guardrail } = limited({ rules: [{ scope: "tool", capacity: 10, refillPerSecond: 1 }] });
  let reached = 0;
  let running = 0;
  let mostRunning = 0;
  const next: CallNext = async () => {
    reached++;
    running++;
    mostRunning = Math.max(mostRunning, running);
    await new Promise((resolve) => setTimeout(resolve, 5));
    running--;
    return { status: "ok", result: { content: [] } };
  };
  const outcomes = await Promise.all(
    Array.from({ length: 100 }, async (_, index) => {
      for (let turn = 0; turn < index % 4; turn++) await Promise.resolve();
      await new Promise((resolve) => setTimeout(resolve, index % 3));
      return guardrail.run(guardedCall("tool", "get_order", `caller-${index % 7}`), next);
    }),
  );
  assert.equal(reached, 10);
  assert.ok(mostRunning > 1, "the handlers never overlapped, so the test proves nothing");
  assert.equal(outcomes.filter((outcome) => outcome.status === "ok").length, 10);
  assert.equal(outcomes.filter((outcome) => outcome.status === "rate_limited").length, 90);
});

Deno.test("rateLimit() rejects bad configuration when it is built", () => {
  assert.throws(
    () => rateLimit({ rules: [{ scope: "tool", capacity: 0, refillPerSecond: 1 }] }),
    new RangeError("Invalid rate limits: rules[0].capacity must be > 0, got 0"),
  );
});
