/**
 * The rate limiter's cost per call on each shared store (issue 17): the
 * in-process store (the synchronous path), Deno KV in memory (the
 * check-and-set loop), and Redis (one EVALSHA round trip on loopback) when
 * WARDEN_TEST_REDIS_URL names one and the permissions allow it.
 *
 * Run: `WARDEN_TEST_REDIS_URL=redis://127.0.0.1:6379/0 deno bench -A tests/bench/store_bench.ts`
 *
 * @module
 */

import { rateLimit } from "../../src/guardrails/rate_limit/rate_limit.ts";
import type { CallOutcome } from "../../src/call/outcome.ts";
import type { GuardedCall } from "../../src/call/context.ts";
import type { Guardrail } from "../../src/call/guardrail.ts";
import { KvStore } from "../../src/store/kv_store.ts";
import { MemoryStore } from "../../src/store/memory_store.ts";
import { RedisStore } from "../../src/store/redis_store.ts";
import type { SharedStore } from "../../src/store/shared_store.ts";

const GROUP = "rate limit: one guarded call's take, by store";
// A bucket that never runs dry during a benchmark: the cost measured is the take, not a refusal.
const RULES = { rules: [{ scope: "tool" as const, capacity: 1e12, refillPerSecond: 1e12 }] };
const OK: CallOutcome = { status: "ok", result: {} };
const next = (): Promise<CallOutcome> => Promise.resolve(OK);

function call(): GuardedCall {
  return {
    kind: "tool",
    method: "tools/call",
    name: "get_order",
    arguments: {},
    context: {
      principal: "alice",
      client: { info: undefined, capabilities: {}, protocolVersion: "2026-07-28" },
      requestId: 1,
      signal: new AbortController().signal,
      aborted: false,
      cancelledByClient: false,
      _meta: undefined,
      era: "modern",
      continuation: false,
      mask: undefined,
    },
  };
}

/** The Redis URL, if this run may read it and reach the network. */
function redisUrl(): string | undefined {
  const env = Deno.permissions.querySync({ name: "env", variable: "WARDEN_TEST_REDIS_URL" });
  if (env.state !== "granted") return undefined;
  const url = Deno.env.get("WARDEN_TEST_REDIS_URL");
  if (url === undefined) return undefined;
  const host = new URL(url);
  const net = Deno.permissions.querySync({ name: "net", host: `${host.hostname}:${host.port}` });
  return net.state === "granted" ? url : undefined;
}

async function bench(name: string, store: SharedStore, baseline = false): Promise<void> {
  const limiter: Guardrail = rateLimit(RULES, { shared: store });
  const guarded = call();
  // Warm up: opens the connection and loads the script.
  for (let i = 0; i < 10; i++) await limiter.run(guarded, next);
  Deno.bench({ name, group: GROUP, baseline }, async () => {
    const outcome = await limiter.run(guarded, next);
    if (outcome.status !== "ok") throw new Error(`refused: ${JSON.stringify(outcome)}`);
  });
}

await bench("memory (synchronous path)", new MemoryStore(), true);
await bench("Deno KV (:memory:)", new KvStore(":memory:", { log: () => {} }));
const url = redisUrl();
if (url !== undefined) {
  await bench("Redis (EVALSHA on loopback)", new RedisStore(url, { prefix: "bench:" }));
}
