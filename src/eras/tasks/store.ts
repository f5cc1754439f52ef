/**
 * Where tasks (revision 2026-07-28, tasks extension) are kept: the
 * `TaskStore` interface a shared store implements, and the bounded
 * in-memory default.
 *
 * @module
 */

/** Where a task stands: working, waiting for input, or one of the three terminal states. */
export type TaskStatus = TaskRecord["status"];

/** Whether a status is terminal (the task no longer changes). */
export function isTerminal(status: TaskStatus): boolean {
  return status === "completed" || status === "failed" || status === "cancelled";
}

/**
 * One task as a store keeps it: plain JSON data, so a shared store can
 * serialize it as it is.
 *
 * @example
 * ```ts
 * import type { TaskRecord } from "@warden/mcp/tasks";
 * const task: TaskRecord = {
 *   taskId: "Qm9vayBvZiB0YXNrcw",
 *   principal: "alice",
 *   tool: "export_orders",
 *   status: "working",
 *   createdAt: Date.now(),
 *   lastUpdatedAt: Date.now(),
 *   ttlMs: 3_600_000,
 *   pollIntervalMs: 1000,
 * };
 * ```
 */
export interface TaskRecord {
  /** The unguessable id. */
  readonly taskId: string;
  /** The principal that created it (null when anonymous); only it may see the task. */
  readonly principal: string | null;
  /** The tool it runs. */
  readonly tool: string;
  /** Where it stands: working, waiting for input, or ended (completed, failed or cancelled). */
  readonly status: "working" | "input_required" | "completed" | "failed" | "cancelled";
  /** What it is doing, for people (progress messages, the reason of a failure). */
  readonly statusMessage?: string;
  /** Creation time, ms since the epoch. */
  readonly createdAt: number;
  /** Time of the last change, ms since the epoch. */
  readonly lastUpdatedAt: number;
  /** How long it is kept after creation, in ms; null for unlimited. */
  readonly ttlMs: number | null;
  /** How often a client should poll it, in ms. */
  readonly pollIntervalMs: number;
  /** The tools/call result, once completed. */
  readonly result?: Record<string, unknown>;
  /** The JSON-RPC error, once failed. */
  readonly error?: { code: number; message: string; data?: unknown };
  /** Every outstanding input request by key, while input is required. */
  readonly inputRequests?: Record<string, { method: string; params: Record<string, unknown> }>;
}

/**
 * The fields of a task that change.
 *
 * @example
 * ```ts
 * import type { TaskPatch } from "@warden/mcp/tasks";
 * const end: TaskPatch = { status: "completed", result: { content: [] } };
 * ```
 */
export type TaskPatch = Partial<
  Pick<
    TaskRecord,
    "status" | "statusMessage" | "result" | "error" | "inputRequests" | "lastUpdatedAt"
  >
>;

/**
 * Thrown by a store that cannot take a task or its new state within its bounds.
 *
 * @example
 * ```ts
 * import { MemoryTaskStore, TaskStoreFullError } from "@warden/mcp/tasks";
 * const store = new MemoryTaskStore({ maxTasks: 1 });
 * const task = { principal: null, tool: "t", status: "working" as const, createdAt: 0,
 *   lastUpdatedAt: 0, ttlMs: null, pollIntervalMs: 1000 };
 * await store.create({ ...task, taskId: "a" });
 * await store.create({ ...task, taskId: "b" }).catch((e) => console.assert(e instanceof TaskStoreFullError));
 * store.close();
 * ```
 */
export class TaskStoreFullError extends Error {
  /**
   * Creates the error.
   *
   * @param message What bound was reached.
   */
  constructor(message: string) {
    super(message);
    this.name = "TaskStoreFullError";
  }
}

/**
 * Storage of tasks. Every method is async so that a shared store (Redis,
 * Deno KV) can implement it; `create` resolves only once a `get` anywhere
 * would find the task. A store answers only by id: who may see a task is
 * decided by the caller from `principal`.
 *
 * @example A store that logs what it keeps
 * ```ts
 * import { MemoryTaskStore, type TaskRecord, type TaskStore } from "@warden/mcp/tasks";
 * const inner = new MemoryTaskStore();
 * const store: TaskStore = {
 *   create: (task: TaskRecord) => { console.error("task", task.taskId); return inner.create(task); },
 *   get: (id) => inner.get(id),
 *   update: (id, patch) => inner.update(id, patch),
 *   delete: (id) => inner.delete(id),
 *   expire: () => inner.expire(),
 *   close: () => inner.close(),
 * };
 * ```
 */
export interface TaskStore {
  /**
   * Stores a new task.
   *
   * @throws {TaskStoreFullError} when it would exceed the store's bounds
   */
  create(task: TaskRecord): Promise<void>;
  /** The task with `taskId`, or undefined when unknown or expired. */
  get(taskId: string): Promise<TaskRecord | undefined>;
  /**
   * Changes a task that is not terminal yet; resolves to its new state, to
   * its unchanged state when it is already terminal, or to undefined when it
   * is unknown or expired.
   *
   * @throws {TaskStoreFullError} when the new state exceeds the store's bounds
   */
  update(taskId: string, patch: TaskPatch): Promise<TaskRecord | undefined>;
  /** Forgets a task. */
  delete(taskId: string): Promise<void>;
  /** Drops every task past its TTL; resolves to how many were dropped. */
  expire(): Promise<number>;
  /** Releases what the store holds open (timers, connections). */
  close(): void;
  /**
   * Sends a message to the instance that runs the task (every instance
   * sharing the store hears it). Only a store shared between instances has it.
   */
  send?(message: TaskMessage): Promise<void>;
  /** Calls `listener` with every message sent through the store; resolves to the unsubscribe. */
  listen?(listener: (message: TaskMessage) => void): Promise<() => void>;
}

/**
 * What one instance asks of the instance that runs a task: cancel it, or
 * give its waiting asks these answers.
 *
 * @example
 * ```ts
 * import type { TaskMessage } from "@warden/mcp/tasks";
 * const stop: TaskMessage = { taskId: "Qm9vayBvZiB0YXNrcw", kind: "cancel", reason: "Cancelled by the client" };
 * ```
 */
export type TaskMessage =
  | { readonly taskId: string; readonly kind: "cancel"; readonly reason: string }
  | {
    readonly taskId: string;
    readonly kind: "input";
    readonly responses: Readonly<Record<string, unknown>>;
  };

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
    checkBound(options.maxBytes, "maxBytes");
    checkBound(options.sweepIntervalMs, "sweepIntervalMs");
    this.#maxTasks = options.maxTasks ?? 1000;
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
    this.#tasks.set(task.taskId, { task, bytes });
    this.#bytes += bytes;
    this.#startSweeping();
    return Promise.resolve();
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

/** A task without the fields its status does not carry. */
export function strip(task: TaskRecord): TaskRecord {
  const { result, error, inputRequests, ...rest } = task;
  const kept: TaskRecord = { ...rest };
  if (task.status === "completed" && result !== undefined) return { ...kept, result };
  if (task.status === "failed" && error !== undefined) return { ...kept, error };
  if (task.status === "input_required" && inputRequests !== undefined) {
    return { ...kept, inputRequests };
  }
  return kept;
}

/** A new task id: 128 random bits from Web Crypto, base64url without padding. */
export function newTaskId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/**
 * Options of the in-memory store.
 *
 * @example
 * ```ts
 * import type { MemoryTaskStoreOptions } from "./store.ts";
 * const options: MemoryTaskStoreOptions = { maxTasks: 200, maxBytes: 4 << 20 };
 * ```
 */
export type MemoryTaskStoreOptions = NonNullable<ConstructorParameters<typeof MemoryTaskStore>[0]>;
