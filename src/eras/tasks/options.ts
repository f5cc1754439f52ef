/**
 * The server options of the tasks extension (revision 2026-07-28).
 *
 * @module
 */

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

/** The task options' numbers, defaults applied. */
export interface TaskTimes {
  readonly ttlMs: number | null;
  readonly pollIntervalMs: number;
}

/**
 * Checks the task options' numbers and fills in their defaults. It runs in
 * `createServer`, so a bad option fails there, while the stores and the
 * runner load with the modern era, on its first request.
 */
export function checkTaskOptions(options: TaskOptions | undefined): TaskTimes {
  const ttlMs = options?.ttlMs === undefined ? 3_600_000 : options.ttlMs;
  if (ttlMs !== null && (!Number.isInteger(ttlMs) || ttlMs < 1)) {
    throw new RangeError("Cannot create server: tasks.ttlMs must be a positive integer or null");
  }
  const pollIntervalMs = options?.pollIntervalMs ?? 1000;
  if (!Number.isInteger(pollIntervalMs) || pollIntervalMs < 1) {
    throw new RangeError("Cannot create server: tasks.pollIntervalMs must be a positive integer");
  }
  return { ttlMs, pollIntervalMs };
}
