/**
 * {@linkcode RedisStore}: a {@linkcode SharedStore} on Redis (or Valkey).
 * Bucket takes run as one server-side Lua script, so the instances sharing a
 * Redis together admit exactly the configured capacity; values expire with
 * Redis key expiry; the bus is Redis pub/sub.
 *
 * @module
 */

import { loadRedisClient, type RedisConnection } from "../runtime/npm/redis.ts";
import { describeUrl, isPermissionError, OutageReporter, reasonOf } from "./outage.ts";
import { type BucketTake, type SharedStore, StoreUnavailableError } from "./shared_store.ts";
import { bucketTtlMs } from "./take_buckets.ts";
import { isReplyError, TAKE_SCRIPT, takeReply } from "./redis_take.ts";

/**
 * A {@linkcode SharedStore} on Redis through `@redis/client`. The connection
 * opens in the background and reconnects with backoff; while it is down every
 * method rejects with {@linkcode StoreUnavailableError} at once (nothing is
 * queued), and the outage is reported once. A permission error (Deno run
 * without `--allow-net` for the host) is not an outage: it ends the retries,
 * and every method rejects with it. `ready()` tells at start whether the
 * store can be reached at all.
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
  /** The subscriber connection as soon as it exists, so close() can end it while it connects. */
  #subscriberClient: RedisConnection | undefined;
  /** Set by a permission error: every command fails with it, and nothing retries. */
  #fatal: StoreUnavailableError | undefined;
  /** Whether `ready()` waits: failures before the first connection are its to report. */
  #awaitingStart = false;
  /** Whether `ready()` has rejected: its caller has the start's failure to report. */
  #startReported = false;
  #everReady = false;
  readonly #channels = new Map<string, Set<(message: string) => void>>();
  #scriptSha: string | undefined;
  #closed = false;
  /** Settles when the first connection is ready: calls made at start-up wait for it. */
  readonly #firstReady = Promise.withResolvers<void>();
  /** Rejects at the first failure before the first connection was ready. */
  readonly #startFailed = Promise.withResolvers<never>();

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
    this.#startFailed.promise.catch(() => {});
    this.#client = this.#open();
    // A failure to load the client is reported by the first command (or by ready()).
    this.#client.catch((error: unknown) => this.#startFailed.reject(error));
  }

  /**
   * Resolves once the first connection is ready; rejects with
   * {@linkcode StoreUnavailableError} at the first failure to reach the
   * server (refused, timed out, not permitted), or after `timeoutMs`. The
   * store keeps retrying in the background unless the failure was a
   * permission error; a caller that gives up should `close()` it. Failures
   * before the first connection are then its caller's to report: the
   * outage log stays quiet about them.
   *
   * @param timeoutMs How long to wait, in ms.
   * @returns Resolves when the store can be used.
   * @throws {StoreUnavailableError} When the store cannot be reached.
   */
  async ready(timeoutMs = 5000): Promise<void> {
    if (this.#everReady) return;
    this.#awaitingStart = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no connection in ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await Promise.race([this.#firstReady.promise, this.#startFailed.promise, late]);
    } catch (error) {
      this.#startReported = true;
      throw error instanceof StoreUnavailableError
        ? error
        : new StoreUnavailableError("redis", `${describeUrl(this.#url)}: ${reasonOf(error)}`);
    } finally {
      clearTimeout(timer);
      this.#awaitingStart = false;
    }
    if (this.#closed) throw new StoreUnavailableError("redis", "the store is closed");
  }

  /** A connection failed: a permission error ends it all; before `ready()` settles it is its to report. */
  #failed(error: unknown): void {
    const reason = reasonOf(error);
    if (isPermissionError(error) && this.#fatal === undefined) {
      this.#fatal = new StoreUnavailableError(
        "redis",
        `${describeUrl(this.#url)}: ${reason} (a permission error is not retried)`,
      );
    }
    if (!this.#everReady) {
      this.#startFailed.reject(this.#fatal ?? error);
      if (this.#awaitingStart || this.#startReported) return;
    }
    if (this.#fatal !== undefined) this.#outage.fatal(reason);
    else this.#outage.failed(reason);
  }

  /** The wait before reconnect attempt `retries`, or an Error that stops retrying. */
  #reconnect(retries: number, cause: unknown): number | Error {
    // Waiting never grants a permission: stop, and let every command say why.
    if (isPermissionError(cause) || this.#fatal !== undefined) {
      return new Error("a permission error is not retried");
    }
    // Doubling from 50 ms with jitter, so a fleet does not reconnect in step.
    return Math.min(this.#maxDelayMs, 50 * 2 ** Math.min(retries, 16)) * (0.5 + Math.random() / 2);
  }

  async #open(): Promise<RedisConnection> {
    const create = await loadRedisClient();
    const client = create({
      url: this.#url,
      disableOfflineQueue: true,
      socket: {
        reconnectStrategy: (retries, cause) => this.#reconnect(retries, cause),
        connectTimeout: this.#timeoutMs * 5,
      },
    });
    // Without an error listener the client would throw from an event: never crash.
    client.on("error", (error) => this.#failed(error));
    client.on("ready", () => {
      this.#everReady = true;
      this.#firstReady.resolve();
      this.#outage.recovered();
    });
    client.connect().catch((error: unknown) => this.#failed(error));
    if (this.#closed) client.destroy();
    return client;
  }

  /** Runs one command on a ready connection, within the timeout. */
  async #command(args: string[]): Promise<unknown> {
    if (this.#closed) throw new StoreUnavailableError("redis", "the store is closed");
    if (this.#fatal !== undefined) throw this.#fatal;
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
      this.#failed(error);
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
    if (this.#fatal !== undefined) throw this.#fatal;
    const create = await loadRedisClient();
    const client = create({
      url: this.#url,
      // Subscriptions must survive an outage: queue the resubscribe.
      disableOfflineQueue: false,
      socket: {
        reconnectStrategy: (retries, cause) => this.#reconnect(retries, cause),
        connectTimeout: this.#timeoutMs * 5,
      },
    });
    this.#subscriberClient = client;
    client.on("error", (error) => this.#failed(error));
    if (this.#closed) client.destroy();
    await client.connect();
    return client;
  }

  /**
   * Closes both connections, also while they are still (re)connecting: a
   * store that never reached its server must not keep the process alive.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#firstReady.resolve();
    // The subscriber may be stuck connecting: end it directly, never wait for its connect.
    this.#subscriberClient?.destroy();
    const [client] = await Promise.allSettled([this.#client]);
    if (client?.status === "fulfilled") client.value.destroy();
  }
}

/** Options for {@linkcode RedisStore}. */
export type RedisStoreOptions = NonNullable<ConstructorParameters<typeof RedisStore>[1]>;
