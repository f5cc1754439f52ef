/**
 * Where the rate limiter keeps its token buckets between calls: the
 * {@linkcode BucketStore} interface, and {@linkcode MemoryBucketStore}, a
 * bounded in-process implementation.
 *
 * @module
 */

import type { TokenBucket } from "./token_bucket.ts";

/**
 * Where {@linkcode createRateLimiter} keeps buckets between calls. Both
 * methods are synchronous, which is what makes the limiter exact: a call
 * reads, decides and writes with no `await` in between.
 *
 * @example A store that counts writes
 * ```ts
 * import { type BucketStore, MemoryBucketStore } from "./bucket_store.ts";
 * import { type TokenBucket } from "./token_bucket.ts";
 * class CountingStore implements BucketStore {
 *   readonly inner = new MemoryBucketStore();
 *   writes = 0;
 *   get(key: string): TokenBucket | undefined {
 *     return this.inner.get(key);
 *   }
 *   set(key: string, bucket: TokenBucket): void {
 *     this.writes++;
 *     this.inner.set(key, bucket);
 *   }
 * }
 * ```
 */
export interface BucketStore {
  /** The bucket under `key`, or `undefined` if there is none. */
  get(key: string): TokenBucket | undefined;
  /** Stores `bucket` under `key`. */
  set(key: string, bucket: TokenBucket): void;
}

/** Options for {@linkcode MemoryBucketStore}. */
export interface MemoryBucketStoreOptions {
  /**
   * The most buckets kept; beyond it the least recently used is dropped.
   * @default {10000}
   */
  maxKeys?: number;
}

/**
 * A {@linkcode BucketStore} in a `Map`, for one process.
 *
 * It grows with the number of buckets in use, up to principals × items ×
 * rules, so it keeps at most `maxKeys` and drops the least recently used.
 * A dropped bucket comes back full, which only matters if it was not full
 * already: size `maxKeys` well above the buckets active within a refill
 * period, or a caller cycling through many principals could reset others.
 *
 * @example Usage
 * ```ts
 * import { MemoryBucketStore } from "./bucket_store.ts";
 * const store = new MemoryBucketStore({ maxKeys: 2 });
 * store.set("a", { tokens: 1, updatedAt: 0 });
 * store.set("b", { tokens: 1, updatedAt: 0 });
 * store.set("c", { tokens: 1, updatedAt: 0 });
 * console.assert(store.get("a") === undefined && store.size === 2);
 * ```
 */
export class MemoryBucketStore implements BucketStore {
  // A Map for lookup plus a doubly linked list in order of use, oldest
  // first. Touching a key relinks two nodes instead of deleting and
  // re-inserting it in the Map, which on a small Map reallocates its table.
  readonly #entries = new Map<string, Entry>();
  #oldest: Entry | undefined;
  #newest: Entry | undefined;
  readonly #maxKeys: number;

  /**
   * Creates an empty store.
   *
   * @param options How many buckets to keep.
   * @throws {RangeError} If `maxKeys` is not an integer above 0.
   */
  constructor(options: MemoryBucketStoreOptions = {}) {
    const maxKeys = options.maxKeys ?? 10_000;
    if (!Number.isSafeInteger(maxKeys) || maxKeys < 1) {
      throw new RangeError(
        `Invalid bucket store: maxKeys must be an integer above 0, got ${maxKeys}`,
      );
    }
    this.#maxKeys = maxKeys;
  }

  /** How many buckets are stored. */
  get size(): number {
    return this.#entries.size;
  }

  /** The bucket under `key`, marking it recently used. */
  get(key: string): TokenBucket | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#touch(entry);
    return entry.bucket;
  }

  /** Stores `bucket`, dropping the least recently used bucket if over `maxKeys`. */
  set(key: string, bucket: TokenBucket): void {
    const entry = this.#entries.get(key);
    if (entry !== undefined) {
      entry.bucket = bucket;
      this.#touch(entry);
      return;
    }
    const added: Entry = { key, bucket, older: this.#newest, newer: undefined };
    if (this.#newest === undefined) this.#oldest = added;
    else this.#newest.newer = added;
    this.#newest = added;
    this.#entries.set(key, added);
    if (this.#entries.size > this.#maxKeys) {
      const oldest = this.#oldest;
      if (oldest !== undefined) this.#unlink(oldest);
    }
  }

  /** Moves `entry` to the newest end of the list. */
  #touch(entry: Entry): void {
    const newest = this.#newest;
    if (entry === newest || newest === undefined) return;
    // Unlink; `entry` is not the newest, so it has a newer neighbour.
    const { older, newer } = entry;
    if (newer !== undefined) newer.older = older;
    if (older === undefined) this.#oldest = newer;
    else older.newer = newer;
    entry.older = newest;
    entry.newer = undefined;
    newest.newer = entry;
    this.#newest = entry;
  }

  /** Drops `entry` from the list and the Map. */
  #unlink(entry: Entry): void {
    const { older, newer } = entry;
    if (older === undefined) this.#oldest = newer;
    else older.newer = newer;
    if (newer === undefined) this.#newest = older;
    else newer.older = older;
    this.#entries.delete(entry.key);
  }
}

/** A stored bucket and its neighbours in order of use. */
interface Entry {
  readonly key: string;
  bucket: TokenBucket;
  /** The entry used just before this one; `undefined` for the oldest. */
  older: Entry | undefined;
  /** The entry used just after this one; `undefined` for the newest. */
  newer: Entry | undefined;
}
