/**
 * What the tasks tests share: modern request builders, a task poller and
 * tools whose progress the test controls.
 */

import { createServer, defineTool, type Server, type ServerOptions } from "../../mod.ts";
import { captureLog, errorOf, isRecord, request, resultOf } from "./helpers.ts";

export const TASKS_ID = "io.modelcontextprotocol/tasks";
/** Capabilities declaring the tasks extension (and elicitation). */
export const WITH_TASKS = { elicitation: {}, extensions: { [TASKS_ID]: {} } };

/** A revision 2026-07-28 request with `capabilities` in its `_meta`. */
export function modern(
  id: number | string,
  method: string,
  params: Record<string, unknown> = {},
  capabilities: Record<string, unknown> = WITH_TASKS,
): Record<string, unknown> {
  return request(id, method, {
    ...params,
    _meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": capabilities,
    },
  });
}

let ids = 0;

/** Sends one modern request on the embedded session and returns the reply. */
export async function send(
  server: Server,
  method: string,
  params: Record<string, unknown> = {},
  capabilities?: Record<string, unknown>,
): Promise<unknown> {
  return await server.handle(modern(`t${++ids}`, method, params, capabilities));
}

/** Calls a tool and returns the task id of the handle it must answer with. */
export async function startTask(
  server: Server,
  name: string,
  args: Record<string, unknown> = {},
): Promise<string> {
  const result = resultOf(await send(server, "tools/call", { name, arguments: args }));
  if (result.resultType !== "task" || typeof result.taskId !== "string") {
    throw new Error(`Expected a task handle, got ${JSON.stringify(result)}`);
  }
  return result.taskId;
}

/** tasks/get's result. */
export async function getTask(server: Server, taskId: string): Promise<Record<string, unknown>> {
  return resultOf(await send(server, "tasks/get", { taskId }));
}

/** Polls (yielding to the event loop, no timers) until the task has `status`. */
export async function waitFor(
  server: Server,
  taskId: string,
  status: string,
): Promise<Record<string, unknown>> {
  for (let i = 0; i < 200; i++) {
    const task = await getTask(server, taskId);
    if (task.status === status) return task;
    await new Promise((resolve) => queueMicrotask(() => resolve(undefined)));
    await Promise.resolve();
  }
  throw new Error(
    `Task ${taskId} never reached ${status}: ${JSON.stringify(await getTask(server, taskId))}`,
  );
}

/** Polls every 10 ms (a real wait: for handlers that use timers) until the task is terminal. */
export async function waitForSettled(
  server: Server,
  taskId: string,
  attempts = 500,
): Promise<Record<string, unknown>> {
  for (let i = 0; i < attempts; i++) {
    const task = await getTask(server, taskId);
    if (task.status === "completed" || task.status === "failed" || task.status === "cancelled") {
      return task;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`Task ${taskId} never ended`);
}

/** The error code of a reply. */
export function codeOf(reply: unknown): number {
  return errorOf(reply).code;
}

/** A tool whose run the test releases (or that ends when its signal aborts). */
export function gatedTool(name = "gated", task: "optional" | "required" = "optional") {
  let release: (text: string) => void = () => {};
  const gate = new Promise<string>((resolve) => (release = resolve));
  const seen: { aborted: boolean; runs: number } = { aborted: false, runs: 0 };
  const tool = defineTool({
    name,
    description: "Waits until the test releases it",
    task,
    inputSchema: { type: "object", properties: {} },
    handler: (_args, ctx) => {
      seen.runs++;
      return new Promise<string>((resolve, reject) => {
        ctx.signal.addEventListener("abort", () => {
          seen.aborted = true;
          reject(ctx.signal.reason);
        }, { once: true });
        gate.then(resolve);
      });
    },
  });
  return { tool, release: (text: string) => release(text), seen };
}

/** Whether `value` is a record with `key` (a type guard for optional fields). */
export function has(value: unknown, key: string): value is Record<string, unknown> {
  return isRecord(value) && key in value;
}

/** A server for the tasks tests, its diagnostics captured rather than printed. */
export function server(extra: Partial<ServerOptions> = {}): Server {
  return createServer({ name: "tasks", version: "1.0.0", log: captureLog().log, ...extra });
}

/** The confirmation form the input-round tests ask for. */
export const CONFIRM = {
  type: "object",
  properties: { confirm: { type: "boolean" } },
  required: ["confirm"],
} as const;
