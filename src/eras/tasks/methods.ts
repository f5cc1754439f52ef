/**
 * The tasks extension's part of the modern front door: whether a
 * `tools/call` becomes a task, and `tasks/get`, `tasks/update` and
 * `tasks/cancel`. Each of those is a guarded call on the task's tool, so
 * the access policy and the audit see it; it is a continuation of the call
 * that created the task, so the rate limiter need not charge it again.
 *
 * @module
 */

import type { MethodContext } from "../../dispatcher/dispatcher.ts";
import { invalidParamsError, RpcError } from "../../jsonrpc/errors.ts";
import { isRecord, type JsonRpcParams } from "../../jsonrpc/messages.ts";
import type { CallNext, MaybeOutcome } from "../../call/outcome.ts";
import type { ContextServices } from "../../core/context_base.ts";
import type { Implementation } from "../../core/lifecycle.ts";
import { parseCall } from "../../core/parse_call.ts";
import { notFound, type RequestCore } from "../../core/request_core.ts";
import type { McpSession } from "../../core/session.ts";
import type { ModernContext } from "../modern/context.ts";
import { modernError, modernFacts, modernResult } from "../modern/exchange.ts";
import { ModernErrorCode } from "../../jsonrpc/modern_errors.ts";
import type { RequestMeta } from "../modern/meta.ts";
import type { TaskRunner } from "./runner.ts";
import { taskNotFound } from "./wire.ts";
import type { TaskRecord } from "./store.ts";

/** The identifier of the tasks extension. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** Whether a request's capabilities declare the tasks extension. */
export function declaresTasks(capabilities: Readonly<Record<string, unknown>>): boolean {
  const extensions = capabilities.extensions;
  return isRecord(extensions) && isRecord(extensions[TASKS_EXTENSION]);
}

/** -32021 naming the tasks extension. */
export function tasksRequired(): RpcError {
  return new RpcError(
    ModernErrorCode.MissingRequiredClientCapability,
    `Missing required client capability: extensions["${TASKS_EXTENSION}"]`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
  );
}

/**
 * The last step of a modern tools/call: a task when the tool allows one and
 * the request declares the extension, a synchronous run otherwise, and
 * -32021 for a tool that only runs as a task.
 */
export function toolCallStep(
  core: RequestCore,
  runner: TaskRunner,
  context: ModernContext,
): CallNext {
  return (call): MaybeOutcome => {
    const tool = core.usableTool(call.name, context.client.capabilities);
    if (tool === undefined) return notFound("tool", call.name, call.context.mask);
    const support = tool.definition.task ?? "never";
    if (support === "never") return core.callTool(context)(call);
    if (!declaresTasks(context.client.capabilities)) {
      return support === "required"
        ? { status: "invalid", error: tasksRequired() }
        : core.callTool(context)(call);
    }
    // Bad arguments are answered at once: there is nothing to run.
    if (tool.validate(call.arguments).length > 0) {
      return core.callTool(context)(call);
    }
    return runner.start(context, tool, call.arguments);
  };
}

/** What the tasks methods borrow from the modern front door. */
export interface TaskMethodDeps {
  /** The request core. */
  readonly core: RequestCore;
  /** The task runner. */
  readonly tasks: TaskRunner;
  /** The server's identity, sent in every result's `_meta`. */
  readonly serverInfo: Readonly<Implementation>;
  /** The redactor, for what an error adds. */
  readonly services: ContextServices;
}

/** What one tasks method does to the caller's task once the pipeline lets it. */
interface TaskAction {
  /** The method, as guardrails see it. */
  readonly method: string;
  /** A problem with the params beyond the task id, found before the pipeline runs. */
  readonly check: (params: JsonRpcParams) => RpcError | undefined;
  /** The work, on the task as it is after the guardrails ran. */
  readonly act: (
    runner: TaskRunner,
    task: TaskRecord,
    params: JsonRpcParams,
  ) => Promise<Record<string, unknown>>;
}

function noProblem(): undefined {
  return undefined;
}

function checkAnswers(params: JsonRpcParams): RpcError | undefined {
  return isRecord(params.inputResponses)
    ? undefined
    : invalidParamsError("inputResponses must be an object of answers by input key");
}

function showTask(runner: TaskRunner, task: TaskRecord): Promise<Record<string, unknown>> {
  return Promise.resolve(runner.show(task));
}

async function answerTask(
  runner: TaskRunner,
  task: TaskRecord,
  params: JsonRpcParams,
): Promise<Record<string, unknown>> {
  await runner.update(task, isRecord(params.inputResponses) ? params.inputResponses : {});
  return {};
}

async function cancelTask(runner: TaskRunner, task: TaskRecord): Promise<Record<string, unknown>> {
  await runner.cancel(task);
  return {};
}

const GET: TaskAction = { method: "tasks/get", check: noProblem, act: showTask };
const UPDATE: TaskAction = { method: "tasks/update", check: checkAnswers, act: answerTask };
const CANCEL: TaskAction = { method: "tasks/cancel", check: noProblem, act: cancelTask };

/** `tasks/get`: the caller's task as it stands (there is no `tasks/result` or `tasks/list`). */
export function tasksGet(
  deps: TaskMethodDeps,
  params: JsonRpcParams,
  request: MethodContext<McpSession>,
  meta: RequestMeta,
): Promise<Record<string, unknown>> {
  return onTask(deps, GET, params, request, meta);
}

/** `tasks/update`: answers to what the caller's task waits for. */
export function tasksUpdate(
  deps: TaskMethodDeps,
  params: JsonRpcParams,
  request: MethodContext<McpSession>,
  meta: RequestMeta,
): Promise<Record<string, unknown>> {
  return onTask(deps, UPDATE, params, request, meta);
}

/** `tasks/cancel`: the caller's task ends as "cancelled". */
export function tasksCancel(
  deps: TaskMethodDeps,
  params: JsonRpcParams,
  request: MethodContext<McpSession>,
  meta: RequestMeta,
): Promise<Record<string, unknown>> {
  return onTask(deps, CANCEL, params, request, meta);
}

/** The caller's task a tasks method names, or the problem that stops it. */
async function findTask(
  runner: TaskRunner,
  action: TaskAction,
  params: JsonRpcParams,
  meta: RequestMeta,
  principal: string | undefined,
): Promise<{ task?: TaskRecord; problem?: RpcError | undefined }> {
  const taskId = params.taskId;
  if (!declaresTasks(meta.clientCapabilities)) return { problem: tasksRequired() };
  if (typeof taskId !== "string") return { problem: invalidParamsError("taskId must be a string") };
  const task = await runner.find(taskId, principal);
  return task === undefined ? { problem: taskNotFound() } : { task, problem: action.check(params) };
}

/** Runs `action` on the caller's task through the pipeline, as a call on the task's tool. */
async function onTask(
  deps: TaskMethodDeps,
  action: TaskAction,
  params: JsonRpcParams,
  request: MethodContext<McpSession>,
  meta: RequestMeta,
): Promise<Record<string, unknown>> {
  const { tasks: runner } = deps;
  const principal = request.session.principal;
  const taskId = params.taskId;
  const found = await findTask(runner, action, params, meta, principal);
  // A task of a tool the caller's token may not use (another token of the same subject) is unknown.
  const scopes = request.session.grantOf(request.request)?.scopes;
  const hidden = found.task !== undefined &&
    !deps.core.scopesAllow("tool", found.task.tool, scopes);
  const { task, problem } = hidden ? { task: undefined, problem: taskNotFound() } : found;
  const parsed = parseCall(
    "tool",
    action.method,
    {
      name: task?.tool ?? "",
      arguments: typeof taskId === "string" ? { taskId: taskId.slice(0, 200) } : {},
    },
    modernFacts(request, meta, deps.services.callMask, true),
  );
  const step: CallNext = async () => {
    // Read again: the task may have changed while the guardrails ran.
    const current = task === undefined ? undefined : await runner.find(task.taskId, principal);
    if (current === undefined) return { status: "invalid", error: taskNotFound() };
    try {
      return { status: "ok", result: await action.act(runner, current, params) };
    } catch (error) {
      if (error instanceof RpcError) return { status: "invalid", error };
      throw error;
    }
  };
  const outcome = await deps.core.guard({ call: parsed.call, problem }, step);
  if ("error" in outcome) {
    throw modernError(outcome, "tool", parsed.call.name);
  }
  return modernResult(deps.serverInfo, outcome.result);
}

/**
 * The task ids a `subscriptions/listen` may follow: only the caller's
 * existing tasks (others are left out, as if unknown). -32021 when the
 * request does not declare the extension.
 */
export async function acknowledgeTaskIds(
  runner: TaskRunner,
  taskIds: readonly string[],
  meta: RequestMeta,
  principal: string | undefined,
): Promise<string[]> {
  if (!declaresTasks(meta.clientCapabilities)) throw tasksRequired();
  const kept: string[] = [];
  for (const id of taskIds) {
    if (await runner.find(id, principal) !== undefined) kept.push(id);
  }
  return kept;
}
