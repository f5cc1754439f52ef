/**
 * `subscriptions/listen` (revision 2026-07-28): the open subscriptions of a
 * server, which change notifications each one asked for, and their end.
 *
 * @module
 */

import { isRecord, type JsonRpcParams } from "../../jsonrpc/messages.ts";
import { invalidParamsError } from "../../jsonrpc/errors.ts";
import type { ListName } from "../../store/change_bus.ts";

/** The notification kinds a client can ask for, as acknowledged. */
export interface SubscriptionFilter {
  toolsListChanged?: true;
  promptsListChanged?: true;
  resourcesListChanged?: true;
  resourceSubscriptions?: string[];
  /** Tasks whose status changes are sent (`notifications/tasks`, tasks extension). */
  taskIds?: string[];
}

/** The most resource URIs one subscription may name (and one legacy session subscribe to). */
export const MAX_SUBSCRIBED_URIS = 1000;

const LIST_FLAGS: Readonly<
  Record<ListName, "toolsListChanged" | "promptsListChanged" | "resourcesListChanged">
> = {
  tools: "toolsListChanged",
  prompts: "promptsListChanged",
  resources: "resourcesListChanged",
};

/** Reads a listen request's `notifications` filter. */
export function parseFilter(params: JsonRpcParams): {
  flags: SubscriptionFilter;
  uris: readonly string[] | undefined;
  taskIds: readonly string[] | undefined;
} {
  const filter = params.notifications;
  if (!isRecord(filter)) throw invalidParamsError("notifications must be an object");
  const flags: SubscriptionFilter = {};
  for (const flag of Object.values(LIST_FLAGS)) {
    const value = filter[flag];
    if (value !== undefined && typeof value !== "boolean") {
      throw invalidParamsError(`notifications.${flag} must be a boolean`);
    }
    if (value === true) flags[flag] = true;
  }
  const taskIds = filter.taskIds;
  if (
    taskIds !== undefined &&
    (!Array.isArray(taskIds) || !taskIds.every((id) => typeof id === "string"))
  ) {
    throw invalidParamsError("notifications.taskIds must be a list of task ids");
  }
  if (Array.isArray(taskIds) && taskIds.length > MAX_SUBSCRIBED_URIS) {
    throw invalidParamsError(`notifications.taskIds names more than ${MAX_SUBSCRIBED_URIS} tasks`);
  }
  const tasks = taskIds === undefined ? undefined : [...new Set(taskIds as string[])];
  const uris = filter.resourceSubscriptions;
  if (uris === undefined) return { flags, uris: undefined, taskIds: tasks };
  if (!Array.isArray(uris) || !uris.every((uri) => typeof uri === "string")) {
    throw invalidParamsError("notifications.resourceSubscriptions must be a list of URIs");
  }
  if (uris.length > MAX_SUBSCRIBED_URIS) {
    throw invalidParamsError(
      `notifications.resourceSubscriptions names more than ${MAX_SUBSCRIBED_URIS} URIs`,
    );
  }
  return { flags, uris: [...new Set(uris)], taskIds: tasks };
}

/** One open subscription. */
export interface Subscription {
  /** The connection it was opened on (its subscriptions end with its input). */
  readonly owner: object;
  /** The principal of the request that opened it. */
  readonly principal: string | undefined;
  /** What it was acknowledged for. */
  readonly filter: SubscriptionFilter;
  /** Sends a notification on it (tagged with its id). */
  send(method: string, params: Record<string, unknown>): void;
  /** Ends it gracefully (the listen request then answers). */
  end(): void;
}

/** The open subscriptions of one server. */
export class SubscriptionHub {
  readonly #open = new Set<Subscription>();

  /** How many are open. */
  get size(): number {
    return this.#open.size;
  }

  /** Adds a subscription; returns its removal. */
  add(subscription: Subscription): () => void {
    this.#open.add(subscription);
    return () => this.#open.delete(subscription);
  }

  /** Tells the subscriptions that asked for it that `list` changed. */
  listChanged(list: ListName): void {
    const flag = LIST_FLAGS[list];
    for (const subscription of this.#open) {
      if (subscription.filter[flag] === true) {
        subscription.send(`notifications/${list}/list_changed`, {});
      }
    }
  }

  /** Tells the subscriptions to `uri` that may see it that it changed. */
  resourceUpdated(uri: string, visible: (principal: string | undefined) => boolean): void {
    for (const subscription of this.#open) {
      if (
        subscription.filter.resourceSubscriptions?.includes(uri) === true &&
        visible(subscription.principal)
      ) {
        subscription.send("notifications/resources/updated", { uri });
      }
    }
  }

  /** Sends a task's new state to the subscriptions of its principal that follow it. */
  taskChanged(taskId: string, principal: string | null, task: Record<string, unknown>): void {
    for (const subscription of this.#open) {
      if (
        subscription.filter.taskIds?.includes(taskId) === true &&
        (subscription.principal ?? null) === principal
      ) {
        subscription.send("notifications/tasks", task);
      }
    }
  }

  /** Ends every subscription gracefully (at shutdown). */
  endAll(): void {
    for (const subscription of [...this.#open]) subscription.end();
  }

  /** Ends the subscriptions opened on `owner` (its client closed its input). */
  endFor(owner: object): void {
    for (const subscription of [...this.#open]) {
      if (subscription.owner === owner) subscription.end();
    }
  }
}
