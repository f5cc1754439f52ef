/**
 * The conformance fixture's tools for the tasks extension (revision
 * 2026-07-28, SEP-2663): a synchronous tool, a slow one that may run as a
 * task, ones that end as a tool error or a protocol error, and ones that
 * wait for the client's input before or during their task.
 *
 * @module
 */

import { defineTool, ErrorCode, RpcError, type Server } from "../mod.ts";

const NO_ARGS = { type: "object", properties: {} } as const;

/** Waits `ms`, or rejects as soon as `signal` aborts (the timer is cleared either way). */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const stop = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", stop);
      resolve();
    }, ms);
    signal.addEventListener("abort", stop, { once: true });
  });
}

/**
 * Registers the tasks-extension tools on `server`.
 *
 * @example
 * ```ts ignore
 * addTaskFixtures(server);
 * ```
 */
export function addTaskFixtures(server: Server): void {
  server.tool(defineTool({
    name: "greet",
    description: "Greets someone, synchronously",
    inputSchema: {
      type: "object",
      properties: { name: { type: "string" } },
      required: ["name"],
    },
    handler: ({ name }) => `Hello, ${name}!`,
  }));
  server.tool(defineTool({
    name: "slow_compute",
    description: "Works for the given number of seconds, as a task when the client supports it",
    task: "optional",
    inputSchema: {
      type: "object",
      properties: {
        seconds: { type: "number", minimum: 0, maximum: 600 },
        label: { type: "string" },
      },
      required: ["seconds"],
    },
    handler: async ({ seconds, label }, ctx) => {
      const whole = Math.floor(seconds);
      for (let second = 0; second < whole; second++) {
        await sleep(1000, ctx.signal);
        ctx.progress(second + 1, whole, `${second + 1} of ${whole} seconds`);
      }
      await sleep((seconds - whole) * 1000, ctx.signal);
      return `Computed ${label ?? "result"} in ${seconds} s`;
    },
  }));
  server.tool(defineTool({
    name: "failing_job",
    description: "Runs only as a task, and ends with a tool error after about a second",
    task: "required",
    inputSchema: NO_ARGS,
    handler: async (_args, ctx) => {
      await sleep(1000, ctx.signal);
      return {
        content: [{ type: "text", text: "The job failed: disk quota exceeded" }],
        isError: true,
      };
    },
  }));
  server.tool(defineTool({
    name: "protocol_error_job",
    description: "Runs as a task that fails with a JSON-RPC error",
    task: "optional",
    inputSchema: NO_ARGS,
    handler: async (_args, ctx) => {
      await sleep(200, ctx.signal);
      throw new RpcError(ErrorCode.InternalError, "The job's backend is unavailable");
    },
  }));
  server.tool(defineTool({
    name: "confirm_delete",
    description: "Asks the user to confirm, then deletes the file",
    task: "optional",
    inputSchema: {
      type: "object",
      properties: { filename: { type: "string" } },
      required: ["filename"],
    },
    handler: async ({ filename }, ctx) => {
      const answer = await ctx.elicit(`Delete ${filename}?`, {
        type: "object",
        properties: { confirm: { type: "boolean" } },
        required: ["confirm"],
      });
      return answer.action === "accept" && answer.content.confirm
        ? `Deleted ${filename}`
        : `Kept ${filename}`;
    },
  }));
  server.tool(defineTool({
    name: "multi_input",
    description: "Asks the user two questions at once",
    task: "optional",
    inputSchema: NO_ARGS,
    handler: async (_args, ctx) => {
      const form = {
        type: "object",
        properties: { name: { type: "string" }, confirm: { type: "boolean" } },
      } as const;
      const answers = await Promise.all([
        ctx.elicit("First question: your name?", form),
        ctx.elicit("Second question: proceed?", form),
      ]);
      const names = answers.map((a) => a.action === "accept" ? a.content.name ?? "?" : a.action);
      return `Answers: ${names.join(", ")}`;
    },
  }));
  server.tool(defineTool({
    name: "test_tool_with_task",
    description: "Asks for a name on the call itself, then greets as a task",
    task: "required",
    inputSchema: NO_ARGS,
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit("What is your name?", {
        type: "object",
        properties: { name: { type: "string" } },
        required: ["name"],
      }, { inputKey: "user_name", beforeTask: true });
      const name = answer.action === "accept" ? answer.content.name : "stranger";
      await sleep(100, ctx.signal);
      return `Hello from the task, ${name}`;
    },
  }));
}
