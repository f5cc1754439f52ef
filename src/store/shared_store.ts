/**
 * The store seam for state that several server instances share: rate-limit
 * buckets, the MRTR sealing key, the list-change bus (and, later, tasks).
 * {@linkcode SharedStore} names the few primitives those features need;
 * `memory_store.ts`, `redis_store.ts` and `kv_store.ts` implement it.
 *
 * @module
 */

/**
 * One bucket a take draws from: its key, its size and refill, and the cost.
 *
 * @example An export that costs a tenant five of its thirty tokens
 * ```ts
 * import { type BucketTake, MemoryStore } from "@warden/mcp/store";
 * const store = new MemoryStore();
 * const exportCost: BucketTake = {
 *   key: "tenant:acme",
 *   capacity: 30,
 *   refillPerSecond: 0.5,
 *   cost: 5,
 * };
 * const result = await store.take([exportCost]);
 * ```
 */
export interface BucketTake {
  /** The bucket's key (the store adds its own prefix). */
  readonly key: string;
  /** The most tokens the bucket holds, above 0. */
  readonly capacity: number;
  /** Tokens added per second, above 0. */
  readonly refillPerSecond: number;
  /** Tokens to take, above 0 and at most `capacity`. */
  readonly cost: number;
}

/**
 * State shared by the server instances that open the same store. Every
 * method may reject with {@linkcode StoreUnavailableError} while the backend
 * cannot be reached; none of them throws for that synchronously.
 *
 * @example A store in memory, for one process
 * ```ts
 * import { MemoryStore } from "@warden/mcp/store";
 * const store = new MemoryStore();
 * await store.set("greeting", "hello", { ttlMs: 1000 });
 * console.assert((await store.get("greeting")) === "hello");
 * ```
 */
export interface SharedStore {
  /** Which backend this is, for messages and telemetry. */
  readonly kind: "memory" | "redis" | "kv";
  /**
   * Takes `cost` from every bucket, all or nothing, atomically across every
   * instance sharing the store. A missing bucket starts full.
   */
  take(buckets: readonly BucketTake[]): Promise<
    | { readonly allowed: true }
    | {
      readonly allowed: false;
      /** Whole seconds until every refusing bucket can pay, at least 1. */
      readonly retryAfterSeconds: number;
      /** Indexes in the request of the buckets that refused. */
      readonly refused: readonly number[];
    }
  >;
  /** The value under `key`, or `undefined`. */
  get(key: string): Promise<string | undefined>;
  /**
   * Stores `value`; answers false when `ifAbsent` found a value already.
   * `ttlMs` is how long the value lives (until overwritten when absent);
   * `ifAbsent` writes only if the key holds nothing (set-if-absent).
   */
  set(
    key: string,
    value: string,
    options?: { readonly ttlMs?: number; readonly ifAbsent?: boolean },
  ): Promise<boolean>;
  /** Sends `message` to every subscriber of `channel`, on every instance (this one too). */
  publish(channel: string, message: string): Promise<void>;
  /** Calls `listener` with each message on `channel`; resolves to the unsubscribe. */
  subscribe(channel: string, listener: (message: string) => void): Promise<() => void>;
  /** Releases the connection; the store is unusable afterwards. */
  close(): Promise<void>;
}

/** The outcome of {@linkcode SharedStore.take}: all taken, or none and which refused. */
export type BucketTakeResult = Awaited<ReturnType<SharedStore["take"]>>;

/** Options for {@linkcode SharedStore.set}: a time to live, and set-if-absent. */
export type SetOptions = NonNullable<Parameters<SharedStore["set"]>[2]>;

/**
 * The backend of a {@linkcode SharedStore} cannot be reached (or answered
 * too late). Callers decide what that means: the rate limiter refuses the
 * call unless configured to fail open.
 *
 * @example
 * ```ts
 * import { StoreUnavailableError } from "@warden/mcp/store";
 * const error = new StoreUnavailableError("redis", "connection refused");
 * console.assert(error.message.startsWith("Shared store unavailable"));
 * ```
 */
export class StoreUnavailableError extends Error {
  /** The backend's kind. */
  readonly kind: string;

  /**
   * Creates the error.
   *
   * @param kind The backend, e.g. `redis`.
   * @param reason What went wrong.
   */
  constructor(kind: string, reason: string) {
    super(`Shared store unavailable: ${kind}: ${reason}`);
    this.name = "StoreUnavailableError";
    this.kind = kind;
  }
}
