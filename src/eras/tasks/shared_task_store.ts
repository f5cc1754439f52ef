/**
 * {@linkcode SharedTaskStore}: tasks kept on a {@linkcode SharedStore}, so
 * that every instance sharing the store can poll and cancel a task that
 * another instance runs.
 *
 * The store offers get, set (with TTL and set-if-absent) and pub/sub, no
 * compare-and-set on a record; so a task's record has one writer, the
 * instance that runs its handler, and its end is decided by a separate
 * claim key taken set-if-absent: the first terminal status to claim it is
 * the task's end, whoever wrote it. Another instance cancels by claiming the
 * end as "cancelled" and sending a message the owner hears, which then
 * aborts the handler and writes the record.
 *
 * A principal's tasks are counted across every instance with slot keys:
 * a task takes one of its principal's `maxTasksPerPrincipal` slots
 * set-if-absent, the slot expiring with the task, so no instance needs a
 * counter the seam does not offer (it has no atomic increment).
 *
 * @module
 */

import type { SetOptions, SharedStore } from "../../store/shared_store.ts";
import { isRecord } from "../../jsonrpc/messages.ts";
import {
  isTerminal,
  strip,
  type TaskMessage,
  type TaskPatch,
  type TaskRecord,
  type TaskStatus,
  type TaskStore,
  TaskStoreFullError,
} from "./store.ts";

/** How an end claim is kept: the terminal status and its message. */
interface EndClaim {
  readonly status: TaskStatus;
  readonly statusMessage?: string;
}

/** How long a deleted task's tombstone stays, in ms (the seam has no delete). */
const TOMBSTONE_MS = 60_000;

/** Whether stored JSON is a task record (it was written by `create` or `update`). */
function isTaskRecord(value: unknown): value is TaskRecord {
  return isRecord(value) && typeof value.taskId === "string" &&
    typeof value.status === "string" && typeof value.createdAt === "number";
}

function parseTask(text: string | undefined): TaskRecord | undefined {
  if (text === undefined || text === "") return undefined;
  const value: unknown = JSON.parse(text);
  return isTaskRecord(value) ? value : undefined;
}

function parseEnd(text: string | undefined): EndClaim | undefined {
  if (text === undefined) return undefined;
  const value: unknown = JSON.parse(text);
  if (!isRecord(value) || typeof value.status !== "string") return undefined;
  const status = value.status;
  if (status !== "completed" && status !== "failed" && status !== "cancelled") return undefined;
  return typeof value.statusMessage === "string"
    ? { status, statusMessage: value.statusMessage }
    : { status };
}

function parseMessage(text: string): TaskMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(value) || typeof value.taskId !== "string") return undefined;
  if (value.kind === "cancel" && typeof value.reason === "string") {
    return { taskId: value.taskId, kind: "cancel", reason: value.reason };
  }
  if (value.kind === "input" && isRecord(value.responses)) {
    return { taskId: value.taskId, kind: "input", responses: value.responses };
  }
  return undefined;
}

/**
 * A {@linkcode TaskStore} over a {@linkcode SharedStore}: each task is a
 * JSON record whose key expires with the task's TTL. `createServer({ store })`
 * uses one unless `tasks.store` is given.
 *
 * What it guarantees: the first terminal status claimed is the task's end
 * on every instance (a cancel from another instance is never lost to a
 * completion racing it, nor the reverse). What it needs: the instance that
 * runs a task stays up while the task works or waits for input (answers
 * and cancels given elsewhere travel to it as messages; if it is gone, a
 * cancel still ends the task, but answers are lost). Its one bound is per
 * principal (`maxTasksPerPrincipal`, held across instances); the total
 * count and size are bounded by the backend's memory.
 *
 * @example
 * ```ts
 * import { createServer } from "@warden/mcp";
 * import { MemoryStore } from "@warden/mcp/store";
 * import { SharedTaskStore } from "@warden/mcp/tasks";
 * const shared = new MemoryStore();
 * const server = createServer({
 *   name: "jobs",
 *   version: "1.0.0",
 *   tasks: { store: new SharedTaskStore(shared, { prefix: "jobs:task:" }) },
 * });
 * ```
 */
export class SharedTaskStore implements TaskStore {
  readonly #store: SharedStore;
  readonly #prefix: string;
  readonly #now: () => number;
  readonly #perPrincipal: number;

  /**
   * Creates the store; it holds nothing open of its own.
   *
   * @param store The shared store (closed by its owner, not by this).
   * @param options The key prefix and the clock.
   */
  constructor(store: SharedStore, options: {
    /**
     * The prefix of every key and channel it uses.
     * @default {"warden:task:"}
     */
    prefix?: string;
    /**
     * The clock, in ms since the epoch (for the keys' remaining TTL).
     * @default {Date.now}
     */
    now?: () => number;
    /**
     * The most tasks one principal may hold at once on every instance
     * sharing the store (anonymous callers share one count). A refusal
     * costs up to this many writes, paid by the principal at its bound.
     * @default {100}
     */
    maxTasksPerPrincipal?: number;
  } = {}) {
    const most = options.maxTasksPerPrincipal;
    if (most !== undefined && (!Number.isSafeInteger(most) || most < 1)) {
      throw new RangeError(
        "Cannot create task store: maxTasksPerPrincipal must be a positive integer",
      );
    }
    this.#store = store;
    this.#prefix = options.prefix ?? "warden:task:";
    this.#now = options.now ?? Date.now;
    this.#perPrincipal = most ?? 100;
  }

  /** Stores a new task; refuses an id that is taken, or a principal at its bound. */
  async create(task: TaskRecord): Promise<void> {
    const slot = await this.#claimSlot(task);
    const written = await this.#store.set(
      this.#key(task.taskId),
      JSON.stringify(task),
      this.#expiry(task, true),
    );
    if (!written) {
      await this.#releaseSlot(slot);
      throw new Error(`Cannot create task: id ${task.taskId} is taken`);
    }
  }

  /**
   * Takes a free slot of the task's principal, probing from a point the
   * random id picks (so a principal far from its bound finds one at once).
   */
  async #claimSlot(task: TaskRecord): Promise<string> {
    const most = this.#perPrincipal;
    const start = (task.taskId.charCodeAt(0) * 31 + task.taskId.charCodeAt(1)) % most;
    const expiry = this.#expiry(task, true);
    for (let i = 0; i < most; i++) {
      const slot = this.#slotKey(task.principal, (start + i) % most);
      if (await this.#store.set(slot, task.taskId, expiry)) return slot;
    }
    throw new TaskStoreFullError(
      `Cannot create task: its principal holds ${most} tasks already`,
      most,
    );
  }

  /** Frees a slot at once (the seam has no delete: a value that expires in 1 ms). */
  async #releaseSlot(slot: string): Promise<void> {
    await this.#store.set(slot, "", { ttlMs: 1 });
  }

  /** The task, with a claimed end it shows before its owner wrote it. */
  async get(taskId: string): Promise<TaskRecord | undefined> {
    const task = await this.#read(taskId);
    if (task === undefined || isTerminal(task.status)) return task;
    const end = parseEnd(await this.#store.get(this.#endKey(taskId)));
    // A claimed cancel shows at once; a claimed completion shows with its result, once written.
    return end?.status === "cancelled" ? strip({ ...task, ...end }) : task;
  }

  /**
   * Changes a task. A terminal patch first claims the end: when another
   * status claimed it first, that one is written instead.
   */
  async update(taskId: string, patch: TaskPatch): Promise<TaskRecord | undefined> {
    const current = await this.#read(taskId);
    if (current === undefined) return undefined;
    if (isTerminal(current.status)) return current;
    let next: TaskRecord;
    const endKey = this.#endKey(taskId);
    if (patch.status !== undefined && isTerminal(patch.status)) {
      const claim: EndClaim = patch.statusMessage === undefined
        ? { status: patch.status }
        : { status: patch.status, statusMessage: patch.statusMessage };
      const won = await this.#store.set(endKey, JSON.stringify(claim), this.#expiry(current, true));
      const end = won ? claim : parseEnd(await this.#store.get(endKey));
      next = won || end === undefined || end.status === patch.status
        ? strip({ ...current, ...patch })
        : strip({ ...current, ...end, lastUpdatedAt: patch.lastUpdatedAt ?? this.#now() });
    } else {
      const end = parseEnd(await this.#store.get(endKey));
      // The end is claimed: progress after it is not written, the record ends now.
      next = end === undefined ? strip({ ...current, ...patch }) : strip({ ...current, ...end });
    }
    const expiry = this.#expiry(current, false);
    // Expired between the read and now: writing would bring it back.
    if (expiry.ttlMs !== undefined && expiry.ttlMs <= 0) return undefined;
    await this.#store.set(this.#key(taskId), JSON.stringify(next), expiry);
    return next;
  }

  /** Forgets a task (a short-lived tombstone: the seam has no delete) and frees its slot. */
  async delete(taskId: string): Promise<void> {
    const task = await this.#read(taskId);
    await this.#store.set(this.#key(taskId), "", { ttlMs: TOMBSTONE_MS });
    if (task === undefined) return;
    for (let i = 0; i < this.#perPrincipal; i++) {
      const slot = this.#slotKey(task.principal, i);
      if ((await this.#store.get(slot)) === taskId) return await this.#releaseSlot(slot);
    }
  }

  /** Nothing to do: the backend expires the keys. */
  expire(): Promise<number> {
    return Promise.resolve(0);
  }

  /** Nothing to release: the shared store is closed by the server. */
  close(): void {}

  /** Sends `message` to every instance sharing the store. */
  async send(message: TaskMessage): Promise<void> {
    await this.#store.publish(this.#channel(), JSON.stringify(message));
  }

  /** Hears every well-formed message sent through the store. */
  listen(listener: (message: TaskMessage) => void): Promise<() => void> {
    return this.#store.subscribe(this.#channel(), (text) => {
      const message = parseMessage(text);
      if (message !== undefined) listener(message);
    });
  }

  /** The stored task unless its TTL has passed (Deno KV may serve a key past its expiry). */
  async #read(taskId: string): Promise<TaskRecord | undefined> {
    const task = parseTask(await this.#store.get(this.#key(taskId)));
    if (task === undefined) return undefined;
    return task.ttlMs !== null && this.#now() >= task.createdAt + task.ttlMs ? undefined : task;
  }

  #key(taskId: string): string {
    return `${this.#prefix}${taskId}`;
  }

  /** Slot `index` of `principal` (encoded: a principal may hold any character). */
  #slotKey(principal: string | null, index: number): string {
    const who = principal === null ? "-" : `p${encodeURIComponent(principal)}`;
    return `${this.#prefix}slot:${who}:${index}`;
  }

  #endKey(taskId: string): string {
    return `${this.#prefix}end:${taskId}`;
  }

  #channel(): string {
    return `${this.#prefix}messages`;
  }

  /** A write of the task's keys: they expire with the task (never, for a null TTL). */
  #expiry(task: TaskRecord, ifAbsent: boolean): SetOptions {
    return task.ttlMs === null
      ? { ifAbsent }
      : { ttlMs: task.createdAt + task.ttlMs - this.#now(), ifAbsent };
  }
}

/** Options for {@linkcode SharedTaskStore}. */
export type SharedTaskStoreOptions = NonNullable<ConstructorParameters<typeof SharedTaskStore>[1]>;
