/**
 * Cache hints of revision 2026-07-28 (`ttlMs`, `cacheScope`) on discover,
 * the lists and resource reads: how long a result may be reused, and
 * whether a shared cache may hand it to another caller.
 *
 * @module
 */

import type { CacheScope, ItemCache } from "../../core/cache.ts";

/**
 * The server's cache hints (`createServer({ cache })`).
 *
 * @example Short-lived lists, cacheable reads
 * ```ts
 * import type { CacheOptions } from "@warden/mcp";
 * const cache: CacheOptions = { ttlMs: 30_000, readTtlMs: 5_000 };
 * ```
 */
export interface CacheOptions {
  /**
   * Freshness of `server/discover` and the list results, in ms.
   * @default {60000}
   */
  ttlMs?: number;
  /**
   * Freshness of `resources/read` results, in ms, unless the item says otherwise.
   * @default {0}
   */
  readTtlMs?: number;
}

/** The hints one result carries. */
export interface CacheHints {
  /** Freshness in ms, >= 0. */
  readonly ttlMs: number;
  /** Who may reuse it. */
  readonly cacheScope: CacheScope;
}

/**
 * The hints of a list result: the shortest TTL of the server's and the
 * listed items', private when what is listed can differ by caller.
 */
export function listHints(
  serverTtlMs: number,
  items: Iterable<ItemCache | undefined>,
  variesByCaller: boolean,
): CacheHints {
  let ttlMs = serverTtlMs;
  for (const cache of items) {
    if (cache?.ttlMs !== undefined && cache.ttlMs < ttlMs) ttlMs = cache.ttlMs;
  }
  return { ttlMs, cacheScope: variesByCaller ? "private" : "public" };
}

/** The hints of a read: the item's own, else the server's read TTL; private unless declared public. */
export function readHints(
  readTtlMs: number,
  cache: ItemCache | undefined,
  variesByCaller: boolean,
): CacheHints {
  return {
    ttlMs: cache?.ttlMs ?? readTtlMs,
    cacheScope: !variesByCaller && cache?.scope === "public" ? "public" : "private",
  };
}
