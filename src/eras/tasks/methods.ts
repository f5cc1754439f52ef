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
import type { CallKind } from "../../call/context.ts";
import type { CallNext, CallOutcome } from "../../call/outcome.ts";
import type { CallFacts } from "../../core/call_facts.ts";
import { notFound, parseCall, type RequestCore } from "../../core/request_core.ts";
import type { McpSession } from "../../core/session.ts";
import type { ModernContext } from "../modern/context.ts";
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
  return (call): Promise<CallOutcome> => {
    const tool = core.registry.tools.get(call.name);
    if (tool === undefined) return Promise.resolve(notFound("tool", call.name));
    const support = tool.definition.task ?? "never";
    if (support === "never") return core.callTool(context)(call);
    if (!declaresTasks(context.client.capabilities)) {
      return support === "required"
        ? Promise.resolve({ status: "invalid", error: tasksRequired() })
        : core.callTool(context)(call);
    }
    // Bad arguments are answered at once: there is nothing to run.
    if (tool.validate(call.arguments).length > 0) {
      return core.callTool(context)(call);
    }
    return runner.start(context, tool, call.arguments);
  };
}

/** What the tasks methods borrow from the front door. */
export interface TaskMethodDeps {
  /** The request core. */
  readonly core: RequestCore;
  /** The task runner. */
  readonly runner: TaskRunner;
  /** The facts guardrails see. */
  readonly facts: (
    request: MethodContext<McpSession>,
    meta: RequestMeta,
    continuation: boolean,
  ) => CallFacts;
  /** The modern envelope of a result. */
  readonly finish: (result: Record<string, unknown>) => Record<string, unknown>;
  /** The wire error of an error outcome. */
  readonly error: (
    outcome: Extract<CallOutcome, { error: RpcError }>,
    kind: CallKind,
    name: string,
  ) => RpcError;
}

/** A modern method handler. */
export type TaskMethod = (
  params: JsonRpcParams,
  request: MethodContext<McpSession>,
  meta: RequestMeta,
) => Promise<Record<string, unknown>>;

/** `tasks/get`, `tasks/update` and `tasks/cancel`; `tasks/result` and `tasks/list` do not exist. */
export function taskMethods(deps: TaskMethodDeps): Map<string, TaskMethod> {
  const { core, runner } = deps;
  const methods = new Map<string, TaskMethod>();

  /** Runs `act` on the caller's task through the pipeline, as a call on the task's tool. */
  const onTask = (
    method: string,
    check: (params: JsonRpcParams) => RpcError | undefined,
    act: (task: TaskRecord, params: JsonRpcParams) => Promise<Record<string, unknown>>,
  ): TaskMethod =>
  async (params, request, meta) => {
    const principal = request.session.principal;
    const taskId = params.taskId;
    let problem: RpcError | undefined;
    let task: TaskRecord | undefined;
    if (!declaresTasks(meta.clientCapabilities)) problem = tasksRequired();
    else if (typeof taskId !== "string") problem = invalidParamsError("taskId must be a string");
    else {
      task = await runner.find(taskId, principal);
      problem = task === undefined ? taskNotFound() : check(params);
    }
    const parsed = parseCall(
      "tool",
      method,
      {
        name: task?.tool ?? "",
        arguments: typeof taskId === "string" ? { taskId: taskId.slice(0, 200) } : {},
      },
      deps.facts(request, meta, true),
    );
    const step: CallNext = async () => {
      // Read again: the task may have changed while the guardrails ran.
      const current = task === undefined ? undefined : await runner.find(task.taskId, principal);
      if (current === undefined) return { status: "invalid", error: taskNotFound() };
      try {
        return { status: "ok", result: await act(current, params) };
      } catch (error) {
        if (error instanceof RpcError) return { status: "invalid", error };
        throw error;
      }
    };
    const outcome = await core.guard({ call: parsed.call, problem }, step);
    if ("error" in outcome) throw deps.error(outcome, "tool", parsed.call.name);
    return deps.finish(outcome.result);
  };
  const none = (): undefined => undefined;

  methods.set("tasks/get", onTask("tasks/get", none, (task) => Promise.resolve(runner.show(task))));
  methods.set(
    "tasks/update",
    onTask(
      "tasks/update",
      (params) =>
        isRecord(params.inputResponses)
          ? undefined
          : invalidParamsError("inputResponses must be an object of answers by input key"),
      async (task, params) => {
        await runner.update(task, isRecord(params.inputResponses) ? params.inputResponses : {});
        return {};
      },
    ),
  );
  methods.set(
    "tasks/cancel",
    onTask("tasks/cancel", none, async (task) => {
      await runner.cancel(task);
      return {};
    }),
  );
  return methods;
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
