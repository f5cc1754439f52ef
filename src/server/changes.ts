/**
 * Where a change to a list or a resource goes: this instance's live legacy
 * sessions and modern subscriptions, and, through the shared store's change
 * bus (issue 17), the clients of every other instance on the same store.
 *
 * @module
 */

import { canonicalUri } from "../core/canonical_uri.ts";
import type { SubscriptionHub } from "../eras/modern/subscriptions.ts";
import { type ChangeBus, joinChangeBus, type ListName } from "../store/change_bus.ts";
import type { SharedStore } from "../store/shared_store.ts";
import type { LiveSessions } from "./live_sessions.ts";

/** Whether a client acting for `principal` may see the resource `uri`. */
export type ResourceVisibility = (uri: string, principal: string | undefined) => boolean;

/** The changes of one server, delivered here and published to the other instances. */
export class ChangeFeed {
  readonly #live: LiveSessions;
  readonly #subscriptions: SubscriptionHub;
  readonly #visible: ResourceVisibility;
  #bus: ChangeBus | undefined;

  constructor(live: LiveSessions, subscriptions: SubscriptionHub, visible: ResourceVisibility) {
    this.#live = live;
    this.#subscriptions = subscriptions;
    this.#visible = visible;
  }

  /**
   * Joins the store's change bus, so that the other instances' changes are
   * delivered here and this one's published to them.
   */
  join(store: SharedStore, log: (message: string) => void): void {
    this.#bus = joinChangeBus(store, (change) => {
      if ("list" in change) this.#deliverList(change.list);
      else this.#deliverResource(change.uri);
    }, log);
  }

  /** `list` changed here: tells this instance's clients and the other instances. */
  listChanged(list: ListName): void {
    this.#deliverList(list);
    this.#bus?.publish({ list });
  }

  /** The resource `uri` changed here: tells this instance's clients and the other instances. */
  resourceUpdated(uri: string): void {
    // Subscriptions are kept by canonical URI, whatever spelling the server uses here.
    const canonical = canonicalUri(uri);
    if (typeof canonical === "string") uri = canonical;
    this.#deliverResource(uri);
    this.#bus?.publish({ uri });
  }

  /** Leaves the change bus. */
  close(): void {
    this.#bus?.close();
  }

  #deliverList(list: ListName): void {
    this.#live.listChanged(list);
    this.#subscriptions.listChanged(list);
  }

  #deliverResource(uri: string): void {
    const visible = this.#visible;
    const mayRead = (principal: string | undefined): boolean => visible(uri, principal);
    this.#live.resourceUpdated(uri, mayRead);
    this.#subscriptions.resourceUpdated(uri, mayRead);
  }
}
