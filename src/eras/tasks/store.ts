/**
 * Where tasks (revision 2026-07-28, tasks extension) are kept: the
 * `TaskStore` interface a shared store implements, the records it keeps
 * and the error it refuses with (the in-memory default is in
 * `memory_task_store.ts`).
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
   * The per-principal bound that was reached, when that is what refused the
   * task (the principal holds that many tasks already); undefined when the
   * store as a whole is full.
   */
  readonly perPrincipal: number | undefined;

  /**
   * Creates the error.
   *
   * @param message What bound was reached.
   * @param perPrincipal The per-principal bound, when that is the one reached.
   */
  constructor(message: string, perPrincipal?: number) {
    super(message);
    this.name = "TaskStoreFullError";
    this.perPrincipal = perPrincipal;
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
  /**
   * How many more tasks `principal` may hold now (`left`, of `limit`), when
   * the store can tell without a round trip: the runner refuses a start with
   * none left before the tool's handler runs. `create` still decides (starts can race).
   */
  room?(principal: string | null): { readonly left: number; readonly limit: number };
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
