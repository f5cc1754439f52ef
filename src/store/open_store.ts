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
import { describeUrl } from "./outage.ts";
import { type SharedStore, StoreUnavailableError } from "./shared_store.ts";

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

/**
 * Opens the store a URL names and waits until it can be used: a server
 * started on a store it cannot reach (refused, timed out, not permitted)
 * should say so and stop, not print "ready" and retry forever. On failure
 * the store is closed, so nothing of it keeps the process alive.
 *
 * @param url A URL accepted by {@linkcode checkStoreUrl}.
 * @param options The outage log (for later outages) and how long to wait.
 * @returns The store, reachable.
 * @throws {StoreUnavailableError} When it cannot be reached; the message names it and says why.
 *
 * @example
 * ```ts
 * import { openReadyStore } from "./open_store.ts";
 * const store = await openReadyStore("memory");
 * console.assert(store.kind === "memory");
 * ```
 */
export async function openReadyStore(
  url: string,
  options: {
    /**
     * Where later outages and recoveries are reported, once each.
     * @default {console.error}
     */
    log?: (message: string) => void;
    /**
     * How long to wait for the first connection, in ms.
     * @default {5000}
     */
    timeoutMs?: number;
  } = {},
): Promise<SharedStore> {
  const store = openStore(url, options.log === undefined ? {} : { log: options.log });
  try {
    if (store instanceof RedisStore) await store.ready(options.timeoutMs);
    else if (store instanceof KvStore) await store.ready();
    return store;
  } catch (error) {
    await store.close().catch(() => {});
    const reason = error instanceof Error ? error.message : String(error);
    const detail = reason.replace(/^Shared store unavailable: [a-z]+: /, "");
    throw new StoreUnavailableError(
      store.kind,
      detail.startsWith(describeUrl(url)) ? detail : `${describeUrl(url)}: ${detail}`,
    );
  }
}
