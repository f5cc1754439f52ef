/**
 * One task whose handler runs in this process, as the task runner keeps
 * it: the new task's record, the run beside it (its signal, the asks its
 * handler awaits, its ordered store writes), and the pure steps the runner
 * takes on them.
 *
 * @module
 */

import { InflightRequest } from "../../dispatcher/inflight.ts";
import type { InputLedger, InputRequest, ModernContext } from "../modern/context.ts";
import type { RequestMeta } from "../modern/meta.ts";
import { newTaskId, type TaskPatch, type TaskRecord } from "./store.ts";

/** An ask the handler awaits, until `tasks/update` answers it. */
export interface Waiting {
  /** The ask as `inputRequests` shows it. */
  readonly request: InputRequest;
  /** Checks an answer; throws for a malformed one. */
  readonly parse: (answer: unknown) => unknown;
  /** Gives the handler its answer. */
  readonly resolve: (value: unknown) => void;
  /** Ends the handler's wait. */
  readonly reject: (error: unknown) => void;
}

/** One task whose handler runs in this process. */
export interface Run {
  /** The task's id. */
  readonly taskId: string;
  /** When its TTL runs out, ms since the epoch; null for never. */
  readonly deadline: number | null;
  /** The handler's signal: aborts when the run ends. */
  readonly inflight: InflightRequest;
  /** Asks the handler awaits, by input key. */
  readonly waiting: Map<string, Waiting>;
  /** The store writes, in order. */
  chain: Promise<unknown>;
  /** Whether its end was recorded (later outcomes are ignored). */
  settled: boolean;
}

/** How new tasks are stamped. */
export interface TaskStamp {
  /** How long a task is kept after creation, in ms; null for unlimited. */
  readonly ttlMs: number | null;
  /** The polling interval suggested to clients, in ms. */
  readonly pollIntervalMs: number;
}

/** A new "working" task of `tool` for `principal`, created `now`. */
export function newTaskRecord(
  principal: string | undefined,
  tool: string,
  now: number,
  stamp: TaskStamp,
): TaskRecord {
  return {
    taskId: newTaskId(),
    principal: principal ?? null,
    tool,
    status: "working",
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: stamp.ttlMs,
    pollIntervalMs: stamp.pollIntervalMs,
  };
}

/** The run of a new task: nothing awaited, nothing written yet. */
export function newRun(task: TaskRecord): Run {
  return {
    taskId: task.taskId,
    deadline: task.ttlMs === null ? null : task.createdAt + task.ttlMs,
    inflight: new InflightRequest(),
    waiting: new Map(),
    chain: Promise.resolve(),
    settled: false,
  };
}

/**
 * Holds back the run's store writes until the returned function is called:
 * changes the handler makes before the store holds the task wait for it (a
 * shared store's create may take a while).
 */
export function holdWrites(run: Run): () => void {
  let open: () => void = () => {};
  run.chain = new Promise<void>((resolve) => (open = resolve));
  return open;
}

/** The `_meta` a task's handler sees: the request's, with no log level and the task as progress token. */
export function taskMeta(parent: ModernContext, taskId: string): RequestMeta {
  return {
    protocolVersion: parent.client.protocolVersion,
    clientInfo: parent.client.info,
    clientCapabilities: parent.client.capabilities,
    // Log messages have nowhere to go: a task's stream is its state.
    logLevel: undefined,
    // The progress token is the task id: progress shows in the task's statusMessage.
    raw: { ...parent._meta, progressToken: taskId },
    client: parent.client,
  };
}

/** Whether the handler asked for input before the task was made (asks marked `beforeTask`). */
export function askedBeforeTask(ledger: InputLedger): boolean {
  return ledger.pending.size > 0 || ledger.malformed !== undefined || ledger.missing.size > 0;
}

/** The task's state for what the run waits for: "input_required" with its asks, or "working". */
export function inputState(run: Run): TaskPatch {
  if (run.waiting.size === 0) return { status: "working" };
  const inputRequests: Record<string, { method: string; params: Record<string, unknown> }> = {};
  for (const [key, { request }] of run.waiting) {
    inputRequests[key] = { method: request.method, params: request.params };
  }
  return { status: "input_required", inputRequests };
}

/** A progress notification as the task's statusMessage. */
export function progressMessage(params: Record<string, unknown>): string {
  const { progress, total, message } = params;
  return typeof message === "string"
    ? message
    : typeof total === "number"
    ? `${String(progress)}/${total}`
    : String(progress);
}
