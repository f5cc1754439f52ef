/**
 * Cache hints an item can carry (revision 2026-07-28's `ttlMs` and
 * `cacheScope`), and their checks at registration.
 *
 * @module
 */

/** Who may reuse a cached result. */
export type CacheScope = "public" | "private";

/**
 * Cache hints of one item (a tool, prompt, resource or template).
 *
 * @example A resource that changes once a day and is the same for everyone
 * ```ts
 * import type { ItemCache } from "@warden/mcp";
 * const cache: ItemCache = { ttlMs: 86_400_000, scope: "public" };
 * ```
 */
export interface ItemCache {
  /**
   * How long a result that includes the item stays fresh, in ms. A list
   * takes the shortest of its items' and the server's.
   */
  ttlMs?: number;
  /**
   * For a resource or template read: whether a shared cache may serve the
   * content to another caller. Ignored (always "private") when an access
   * policy can hide items from some callers or requests are authenticated.
   * @default {"private"}
   */
  scope?: "public" | "private";
}

/** Checks a TTL option; throws a RangeError naming it. */
export function checkTtl(value: unknown, name: string): void {
  if (value === undefined) return;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a whole number of milliseconds >= 0`);
  }
}

/** Checks an item's `cache` field at registration. */
export function checkItemCache(cache: unknown, label: string): void {
  if (cache === undefined) return;
  if (typeof cache !== "object" || cache === null) {
    throw new TypeError(`${label}: cache must be an object`);
  }
  const { ttlMs, scope } = cache as Record<string, unknown>;
  checkTtl(ttlMs, `${label}: cache.ttlMs`);
  if (scope !== undefined && scope !== "public" && scope !== "private") {
    throw new TypeError(`${label}: cache.scope must be "public" or "private"`);
  }
}
