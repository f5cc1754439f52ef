// The shared-store features in process (issue 17): the rate limiter on an
// asynchronous store (outage policy, continuation), and the shared sealing key
// with rotation. The cross-process cases are in multi_instance_test.ts.
import assert from "node:assert/strict";
import { rateLimit } from "../../src/guardrails/rate_limit/rate_limit.ts";
import type { CallOutcome } from "../../src/call/outcome.ts";
import type { GuardedCall } from "../../src/call/context.ts";
import { MemoryStore } from "../../src/store/memory_store.ts";
import { rotateStateKey, storedStateSecrets } from "../../src/store/sealing_keys.ts";
import {
  type BucketTake,
  type BucketTakeResult,
  type SharedStore,
  StoreUnavailableError,
} from "../../src/store/shared_store.ts";
import { type StatePayload, StateSealer } from "../../src/eras/modern/request_state.ts";
import { RpcError } from "../../src/jsonrpc/errors.ts";
import { testContext } from "../_helpers/helpers.ts";

/** A store outside the process, as the limiter sees one: async takes, no sync buckets. */
class RemoteStore implements SharedStore {
  readonly kind = "redis" as const;
  readonly inner = new MemoryStore({ now: () => 0 });
  down = false;
  takes = 0;
  take(buckets: readonly BucketTake[]): Promise<BucketTakeResult> {
    this.takes++;
    if (this.down) return Promise.reject(new StoreUnavailableError("redis", "connection refused"));
    return this.inner.take(buckets);
  }
  get(key: string): Promise<string | undefined> {
    return this.inner.get(key);
  }
  set(key: string, value: string): Promise<boolean> {
    return this.inner.set(key, value);
  }
  publish(channel: string, message: string): Promise<void> {
    return this.inner.publish(channel, message);
  }
  subscribe(channel: string, listener: (message: string) => void): Promise<() => void> {
    return this.inner.subscribe(channel, listener);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

const RULES = { rules: [{ scope: "tool" as const, capacity: 2, refillPerSecond: 0.001 }] };
const OK: CallOutcome = { status: "ok", result: {} };

function guarded(continuation = false): GuardedCall {
  return {
    kind: "tool",
    method: "tools/call",
    name: "get_order",
    arguments: {},
    context: { ...testContext("alice"), continuation },
  };
}

Deno.test("rateLimit() on a remote store admits the capacity, then refuses like the local limiter", async () => {
  const store = new RemoteStore();
  const limiter = rateLimit(RULES, { shared: store });
  const statuses = [];
  for (let i = 0; i < 4; i++) {
    statuses.push((await limiter.run(guarded(), () => Promise.resolve(OK))).status);
  }
  assert.deepEqual(statuses, ["ok", "ok", "rate_limited", "rate_limited"]);
  const refused = await limiter.run(guarded(), () => Promise.resolve(OK));
  assert.ok("error" in refused && refused.error instanceof RpcError);
  assert.match(refused.error.message, /^Rate limit exceeded: tool "get_order", retry in \d+ s$/);
  assert.deepEqual(Object.keys(refused.error.data as object), ["retry_after_seconds"]);
});

Deno.test("rateLimit() on a remote store fails closed by default and open when configured", async () => {
  const store = new RemoteStore();
  store.down = true;
  const closed = await rateLimit(RULES, { shared: store }).run(
    guarded(),
    () => Promise.resolve(OK),
  );
  assert.equal(closed.status, "rate_limited");
  assert.ok("error" in closed);
  assert.match(closed.error.message, /the shared redis store cannot be reached/);
  assert.deepEqual(closed.error.data, { retry_after_seconds: 1 });
  const open = rateLimit(RULES, { shared: store, onOutage: "fail-open" });
  assert.equal((await open.run(guarded(), () => Promise.resolve(OK))).status, "ok");
});

Deno.test("rateLimit() on a remote store does not charge a verified MRTR continuation", async () => {
  const store = new RemoteStore();
  const limiter = rateLimit(RULES, { shared: store });
  for (let i = 0; i < 5; i++) await limiter.run(guarded(true), () => Promise.resolve(OK));
  assert.equal(store.takes, 0);
});

Deno.test("rateLimit() with a memory store keeps the synchronous path (no take)", async () => {
  const store = new MemoryStore({ now: () => 0 });
  let takes = 0;
  const original = store.take.bind(store);
  store.take = (buckets) => {
    takes++;
    return original(buckets);
  };
  const limiter = rateLimit(RULES, { shared: store });
  const statuses = [];
  for (let i = 0; i < 3; i++) {
    statuses.push((await limiter.run(guarded(), () => Promise.resolve(OK))).status);
  }
  assert.deepEqual(statuses, ["ok", "ok", "rate_limited"]);
  assert.equal(takes, 0);
});

const BINDING = { principal: "alice", method: "tools/call", name: "confirm", arguments: "x" };
function payload(now: number): StatePayload {
  return { binding: BINDING, expires: now + 60_000, round: 1, answers: {} };
}

Deno.test("two sealers on one store agree on a generated key; rotation keeps the old key for one TTL", async () => {
  const store = new MemoryStore();
  // refreshMs 0: every seal reads the store, as if the refresh period had passed.
  const a = new StateSealer([], 4096, storedStateSecrets(store, 0));
  const b = new StateSealer([], 4096, storedStateSecrets(store, 0));
  const now = Date.now();
  const before = await a.seal(payload(now));
  assert.equal((await b.open(before, BINDING, now)).round, 1);

  await rotateStateKey(store, 60_000);
  const after = await a.seal(payload(now));
  assert.equal((await b.open(after, BINDING, now)).round, 1);
  assert.equal((await b.open(before, BINDING, now)).round, 1, "the old key still opens");

  // Once the old key's TTL has passed, its states no longer open.
  await rotateStateKey(store, 0);
  const fresh = new StateSealer([], 4096, storedStateSecrets(store, 0));
  await assert.rejects(fresh.open(before, BINDING, now), /requestState failed its integrity check/);
});

Deno.test("a configured requestStateKey wins over the store's key", async () => {
  const store = new MemoryStore();
  const secret = "a configured secret of at least thirty-two bytes";
  const configured = new StateSealer([secret], 4096, storedStateSecrets(store));
  const plain = new StateSealer([secret], 4096);
  const now = Date.now();
  assert.equal((await plain.open(await configured.seal(payload(now)), BINDING, now)).round, 1);
  assert.equal(await store.get("mrtr:keys"), undefined, "nothing was written to the store");
});

Deno.test("--store and the policy's store/storeOutage are checked with the place named", async () => {
  const { parseServerFlags } = await import("../../src/setup/flags.ts");
  const { parsePolicy } = await import("../../src/setup/policy_file.ts");
  const identity = { name: "desk", version: "1" };
  const bad = await parseServerFlags(["--store", "mysql://db"], identity);
  assert.equal(bad.action, "error");
  assert.ok(bad.action === "error" && /^--store must be "memory", "redis:/.test(bad.message));
  const good = await parseServerFlags(["--store", "redis://127.0.0.1:6379/2"], identity);
  assert.ok(good.action === "run" && good.flags.store === "redis://127.0.0.1:6379/2");
  await assert.rejects(
    parsePolicy('{ "store": 5 }', "p.jsonc"),
    /^TypeError: Cannot load policy p\.jsonc: store must be a string, got number$/,
  );
  await assert.rejects(
    parsePolicy('{ "store": "kv:x", "storeOutage": "maybe" }', "p.jsonc"),
    /^RangeError: Cannot load policy p\.jsonc: storeOutage must be one of "fail-closed", "fail-open"/,
  );
  const config = await parsePolicy('{ "store": "kv:", "storeOutage": "fail-open" }', "p.jsonc");
  assert.deepEqual(config, { store: "kv:", storeOutage: "fail-open" });
});
