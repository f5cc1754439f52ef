/**
 * {@linkcode RedisStore}: a {@linkcode SharedStore} on Redis (or Valkey).
 * Bucket takes run as one server-side Lua script, so the instances sharing a
 * Redis together admit exactly the configured capacity; values expire with
 * Redis key expiry; the bus is Redis pub/sub.
 *
 * @module
 */

import { loadRedisClient, type RedisConnection } from "../runtime/npm/redis.ts";
import { describeUrl, OutageReporter, reasonOf } from "./outage.ts";
import {
  type BucketTake,
  type BucketTakeResult,
  type SharedStore,
  StoreUnavailableError,
} from "./shared_store.ts";
import { bucketTtlMs } from "./take_buckets.ts";

// The token bucket of token_bucket.ts, all or nothing over KEYS, on the
// server's clock so that instances with skewed clocks still agree. ARGV holds
// a (capacity, refillPerSecond, cost, ttlMs) quadruple per key. Replies
// {1} when allowed, else {0, retryAfterSeconds, refused index...} (1-based).
const TAKE_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local tokens, stamps, refused = {}, {}, {}
local retry = 0
for i = 1, #KEYS do
  local capacity = tonumber(ARGV[4 * i - 3])
  local rate = tonumber(ARGV[4 * i - 2])
  local cost = tonumber(ARGV[4 * i - 1])
  local have, at = capacity, now
  local stored = redis.call('HMGET', KEYS[i], 't', 'u')
  if stored[1] and stored[2] then
    local t, u = tonumber(stored[1]), tonumber(stored[2])
    have = math.min(capacity, math.max(0, t) + math.max(0, now - u) / 1000 * rate)
    at = math.max(u, now)
  end
  if have + 1e-9 * math.max(1, capacity) >= cost then
    tokens[i], stamps[i] = math.max(0, have - cost), at
  else
    refused[#refused + 1] = i
    retry = math.max(retry, math.max(1, math.ceil((cost - have) / rate - 1e-9)))
  end
end
if #refused > 0 then
  local reply = {0, retry}
  for _, i in ipairs(refused) do reply[#reply + 1] = i end
  return reply
end
for i = 1, #KEYS do
  redis.call('HSET', KEYS[i], 't', string.format('%.17g', tokens[i]), 'u', stamps[i])
  redis.call('PEXPIRE', KEYS[i], ARGV[4 * i])
end
return {1}
`;

/**
 * A {@linkcode SharedStore} on Redis through `@redis/client`. The connection
 * opens in the background and reconnects with backoff; while it is down every
 * method rejects with {@linkcode StoreUnavailableError} at once (nothing is
 * queued), and the outage is reported once.
 *
 * @example
 * ```ts ignore
 * import { RedisStore } from "@warden/mcp/store";
 * const store = new RedisStore("redis://127.0.0.1:6379/0");
 * await store.set("k", "v", { ttlMs: 60_000 });
 * ```
 */
export class RedisStore implements SharedStore {
  /** Always `"redis"`. */
  readonly kind = "redis" as const;
  readonly #url: string;
  readonly #prefix: string;
  readonly #timeoutMs: number;
  readonly #maxDelayMs: number;
  readonly #outage: OutageReporter;
  readonly #client: Promise<RedisConnection>;
  #subscriber: Promise<RedisConnection> | undefined;
  readonly #channels = new Map<string, Set<(message: string) => void>>();
  #scriptSha: string | undefined;
  #closed = false;
  /** Settles when the first connection is ready: calls made at start-up wait for it. */
  readonly #firstReady = Promise.withResolvers<void>();

  /**
   * Creates the store and starts connecting in the background.
   *
   * @param url `redis://[user:password@]host[:port][/db]` (or `rediss://`).
   * @param options Prefix, timeouts and the outage log.
   * @throws {TypeError} If `url` is not a redis URL.
   */
  constructor(url: string, options: {
    /**
     * Prepended to every key and channel, so servers can share one database.
     * @default {"warden:"}
     */
    prefix?: string;
    /**
     * How long a command may take before it counts as an outage, in ms.
     * @default {1000}
     */
    commandTimeoutMs?: number;
    /**
     * The longest wait between reconnect attempts, in ms (the wait doubles
     * from 50 ms up to it).
     * @default {2000}
     */
    maxReconnectDelayMs?: number;
    /**
     * Where outages and recoveries are reported, once each.
     * @default {console.error}
     */
    log?: (message: string) => void;
  } = {}) {
    if (!/^rediss?:\/\//.test(url)) {
      throw new TypeError(`Invalid store: expected a redis:// URL, got ${JSON.stringify(url)}`);
    }
    this.#url = url;
    this.#prefix = options.prefix ?? "warden:";
    this.#timeoutMs = options.commandTimeoutMs ?? 1000;
    this.#maxDelayMs = options.maxReconnectDelayMs ?? 2000;
    this.#outage = new OutageReporter(describeUrl(url), options.log ?? console.error);
    this.#client = this.#open();
    // A failure to load the client is reported by the first command.
    this.#client.catch(() => {});
  }

  async #open(): Promise<RedisConnection> {
    const create = await loadRedisClient();
    const client = create({
      url: this.#url,
      disableOfflineQueue: true,
      socket: {
        // Doubling from 50 ms with jitter, so a fleet does not reconnect in step.
        reconnectStrategy: (retries) =>
          Math.min(this.#maxDelayMs, 50 * 2 ** Math.min(retries, 16)) * (0.5 + Math.random() / 2),
        connectTimeout: this.#timeoutMs * 5,
      },
    });
    // Without an error listener the client would throw from an event: never crash.
    client.on("error", (error) => this.#outage.failed(reasonOf(error)));
    client.on("ready", () => {
      this.#firstReady.resolve();
      this.#outage.recovered();
    });
    client.connect().catch((error: unknown) => this.#outage.failed(reasonOf(error)));
    return client;
  }

  /** Runs one command on a ready connection, within the timeout. */
  async #command(args: string[]): Promise<unknown> {
    if (this.#closed) throw new StoreUnavailableError("redis", "the store is closed");
    let client: RedisConnection;
    try {
      client = await this.#client;
    } catch (error) {
      throw new StoreUnavailableError("redis", `cannot load the client: ${reasonOf(error)}`);
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    if (!client.isReady) {
      // Still opening at start-up: wait for it up to the command timeout, not after an outage.
      const wait = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.#timeoutMs)));
      await Promise.race([this.#firstReady.promise, wait]);
      clearTimeout(timer);
      if (!client.isReady) throw new StoreUnavailableError("redis", "not connected");
    }
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new StoreUnavailableError("redis", `no reply in ${this.#timeoutMs} ms`)),
        this.#timeoutMs,
      );
    });
    try {
      return await Promise.race([client.sendCommand(args), timeout]);
    } catch (error) {
      if (error instanceof StoreUnavailableError) throw error;
      // A reply error (e.g. NOSCRIPT) means Redis answered: not an outage.
      if (isReplyError(error)) throw error;
      this.#outage.failed(reasonOf(error));
      throw new StoreUnavailableError("redis", reasonOf(error));
    } finally {
      clearTimeout(timer);
    }
  }

  /** Takes from every bucket or none, in one script run on the Redis server. */
  async take(takes: readonly BucketTake[]): ReturnType<SharedStore["take"]> {
    if (takes.length === 0) return { allowed: true };
    const keys = takes.map((take) => `${this.#prefix}rl:${take.key}`);
    const args = takes.flatMap((take) => [
      String(take.capacity),
      String(take.refillPerSecond),
      String(take.cost),
      String(bucketTtlMs(take)),
    ]);
    const count = String(keys.length);
    let reply: unknown;
    try {
      reply = this.#scriptSha === undefined
        ? await this.#loadAndRun(count, keys, args)
        : await this.#command(["EVALSHA", this.#scriptSha, count, ...keys, ...args]);
    } catch (error) {
      // After a Redis restart its script cache is empty: load it again.
      if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
      reply = await this.#loadAndRun(count, keys, args);
    }
    return takeReply(reply);
  }

  async #loadAndRun(count: string, keys: string[], args: string[]): Promise<unknown> {
    const sha = await this.#command(["SCRIPT", "LOAD", TAKE_SCRIPT]);
    if (typeof sha !== "string") throw new TypeError("Unexpected reply to SCRIPT LOAD");
    this.#scriptSha = sha;
    return await this.#command(["EVALSHA", sha, count, ...keys, ...args]);
  }

  /** The value under `key`, or `undefined`. */
  async get(key: string): Promise<string | undefined> {
    const value = await this.#command(["GET", this.#prefix + key]);
    return typeof value === "string" ? value : undefined;
  }

  /** Stores `value` with `SET` (`PX` for the TTL, `NX` for set-if-absent). */
  async set(
    key: string,
    value: string,
    options: Parameters<SharedStore["set"]>[2] = {},
  ): Promise<boolean> {
    const args = ["SET", this.#prefix + key, value];
    if (options.ttlMs !== undefined) args.push("PX", String(Math.max(1, Math.ceil(options.ttlMs))));
    if (options.ifAbsent === true) args.push("NX");
    return (await this.#command(args)) === "OK";
  }

  /** Publishes on the Redis channel. */
  async publish(channel: string, message: string): Promise<void> {
    await this.#command(["PUBLISH", this.#prefix + channel, message]);
  }

  /**
   * Subscribes on a second connection (a subscribed Redis connection can send
   * nothing else); it resubscribes by itself after a reconnect.
   */
  async subscribe(channel: string, listener: (message: string) => void): Promise<() => void> {
    const subscriber = await (this.#subscriber ??= this.#openSubscriber());
    let listeners = this.#channels.get(channel);
    if (listeners === undefined) {
      const created = new Set<(message: string) => void>();
      listeners = created;
      this.#channels.set(channel, created);
      await subscriber.subscribe(this.#prefix + channel, (message) => {
        for (const each of [...created]) each(message);
      });
    }
    const own = listeners;
    const wrapped = (message: string): void => listener(message);
    own.add(wrapped);
    return () => {
      own.delete(wrapped);
    };
  }

  async #openSubscriber(): Promise<RedisConnection> {
    const create = await loadRedisClient();
    const client = create({
      url: this.#url,
      // Subscriptions must survive an outage: queue the resubscribe.
      disableOfflineQueue: false,
      socket: {
        reconnectStrategy: (retries) => Math.min(this.#maxDelayMs, 50 * 2 ** Math.min(retries, 16)),
        connectTimeout: this.#timeoutMs * 5,
      },
    });
    client.on("error", (error) => this.#outage.failed(reasonOf(error)));
    await client.connect();
    return client;
  }

  /** Closes both connections. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#firstReady.resolve();
    const clients = [this.#client, this.#subscriber].filter((c) => c !== undefined);
    for (const client of await Promise.allSettled(clients)) {
      if (client.status === "fulfilled") client.value.destroy();
    }
  }
}

/** An error Redis replied with (the server is up), as opposed to a connection failure. */
function isReplyError(error: unknown): boolean {
  return error instanceof Error &&
    (/^(ErrorReply|SimpleError|BlobError)$/.test(error.name) ||
      error.message.startsWith("NOSCRIPT"));
}

function takeReply(reply: unknown): BucketTakeResult {
  if (!Array.isArray(reply) || typeof reply[0] !== "number") {
    throw new TypeError("Unexpected reply from the rate-limit script");
  }
  if (reply[0] === 1) return { allowed: true };
  const retryAfterSeconds = Number(reply[1]);
  const refused = reply.slice(2).map((index) => Number(index) - 1);
  return { allowed: false, retryAfterSeconds, refused };
}

/** Options for {@linkcode RedisStore}. */
export type RedisStoreOptions = NonNullable<ConstructorParameters<typeof RedisStore>[1]>;
