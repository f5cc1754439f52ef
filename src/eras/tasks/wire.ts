/**
 * Tasks on the wire (revision 2026-07-28, tasks extension): the shape
 * tasks/get and notifications/tasks show, how a run's outcome becomes a
 * task's end, and the error every hidden task gets.
 *
 * @module
 */

import { ErrorCode, invalidParamsError, type RpcError } from "../../jsonrpc/errors.ts";
import { type CallOutcome, sentErrorCode } from "../../call/outcome.ts";
import type { TaskPatch, TaskRecord } from "./store.ts";

/** The error for a task that is unknown, expired or another principal's: all look alike. */
export function taskNotFound(): RpcError {
  return invalidParamsError("Failed to retrieve task: Task not found");
}

/** The fields every view of a task has: its id, status, times and polling hints. */
export function taskFields(task: TaskRecord): Record<string, unknown> {
  return {
    taskId: task.taskId,
    status: task.status,
    createdAt: new Date(task.createdAt).toISOString(),
    lastUpdatedAt: new Date(task.lastUpdatedAt).toISOString(),
    ttlMs: task.ttlMs,
    pollIntervalMs: task.pollIntervalMs,
  };
}

/** A task as the wire shows it (tasks/get, notifications/tasks), before redaction. */
export function wireTask(task: TaskRecord): Record<string, unknown> {
  const shown = taskFields(task);
  if (task.statusMessage !== undefined) shown.statusMessage = task.statusMessage;
  if (task.status === "completed" && task.result !== undefined) shown.result = task.result;
  if (task.status === "failed" && task.error !== undefined) shown.error = task.error;
  if (task.status === "input_required") shown.inputRequests = task.inputRequests ?? {};
  return shown;
}

/** The end of a run, as the task records it. */
export function endOf(outcome: CallOutcome): TaskPatch {
  if ("result" in outcome) {
    if (outcome.status === "input_required") {
      return failure(ErrorCode.InternalError, "The task ended waiting for input");
    }
    // A tool error is a completed call whose result says isError (never "failed").
    return { status: "completed", result: outcome.result };
  }
  if (outcome.status === "cancelled") return { status: "cancelled" };
  const { message, data } = outcome.error;
  // Tasks are of revision 2026-07-28: the stored error carries its code, as the audit records it.
  const code = sentErrorCode(outcome, "modern");
  const error = data === undefined ? { code, message } : { code, message, data };
  return { status: "failed", statusMessage: message, error };
}

/** A failed end with a JSON-RPC error. */
export function failure(code: number, message: string): TaskPatch {
  return { status: "failed", statusMessage: message, error: { code, message } };
}
