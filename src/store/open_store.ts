/**
 * Store URLs, as the policy file's `"store"` and the `--store` flag give
 * them: `memory`, `redis://host:port/db` (or `rediss://`), `kv:PATH`, or
 * `kv:` for Deno KV's default database.
 *
 * @module
 */

import { KvStore } from "./kv_store.ts";
import { MemoryStore } from "./memory_store.ts";
import { RedisStore } from "./redis_store.ts";
import type { SharedStore } from "./shared_store.ts";

/**
 * Checks a store URL; the error says what is accepted.
 *
 * @param value The URL.
 * @param where Where it came from, for the message (e.g. `store`, `--store`).
 * @returns The URL, unchanged.
 * @throws {TypeError} If `value` is not a string.
 * @throws {RangeError} If it names no supported store.
 *
 * @example
 * ```ts
 * import { checkStoreUrl } from "./open_store.ts";
 * checkStoreUrl("redis://127.0.0.1:6379/0", "store");
 * ```
 */
export function checkStoreUrl(value: unknown, where: string): string {
  if (typeof value !== "string") {
    throw new TypeError(`${where} must be a string, got ${value === null ? "null" : typeof value}`);
  }
  if (value === "memory" || value.startsWith("kv:")) return value;
  if (/^rediss?:\/\//.test(value)) {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new RangeError(`${where} is not a valid redis URL: ${JSON.stringify(value)}`);
    }
    if (url.hostname.length === 0) {
      throw new RangeError(`${where} needs a host in ${JSON.stringify(value)}`);
    }
    if (!/^(\/[0-9]*)?$/.test(url.pathname)) {
      throw new RangeError(
        `${where} needs a database number after the port, got ${JSON.stringify(url.pathname)}`,
      );
    }
    return value;
  }
  throw new RangeError(
    `${where} must be "memory", "redis://HOST:PORT/DB" or "kv:PATH" ("kv:" for the default database), got ${
      JSON.stringify(value)
    }`,
  );
}

/**
 * Opens the store a URL names. Connections open in the background; an
 * unreachable backend is reported once on stderr, and the store's methods
 * reject until it is back.
 *
 * @param url A URL accepted by {@linkcode checkStoreUrl}.
 * @param options The outage log.
 * @returns The store.
 * @throws {RangeError} If the URL names no supported store.
 *
 * @example
 * ```ts
 * import { openStore } from "@warden/mcp/store";
 * const store = openStore("memory");
 * console.assert(store.kind === "memory");
 * ```
 */
export function openStore(
  url: string,
  options: {
    /**
     * Where outages and recoveries are reported, once each.
     * @default {console.error}
     */
    log?: (message: string) => void;
  } = {},
): SharedStore {
  checkStoreUrl(url, "store");
  const log = options.log === undefined ? {} : { log: options.log };
  if (url === "memory") return new MemoryStore();
  if (url.startsWith("kv:")) return new KvStore(url.slice("kv:".length), log);
  return new RedisStore(url, log);
}
