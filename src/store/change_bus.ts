/**
 * The list-change and resource-update bus: a change on one instance is
 * published through the shared store, and every other instance delivers it
 * to its own clients without publishing it again.
 *
 * @module
 */

import { isRecord } from "../jsonrpc/messages.ts";
import { type SharedStore, StoreUnavailableError } from "./shared_store.ts";

/** A list a change is announced for. */
export type ListName = "tools" | "resources" | "prompts";

const CHANNEL = "changes";
const LISTS: ReadonlySet<string> = new Set(["tools", "prompts", "resources"]);

/** A change, as carried on the bus. */
export type Change = { readonly list: ListName } | { readonly uri: string };

/** What {@linkcode joinChangeBus} returns. */
export interface ChangeBus {
  /** Publishes a local change to the other instances (failures are logged, not thrown). */
  publish(change: Change): void;
  /** Leaves the bus. */
  close(): void;
}

function isListName(value: unknown): value is ListName {
  return typeof value === "string" && LISTS.has(value);
}

/**
 * Joins the bus: `deliver` receives the changes other instances publish
 * (never this instance's own, which it has delivered already).
 *
 * @example
 * ```ts ignore
 * const bus = joinChangeBus(store, (change) => console.log(change), console.error);
 * bus.publish({ list: "tools" });
 * ```
 */
export function joinChangeBus(
  store: SharedStore,
  deliver: (change: Change) => void,
  log: (message: string) => void,
): ChangeBus {
  const origin = crypto.randomUUID();
  let unsubscribe: (() => void) | undefined;
  let closed = false;
  store.subscribe(CHANNEL, (text) => {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (!isRecord(message) || message.origin === origin) return;
    if (isListName(message.list)) deliver({ list: message.list });
    else if (typeof message.uri === "string") deliver({ uri: message.uri });
  }).then((stop) => {
    if (closed) stop();
    else unsubscribe = stop;
  }, (error: unknown) => log(`warden: cannot join the change bus: ${String(error)}`));
  return {
    publish(change) {
      store.publish(CHANNEL, JSON.stringify({ origin, ...change })).catch((error: unknown) => {
        // An outage is reported once by the store itself; anything else is news.
        if (error instanceof StoreUnavailableError) return;
        log(`warden: a change was not shared with other instances: ${String(error)}`);
      });
    },
    close() {
      closed = true;
      unsubscribe?.();
    },
  };
}
