/**
 * The server options of the tasks extension (revision 2026-07-28).
 *
 * @module
 */

import type { SharedStore } from "../../store/shared_store.ts";
import { SharedTaskStore } from "./shared_task_store.ts";
import { MemoryTaskStore } from "./memory_task_store.ts";
import type { TaskStore } from "./store.ts";

/**
 * How tools run as tasks.
 *
 * @example
 * ```ts
 * import type { TaskOptions } from "@warden/mcp/tasks";
 * const tasks: TaskOptions = { ttlMs: 15 * 60_000, pollIntervalMs: 2000 };
 * ```
 */
export interface TaskOptions {
  /**
   * Where tasks are kept; the server closes it on `close()`.
   * @default {a SharedTaskStore on the server's `store` when one is given, else a MemoryTaskStore: 1000 tasks, 16 MiB; either keeps `quotas.tasks` (100) per principal}
   */
  store?: TaskStore;
  /**
   * How long a task (and its result) is kept after creation, in ms; null
   * keeps it for as long as the store does (the memory store: until
   * `close()`), so a finished task then holds its place in the store's bounds.
   * @default {3600000} (1 hour)
   */
  ttlMs?: number | null;
  /**
   * The polling interval suggested to clients, in ms.
   * @default {1000}
   */
  pollIntervalMs?: number;
}

/** Task options with every default filled in. */
export interface ResolvedTaskOptions {
  readonly store: TaskStore;
  readonly ttlMs: number | null;
  readonly pollIntervalMs: number;
}

/**
 * Checks the task options and fills in the defaults; `shared` is the
 * server's shared store, `maxTasksPerPrincipal` the quota the default
 * stores keep.
 */
export function resolveTaskOptions(
  options: TaskOptions | undefined,
  now: () => number,
  shared?: SharedStore,
  maxTasksPerPrincipal?: number,
): ResolvedTaskOptions {
  const ttlMs = options?.ttlMs === undefined ? 3_600_000 : options.ttlMs;
  if (ttlMs !== null && (!Number.isInteger(ttlMs) || ttlMs < 1)) {
    throw new RangeError("Cannot create server: tasks.ttlMs must be a positive integer or null");
  }
  const pollIntervalMs = options?.pollIntervalMs ?? 1000;
  if (!Number.isInteger(pollIntervalMs) || pollIntervalMs < 1) {
    throw new RangeError("Cannot create server: tasks.pollIntervalMs must be a positive integer");
  }
  const bounds = maxTasksPerPrincipal === undefined ? { now } : { now, maxTasksPerPrincipal };
  const store = options?.store ??
    (shared === undefined ? new MemoryTaskStore(bounds) : new SharedTaskStore(shared, bounds));
  return { store, ttlMs, pollIntervalMs };
}
