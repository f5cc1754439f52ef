/**
 * `composePipeline()` orders guardrails by stage, whatever order they are
 * given in: access runs before the rate limit, so a refused call spends no
 * token.
 */

import assert from "node:assert/strict";
import { accessPolicy } from "../../src/guardrails/access/access_policy.ts";
import type { GuardedCall } from "../../src/call/context.ts";
import { composePipeline } from "../../src/call/compose.ts";
import type { Guardrail } from "../../src/call/guardrail.ts";
import { rateLimit } from "../../src/guardrails/rate_limit/rate_limit.ts";
import { guardedCall, recorder } from "../_helpers/guarded_calls.ts";

Deno.test("A call the access policy refuses spends no rate-limit token", async () => {
  const guardrails: Guardrail[] = [
    // Given out of order on purpose: the pipeline puts access first.
    rateLimit({ rules: [{ scope: "global", capacity: 1, refillPerSecond: 0.001 }] }, {
      now: () => 0,
    }),
    accessPolicy({ tools: { deny: ["cancel_*"] } }),
  ];
  const { next, seen } = recorder();
  const composed = composePipeline(guardrails);
  const pipeline = (call: GuardedCall) => composed(call, next);
  for (let index = 0; index < 5; index++) {
    assert.equal((await pipeline(guardedCall("tool", "cancel_order"))).status, "denied");
  }
  assert.equal((await pipeline(guardedCall("tool", "get_order"))).status, "ok");
  assert.equal((await pipeline(guardedCall("tool", "get_order"))).status, "rate_limited");
  assert.equal(seen.length, 1);
});
