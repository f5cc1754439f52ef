/**
 * The MRTR `requestState` sealing key, shared through a store so that a state
 * sealed by one instance opens on any other: generated once by whichever
 * instance comes first (set-if-absent), and rotated with the old key still
 * accepted for one state TTL.
 *
 * @module
 */

import { isRecord } from "../jsonrpc/messages.ts";
import type { SharedStore } from "./shared_store.ts";

/** A key as configured: a secret string (at least 32 characters) or 32+ random bytes. */
export type StateSecret = string | Uint8Array;

/**
 * Where the keys come from when instances share them: called for the current
 * list (first seals), again after `refreshMs`, and when a state names a key
 * not in hand (another instance may have rotated).
 */
export interface SecretSource {
  /** The keys, current first. */
  load(): Promise<readonly StateSecret[]>;
  /** How long a loaded list is used before it is loaded again, in ms. */
  readonly refreshMs: number;
}

const KEY = "mrtr:keys";

/** One stored key: base64 secret, and when it stops opening states (absent for the current one). */
interface StoredKey {
  readonly secret: string;
  readonly until?: number;
}

function parseKeys(text: string | undefined): StoredKey[] | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(value)) return undefined;
  const keys: StoredKey[] = [];
  for (const item of value) {
    if (!isRecord(item) || typeof item.secret !== "string") return undefined;
    keys.push(
      typeof item.until === "number" ? { secret: item.secret, until: item.until } : {
        secret: item.secret,
      },
    );
  }
  return keys.length > 0 ? keys : undefined;
}

function newSecret(): string {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
}

function decode(secret: string): Uint8Array {
  return Uint8Array.from(atob(secret), (c) => c.charCodeAt(0));
}

/**
 * The sealing keys kept in `store`, for `StateSealer`: the first instance to
 * ask creates the key (set-if-absent, so racing instances agree), the others
 * read it. Keys past their `until` are dropped.
 *
 * @param store The shared store.
 * @param refreshMs How long a loaded list is used before it is read again.
 * @returns The key source.
 *
 * @example
 * ```ts ignore
 * const source = storedStateSecrets(store, 30_000);
 * ```
 */
export function storedStateSecrets(store: SharedStore, refreshMs = 30_000): SecretSource {
  return {
    refreshMs,
    async load() {
      let keys = parseKeys(await store.get(KEY));
      if (keys === undefined) {
        await store.set(KEY, JSON.stringify([{ secret: newSecret() }]), { ifAbsent: true });
        keys = parseKeys(await store.get(KEY));
      }
      if (keys === undefined) throw new Error("Cannot read the shared sealing key");
      const now = Date.now();
      return keys.filter((key) => key.until === undefined || key.until > now).map((key) =>
        decode(key.secret)
      );
    },
  };
}

/**
 * Puts a new sealing key first; the previous one keeps opening states for
 * `ttlMs` (the request state TTL). Run it from one place (a deploy step or a
 * scheduled job): two concurrent rotations keep only one of the new keys.
 *
 * @param store The shared store.
 * @param ttlMs How long the old key is still accepted, in ms.
 *
 * @example
 * ```ts ignore
 * import { openStore, rotateStateKey } from "@warden/mcp/store";
 * await rotateStateKey(openStore("redis://127.0.0.1:6379/0"), 600_000);
 * ```
 */
export async function rotateStateKey(store: SharedStore, ttlMs: number): Promise<void> {
  const now = Date.now();
  const old = (parseKeys(await store.get(KEY)) ?? []).filter((key) =>
    key.until === undefined || key.until > now
  ).map((key) => ({ secret: key.secret, until: Math.min(key.until ?? Infinity, now + ttlMs) }));
  await store.set(KEY, JSON.stringify([{ secret: newSecret() }, ...old]));
}
