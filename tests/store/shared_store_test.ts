// The shared store backends against one contract: memory always, Deno KV on a
// temporary file, Redis when WARDEN_TEST_REDIS_URL names one (.ci/run starts it).
import assert from "node:assert/strict";
import { checkStoreUrl, openStore } from "../../src/store/open_store.ts";
import { MemoryStore } from "../../src/store/memory_store.ts";
import { KvStore } from "../../src/store/kv_store.ts";
import { RedisStore } from "../../src/store/redis_store.ts";
import type { SharedStore } from "../../src/store/shared_store.ts";
import { StoreUnavailableError } from "../../src/store/shared_store.ts";

const REDIS_URL = Deno.env.get("WARDEN_TEST_REDIS_URL");
if (REDIS_URL === undefined) {
  console.warn("shared_store_test: WARDEN_TEST_REDIS_URL is not set; the Redis cases are skipped");
}

interface Backend {
  name: string;
  ignore: boolean;
  /** Two stores on the same data, as two instances would open it. */
  open(): Promise<[SharedStore, SharedStore, () => Promise<void>]>;
}

const backends: Backend[] = [
  {
    name: "memory",
    ignore: false,
    open: () => {
      const store = new MemoryStore();
      return Promise.resolve([store, store, () => store.close()]);
    },
  },
  {
    name: "kv",
    ignore: false,
    open: async () => {
      const dir = await Deno.makeTempDir();
      const a = new KvStore(`${dir}/shared.kv`, { pollMs: 20 });
      const b = new KvStore(`${dir}/shared.kv`, { pollMs: 20 });
      return [a, b, async () => {
        await a.close();
        await b.close();
        await Deno.remove(dir, { recursive: true });
      }];
    },
  },
  {
    name: "redis",
    ignore: REDIS_URL === undefined,
    open: () => {
      const prefix = `test:${crypto.randomUUID()}:`;
      const a = new RedisStore(REDIS_URL ?? "", { prefix });
      const b = new RedisStore(REDIS_URL ?? "", { prefix });
      return Promise.resolve([a, b, async () => {
        await a.close();
        await b.close();
      }]);
    },
  },
];

/** Retries while a backend's connection is still opening. */
async function ready(store: SharedStore): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      await store.get("ping");
      return;
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  throw new Error("the store never became ready");
}

/** One contract case per backend: two instances opened on the same data, ready, then closed. */
function contract(
  name: string,
  body: (a: SharedStore, b: SharedStore, backend: Backend) => Promise<void>,
): void {
  for (const backend of backends) {
    Deno.test({
      name: `${backend.name} store: ${name}`,
      ignore: backend.ignore,
      async fn() {
        const [a, b, close] = await backend.open();
        try {
          await ready(a);
          await ready(b);
          await body(a, b, backend);
        } finally {
          await close();
        }
      },
    });
  }
}

contract("concurrent takes from two instances admit exactly the capacity", async (a, b) => {
  // A slow refill (one token per 1000 s) so nothing refills during the test.
  const take = [{ key: "bucket", capacity: 5, refillPerSecond: 0.001, cost: 1 }];
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).take(take)),
  );
  assert.equal(results.filter((r) => r.allowed).length, 5);
  const refusal = results.find((r) => !r.allowed);
  assert.ok(refusal !== undefined && !refusal.allowed);
  assert.deepEqual(refusal.refused, [0]);
  assert.ok(refusal.retryAfterSeconds >= 1);
});

contract("a take over two buckets charges both or neither", async (a, b) => {
  const small = { key: "small", capacity: 1, refillPerSecond: 0.001, cost: 1 };
  const big = { key: "big", capacity: 3, refillPerSecond: 0.001, cost: 1 };
  assert.deepEqual(await a.take([big, small]), { allowed: true });
  const second = await b.take([big, small]);
  assert.equal(second.allowed, false);
  assert.ok(!second.allowed && second.refused.length === 1 && second.refused[0] === 1);
  // `big` was not charged by the refused take: two tokens are left in it.
  assert.equal((await a.take([big])).allowed, true);
  assert.equal((await b.take([big])).allowed, true);
  assert.equal((await a.take([big])).allowed, false);
});

contract("set-if-absent lets exactly one instance win", async (a, b, backend) => {
  const wins = await Promise.all([
    a.set("key", "from-a", { ifAbsent: true }),
    b.set("key", "from-b", { ifAbsent: true }),
  ]);
  assert.equal(wins.filter(Boolean).length, 1);
  const value = await b.get("key");
  assert.equal(value, wins[0] === true ? "from-a" : "from-b");
  assert.equal(await a.get("missing"), undefined);
  await a.set("short", "v", { ttlMs: 30 });
  await new Promise((resolve) => setTimeout(resolve, 80));
  if (backend.name !== "kv") assert.equal(await b.get("short"), undefined);
});

contract("a message published on one instance reaches the other", async (a, b) => {
  const got: string[] = [];
  const arrived = Promise.withResolvers<void>();
  const stop = await b.subscribe("changes", (message) => {
    got.push(message);
    if (got.length === 2) arrived.resolve();
  });
  await a.publish("changes", "one");
  await a.publish("changes", "two");
  const timer = setTimeout(() => arrived.reject(new Error(`only got ${got}`)), 5000);
  await arrived.promise.finally(() => clearTimeout(timer));
  assert.deepEqual(got.sort(), ["one", "two"]);
  stop();
});

Deno.test("checkStoreUrl() accepts the issue's forms and names the place of a bad one", () => {
  for (const url of ["memory", "redis://127.0.0.1:6379/0", "rediss://h:1", "kv:./x.kv", "kv:"]) {
    assert.equal(checkStoreUrl(url, "store"), url);
  }
  assert.throws(() => checkStoreUrl("mysql://x", "store"), /^RangeError: store must be "memory"/);
  assert.throws(() => checkStoreUrl("redis://h:1/zero", "--store"), /--store needs a database/);
  assert.throws(() => checkStoreUrl(5, "store"), /store must be a string, got number/);
  assert.equal(openStore("memory").kind, "memory");
});

Deno.test("redis store: an unreachable server rejects at once, reported once", async () => {
  const messages: string[] = [];
  // Port 1 on loopback: nothing listens there.
  const store = new RedisStore("redis://127.0.0.1:1/0", {
    log: (message) => messages.push(message),
    maxReconnectDelayMs: 20,
    commandTimeoutMs: 100,
  });
  try {
    for (let i = 0; i < 5; i++) {
      await assert.rejects(
        store.take([{ key: "k", capacity: 1, refillPerSecond: 1, cost: 1 }]),
        StoreUnavailableError,
      );
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    assert.equal(messages.length, 1, messages.join("\n"));
    assert.match(messages[0] ?? "", /shared store redis:\/\/127\.0\.0\.1:1\/0 is unreachable/);
  } finally {
    await store.close();
  }
});
