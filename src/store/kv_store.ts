/**
 * {@linkcode KvStore}: a {@linkcode SharedStore} on Deno KV, a local SQLite
 * file shared by processes on one machine, or Deno Deploy's database shared
 * by every region. Bucket takes are check-and-set loops on versionstamps; the
 * bus is a short-lived log polled by each instance (KV's `watch` does not see
 * other processes' writes on a local file). Deno still needs `--unstable-kv`.
 *
 * @module
 */

import { isRecord } from "../jsonrpc/messages.ts";
import type { TokenBucket } from "./token_bucket.ts";
import { isPermissionError, OutageReporter, reasonOf } from "./outage.ts";
import { type BucketTake, type SharedStore, StoreUnavailableError } from "./shared_store.ts";
import { bucketTtlMs, takeBuckets } from "./take_buckets.ts";

type KvKey = readonly (string | number)[];

interface KvEntry {
  readonly key: readonly unknown[];
  readonly value: unknown;
  readonly versionstamp: string | null;
}

interface KvAtomic {
  check(...checks: { key: KvKey; versionstamp: string | null }[]): KvAtomic;
  set(key: KvKey, value: unknown, options?: { expireIn?: number }): KvAtomic;
  commit(): Promise<{ ok: boolean }>;
}

/** The part of `Deno.Kv` used here, typed locally so no unstable types are needed. */
interface Kv {
  get(key: KvKey): Promise<KvEntry>;
  getMany(keys: KvKey[]): Promise<KvEntry[]>;
  set(key: KvKey, value: unknown, options?: { expireIn?: number }): Promise<unknown>;
  atomic(): KvAtomic;
  list(selector: { start: KvKey; end: KvKey }): AsyncIterable<KvEntry>;
  close(): void;
}

function isKv(value: unknown): value is Kv {
  return isRecord(value) && typeof value.get === "function" &&
    typeof value.getMany === "function" && typeof value.atomic === "function" &&
    typeof value.list === "function" && typeof value.close === "function";
}

function isBucket(value: unknown): value is TokenBucket {
  return isRecord(value) && typeof value.tokens === "number" && typeof value.updatedAt === "number";
}

/** Opens a Deno KV database, or explains why it cannot be. */
async function openKv(path: string | undefined): Promise<Kv> {
  const deno: unknown = Reflect.get(globalThis, "Deno");
  const open = isRecord(deno) ? deno.openKv : undefined;
  if (typeof open !== "function") {
    throw new Error("Cannot open Deno KV: Deno.openKv is missing (run Deno with --unstable-kv)");
  }
  const kv: unknown = await open.call(deno, path);
  if (!isKv(kv)) throw new Error("Cannot open Deno KV: Deno.openKv returned no database");
  return kv;
}

/** How far back a poll looks, in ms: tolerates that much clock skew between instances. */
const BUS_LOOKBACK_MS = 2000;
/** How long a bus message is kept. */
const BUS_KEEP_MS = 60_000;
/** Attempts while another process holds the database file's lock. */
const LOCK_ATTEMPTS = 50;
/** Check-and-set attempts before a take is given up as an outage. */
const MAX_ATTEMPTS = 50;

/**
 * A {@linkcode SharedStore} on Deno KV.
 *
 * @example
 * ```ts ignore
 * import { KvStore } from "@warden/mcp/store";
 * const store = new KvStore("./warden.kv"); // or new KvStore() on Deno Deploy
 * await store.set("k", "v", { ttlMs: 60_000 });
 * ```
 */
export class KvStore implements SharedStore {
  /** Always `"kv"`. */
  readonly kind = "kv" as const;
  readonly #kv: Promise<Kv>;
  readonly #pollMs: number;
  readonly #outage: OutageReporter;
  readonly #channels = new Map<string, Set<(message: string) => void>>();
  readonly #seen = new Map<string, number>();
  #since = Date.now();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  /**
   * Creates the store and opens the database in the background.
   *
   * @param path The database file; absent for the default database (Deno Deploy's).
   * @param options Poll interval and the outage log.
   */
  constructor(path?: string, options: {
    /**
     * How often each instance reads the bus, in ms.
     * @default {100}
     */
    pollMs?: number;
    /**
     * Where outages and recoveries are reported, once each.
     * @default {console.error}
     */
    log?: (message: string) => void;
  } = {}) {
    this.#kv = openKv(path === "" ? undefined : path);
    this.#kv.catch(() => {});
    this.#pollMs = options.pollMs ?? 100;
    this.#outage = new OutageReporter(`kv:${path ?? ""}`, options.log ?? console.error);
  }

  /**
   * Resolves once the database is open; rejects with
   * {@linkcode StoreUnavailableError} when it cannot be (no `--unstable-kv`,
   * no permission for the file, a path that cannot be created).
   *
   * @returns Resolves when the store can be used.
   * @throws {StoreUnavailableError} When the database cannot be opened.
   */
  async ready(): Promise<void> {
    try {
      await this.#kv;
    } catch (error) {
      throw new StoreUnavailableError("kv", reasonOf(error));
    }
  }

  /** Runs `work` on the database, turning failures into {@linkcode StoreUnavailableError}. */
  async #use<T>(work: (kv: Kv) => Promise<T>): Promise<T> {
    if (this.#closed) throw new StoreUnavailableError("kv", "the store is closed");
    for (let attempt = 1;; attempt++) {
      try {
        const result = await work(await this.#kv);
        this.#outage.recovered();
        return result;
      } catch (error) {
        // SQLite's busy lock between processes on one file: wait briefly and retry.
        if (reasonOf(error).includes("database is locked") && attempt < LOCK_ATTEMPTS) {
          await new Promise((resolve) => setTimeout(resolve, 2 + Math.random() * 8 * attempt));
          continue;
        }
        if (error instanceof RangeError) throw error;
        if (isPermissionError(error)) {
          // Waiting never grants a permission: reported as such, not as an outage to wait out.
          this.#outage.fatal(reasonOf(error));
          throw new StoreUnavailableError(
            "kv",
            `${reasonOf(error)} (a permission error is not retried)`,
          );
        }
        this.#outage.failed(reasonOf(error));
        throw new StoreUnavailableError("kv", reasonOf(error));
      }
    }
  }

  /** Takes from every bucket or none: read, decide, commit if nothing changed meanwhile. */
  take(takes: readonly BucketTake[]): ReturnType<SharedStore["take"]> {
    if (takes.length === 0) return Promise.resolve({ allowed: true });
    const keys = takes.map((take): KvKey => ["warden", "rl", take.key]);
    return this.#use(async (kv) => {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const entries = await kv.getMany(keys);
        const current = entries.map((entry) => isBucket(entry.value) ? entry.value : undefined);
        const { result, writes } = takeBuckets(takes, current, Date.now());
        if (!result.allowed) return result;
        let atomic = kv.atomic();
        entries.forEach((entry, index) => {
          const key = keys[index];
          const take = takes[index];
          const bucket = writes[index];
          if (key === undefined || take === undefined || bucket === undefined) return;
          atomic = atomic.check({ key, versionstamp: entry.versionstamp })
            .set(key, { tokens: bucket.tokens, updatedAt: bucket.updatedAt }, {
              expireIn: bucketTtlMs(take),
            });
        });
        if ((await atomic.commit()).ok) return result;
      }
      throw new Error(`the take did not commit after ${MAX_ATTEMPTS} attempts`);
    });
  }

  /** The value under `key`, or `undefined`. */
  get(key: string): Promise<string | undefined> {
    return this.#use(async (kv) => {
      const entry = await kv.get(["warden", "value", key]);
      return typeof entry.value === "string" ? entry.value : undefined;
    });
  }

  /** Stores `value`; `ifAbsent` is an atomic check that the key holds nothing. */
  set(
    key: string,
    value: string,
    options: Parameters<SharedStore["set"]>[2] = {},
  ): Promise<boolean> {
    const kvKey: KvKey = ["warden", "value", key];
    const expiry = options.ttlMs === undefined ? {} : { expireIn: Math.max(1, options.ttlMs) };
    return this.#use(async (kv) => {
      let atomic = kv.atomic();
      if (options.ifAbsent === true) atomic = atomic.check({ key: kvKey, versionstamp: null });
      return (await atomic.set(kvKey, value, expiry).commit()).ok;
    });
  }

  /** Appends `message` to the channel's log, where every instance's poll finds it. */
  publish(channel: string, message: string): Promise<void> {
    const id = crypto.randomUUID();
    return this.#use(async (kv) => {
      await kv.set(["warden", "bus", channel, Date.now(), id], message, { expireIn: BUS_KEEP_MS });
    });
  }

  /** Subscribes `listener`; the first subscription starts polling. */
  subscribe(channel: string, listener: (message: string) => void): Promise<() => void> {
    let listeners = this.#channels.get(channel);
    if (listeners === undefined) this.#channels.set(channel, listeners = new Set());
    const own = listeners;
    const wrapped = (message: string): void => listener(message);
    own.add(wrapped);
    this.#timer ??= setTimeout(() => this.#poll(), this.#pollMs);
    return Promise.resolve(() => own.delete(wrapped));
  }

  async #poll(): Promise<void> {
    const from = this.#since - BUS_LOOKBACK_MS;
    const started = Date.now();
    try {
      await this.#use(async (kv) => {
        for (const [channel, listeners] of this.#channels) {
          const prefix = ["warden", "bus", channel];
          for await (
            const entry of kv.list({ start: [...prefix, from], end: [...prefix, Infinity] })
          ) {
            const id = String(entry.key[4]);
            const at = Number(entry.key[3]);
            if (this.#seen.has(id) || typeof entry.value !== "string") continue;
            this.#seen.set(id, at);
            for (const listener of [...listeners]) listener(entry.value);
          }
        }
      });
      this.#since = started;
      for (const [id, at] of this.#seen) if (at < from) this.#seen.delete(id);
    } catch {
      // Reported once by #use; the next poll retries.
    }
    if (!this.#closed) this.#timer = setTimeout(() => this.#poll(), this.#pollMs);
  }

  /** Stops polling and closes the database. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#timer);
    try {
      (await this.#kv).close();
    } catch {
      // It never opened: nothing to close.
    }
  }
}

/** Options for {@linkcode KvStore}. */
export type KvStoreOptions = NonNullable<ConstructorParameters<typeof KvStore>[1]>;
