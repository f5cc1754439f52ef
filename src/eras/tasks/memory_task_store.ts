/**
 * {@linkcode MemoryTaskStore}: the default task store, in this process's
 * memory, bounded in count, in bytes and per principal.
 *
 * @module
 */

import {
  isTerminal,
  strip,
  type TaskPatch,
  type TaskRecord,
  type TaskStore,
  TaskStoreFullError,
} from "./store.ts";

const encoder = new TextEncoder();

function sizeOf(task: TaskRecord): number {
  return encoder.encode(JSON.stringify(task)).length;
}

function expired(task: TaskRecord, now: number): boolean {
  return task.ttlMs !== null && now >= task.createdAt + task.ttlMs;
}

function checkBound(value: number | undefined, name: string): void {
  if (value !== undefined && (!Number.isInteger(value) || value < 1)) {
    throw new RangeError(`Cannot create task store: ${name} must be a positive integer`);
  }
}

/**
 * The default task store: in this process's memory, bounded in count and
 * bytes, tasks dropped once their TTL has passed. Its sweep timer runs only
 * while it holds a task, never keeps the process alive, and stops on
 * `close()`.
 *
 * @example
 * ```ts
 * import { createServer } from "@warden/mcp";
 * import { MemoryTaskStore } from "@warden/mcp/tasks";
 * const server = createServer({
 *   name: "jobs",
 *   version: "1.0.0",
 *   tasks: { store: new MemoryTaskStore({ maxTasks: 100, maxBytes: 1 << 20 }) },
 * });
 * ```
 */
export class MemoryTaskStore implements TaskStore {
  readonly #tasks = new Map<string, { task: TaskRecord; bytes: number }>();
  readonly #maxTasks: number;
  readonly #perPrincipal: number;
  /** How many tasks each principal holds (only principals holding one). */
  readonly #held = new Map<string | null, number>();
  readonly #maxBytes: number;
  readonly #sweepMs: number;
  readonly #now: () => number;
  #bytes = 0;
  #timer: ReturnType<typeof setInterval> | undefined;

  /**
   * Creates an empty store.
   *
   * @param options Its bounds, sweep interval and clock.
   */
  constructor(options: {
    /**
     * The most tasks kept at once; creating one more is refused.
     * @default {1000}
     */
    maxTasks?: number;
    /**
     * The most tasks one principal may hold at once (anonymous callers
     * share one count); creating one more for it is refused, whatever
     * room the others leave.
     * @default {100}
     */
    maxTasksPerPrincipal?: number;
    /**
     * The most bytes of task state (JSON, results included) kept at once.
     * @default {16777216} (16 MiB)
     */
    maxBytes?: number;
    /**
     * How often expired tasks are swept while any task is kept, in ms. Reads
     * also drop an expired task they meet, so the sweep only frees memory.
     * @default {60000}
     */
    sweepIntervalMs?: number;
    /**
     * The clock, in ms since the epoch (tests inject one).
     * @default {Date.now}
     */
    now?: () => number;
  } = {}) {
    checkBound(options.maxTasks, "maxTasks");
    checkBound(options.maxTasksPerPrincipal, "maxTasksPerPrincipal");
    checkBound(options.maxBytes, "maxBytes");
    checkBound(options.sweepIntervalMs, "sweepIntervalMs");
    this.#maxTasks = options.maxTasks ?? 1000;
    this.#perPrincipal = options.maxTasksPerPrincipal ?? 100;
    this.#maxBytes = options.maxBytes ?? 16 * 1024 * 1024;
    this.#sweepMs = options.sweepIntervalMs ?? 60_000;
    this.#now = options.now ?? Date.now;
  }

  /** How many tasks are kept. */
  get size(): number {
    return this.#tasks.size;
  }

  /** How many bytes of task state are kept. */
  get bytes(): number {
    return this.#bytes;
  }

  create(task: TaskRecord): Promise<void> {
    this.#sweep();
    const bytes = sizeOf(task);
    if (this.#tasks.has(task.taskId)) {
      return Promise.reject(new Error(`Cannot create task: id ${task.taskId} is taken`));
    }
    if (this.#tasks.size >= this.#maxTasks) {
      return Promise.reject(
        new TaskStoreFullError(`Cannot create task: ${this.#maxTasks} tasks are kept already`),
      );
    }
    if (this.#bytes + bytes > this.#maxBytes) {
      return Promise.reject(
        new TaskStoreFullError(`Cannot create task: the store's ${this.#maxBytes} bytes are used`),
      );
    }
    const held = this.#held.get(task.principal) ?? 0;
    if (held >= this.#perPrincipal) {
      return Promise.reject(
        new TaskStoreFullError(
          `Cannot create task: its principal holds ${this.#perPrincipal} tasks already`,
          this.#perPrincipal,
        ),
      );
    }
    this.#tasks.set(task.taskId, { task, bytes });
    this.#held.set(task.principal, held + 1);
    this.#bytes += bytes;
    this.#startSweeping();
    return Promise.resolve();
  }

  room(principal: string | null): { readonly left: number; readonly limit: number } {
    const limit = this.#perPrincipal;
    // Expired tasks still count until a sweep: sweep before saying "none left", as create() would.
    if ((this.#held.get(principal) ?? 0) >= limit) this.#sweep();
    return { left: Math.max(0, limit - (this.#held.get(principal) ?? 0)), limit };
  }

  get(taskId: string): Promise<TaskRecord | undefined> {
    return Promise.resolve(this.#live(taskId)?.task);
  }

  update(taskId: string, patch: TaskPatch): Promise<TaskRecord | undefined> {
    const entry = this.#live(taskId);
    if (entry === undefined) return Promise.resolve(undefined);
    if (isTerminal(entry.task.status)) return Promise.resolve(entry.task);
    const next: TaskRecord = { ...entry.task, ...patch };
    // Fields a status does not carry go when it changes.
    const task = strip(next);
    const bytes = sizeOf(task);
    if (this.#bytes - entry.bytes + bytes > this.#maxBytes) {
      return Promise.reject(
        new TaskStoreFullError(
          `Cannot update task: its new state (${bytes} bytes) exceeds the store's ${this.#maxBytes} bytes`,
        ),
      );
    }
    this.#tasks.set(taskId, { task, bytes });
    this.#bytes += bytes - entry.bytes;
    return Promise.resolve(task);
  }

  delete(taskId: string): Promise<void> {
    this.#drop(taskId);
    return Promise.resolve();
  }

  expire(): Promise<number> {
    return Promise.resolve(this.#sweep());
  }

  close(): void {
    this.#stopSweeping();
  }

  #live(taskId: string): { task: TaskRecord; bytes: number } | undefined {
    const entry = this.#tasks.get(taskId);
    if (entry === undefined) return undefined;
    if (expired(entry.task, this.#now())) {
      this.#drop(taskId);
      return undefined;
    }
    return entry;
  }

  #drop(taskId: string): void {
    const entry = this.#tasks.get(taskId);
    if (entry === undefined) return;
    this.#tasks.delete(taskId);
    this.#bytes -= entry.bytes;
    const held = this.#held.get(entry.task.principal) ?? 0;
    if (held <= 1) this.#held.delete(entry.task.principal);
    else this.#held.set(entry.task.principal, held - 1);
    if (this.#tasks.size === 0) this.#stopSweeping();
  }

  #sweep(): number {
    const now = this.#now();
    let dropped = 0;
    for (const [id, { task }] of this.#tasks) {
      if (expired(task, now)) {
        this.#drop(id);
        dropped++;
      }
    }
    return dropped;
  }

  #startSweeping(): void {
    if (this.#timer !== undefined) return;
    const timer = setInterval(() => this.#sweep(), this.#sweepMs);
    // A store must never keep a finished program running.
    Deno.unrefTimer(timer);
    this.#timer = timer;
  }

  #stopSweeping(): void {
    if (this.#timer === undefined) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

/**
 * Options of the in-memory store.
 *
 * @example
 * ```ts
 * import type { MemoryTaskStoreOptions } from "./memory_task_store.ts";
 * const options: MemoryTaskStoreOptions = { maxTasks: 200, maxBytes: 4 << 20 };
 * ```
 */
export type MemoryTaskStoreOptions = NonNullable<ConstructorParameters<typeof MemoryTaskStore>[0]>;
