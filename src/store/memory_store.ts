/**
 * {@linkcode MemoryStore}: the default {@linkcode SharedStore}, in process
 * memory. It shares nothing between processes; what it offers is the same
 * seam with none of the cost, and synchronous buckets for the rate limiter.
 *
 * @module
 */

import { type BucketStore, MemoryBucketStore } from "./bucket_store.ts";
import type { BucketTake, SharedStore } from "./shared_store.ts";
import { takeBuckets } from "./take_buckets.ts";

/**
 * The synchronous buckets of each in-process store. With them the rate
 * limiter decides with no `await`, exactly as without a store; they are
 * kept off the public `SharedStore` seam, which every backend implements.
 */
const LOCAL_BUCKETS = new WeakMap<SharedStore, BucketStore>();

/** The synchronous bucket store of an in-process `store`, or undefined for any other backend. */
export function localBuckets(store: SharedStore | undefined): BucketStore | undefined {
  return store === undefined ? undefined : LOCAL_BUCKETS.get(store);
}

interface Stored {
  readonly value: string;
  readonly expires: number;
}

/**
 * A {@linkcode SharedStore} for one process.
 *
 * @example
 * ```ts
 * import { MemoryStore } from "@warden/mcp/store";
 * const store = new MemoryStore({ now: () => 0 });
 * const take = [{ key: "k", capacity: 1, refillPerSecond: 1, cost: 1 }];
 * console.assert((await store.take(take)).allowed);
 * console.assert(!(await store.take(take)).allowed);
 * ```
 */
export class MemoryStore implements SharedStore {
  /** Always `"memory"`. */
  readonly kind = "memory" as const;
  readonly #bucketMap: MemoryBucketStore;
  readonly #values = new Map<string, Stored>();
  readonly #channels = new Map<string, Set<(message: string) => void>>();
  readonly #now: () => number;

  /**
   * Creates an empty store.
   *
   * @param options The bucket limit and the clock.
   * @throws {RangeError} If `maxBuckets` is not an integer above 0.
   */
  constructor(options: {
    /**
     * The most token buckets kept (least recently used dropped first).
     * @default {10000}
     */
    maxBuckets?: number;
    /**
     * The clock, in ms since the epoch (bucket refills, value expiry).
     * @default {Date.now}
     */
    now?: () => number;
  } = {}) {
    this.#bucketMap = new MemoryBucketStore({ maxKeys: options.maxBuckets ?? 10_000 });
    LOCAL_BUCKETS.set(this, this.#bucketMap);
    this.#now = options.now ?? Date.now;
  }

  /** Takes from every bucket or none (see {@linkcode SharedStore.take}). */
  take(takes: readonly BucketTake[]): ReturnType<SharedStore["take"]> {
    try {
      const current = takes.map((take) => this.#bucketMap.get(take.key));
      const { result, writes } = takeBuckets(takes, current, this.#now());
      writes.forEach((bucket, index) => {
        const take = takes[index];
        if (take !== undefined) this.#bucketMap.set(take.key, bucket);
      });
      return Promise.resolve(result);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** The value under `key` unless it expired. */
  get(key: string): Promise<string | undefined> {
    return Promise.resolve(this.#read(key));
  }

  /** Stores `value` (see {@linkcode SharedStore.set}); check and write with no `await` between. */
  set(
    key: string,
    value: string,
    options: Parameters<SharedStore["set"]>[2] = {},
  ): Promise<boolean> {
    if (options.ifAbsent === true && this.#read(key) !== undefined) return Promise.resolve(false);
    const expires = options.ttlMs === undefined ? Infinity : this.#now() + options.ttlMs;
    this.#values.set(key, { value, expires });
    return Promise.resolve(true);
  }

  #read(key: string): string | undefined {
    const stored = this.#values.get(key);
    if (stored === undefined) return undefined;
    if (stored.expires <= this.#now()) {
      this.#values.delete(key);
      return undefined;
    }
    return stored.value;
  }

  /** Delivers `message` to this process's subscribers, after the current task. */
  publish(channel: string, message: string): Promise<void> {
    const listeners = this.#channels.get(channel);
    if (listeners !== undefined) {
      for (const listener of [...listeners]) queueMicrotask(() => listener(message));
    }
    return Promise.resolve();
  }

  /** Subscribes `listener` to `channel`. */
  subscribe(channel: string, listener: (message: string) => void): Promise<() => void> {
    let listeners = this.#channels.get(channel);
    if (listeners === undefined) this.#channels.set(channel, listeners = new Set());
    const own = listeners;
    const wrapped = (message: string): void => listener(message);
    own.add(wrapped);
    return Promise.resolve(() => own.delete(wrapped));
  }

  /** Drops every subscription. */
  close(): Promise<void> {
    this.#channels.clear();
    return Promise.resolve();
  }
}

/** Options for {@linkcode MemoryStore}. */
export type MemoryStoreOptions = NonNullable<ConstructorParameters<typeof MemoryStore>[0]>;
