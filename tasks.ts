/**
 * Where the tasks extension (`io.modelcontextprotocol/tasks`) keeps its
 * tasks: the `TaskStore` interface a shared store implements, and the
 * bounded in-memory default (`createServer({ tasks: { store } })`).
 *
 * @example A smaller in-memory store
 * ```ts
 * import { createServer } from "@warden/mcp";
 * import { MemoryTaskStore } from "@warden/mcp/tasks";
 * const server = createServer({
 *   name: "desk",
 *   version: "1.0.0",
 *   tasks: { store: new MemoryTaskStore({ maxTasks: 100 }) },
 * });
 * ```
 *
 * @module
 */

export { MemoryTaskStore } from "./src/eras/tasks/memory_task_store.ts";
export {
  type TaskMessage,
  type TaskPatch,
  type TaskRecord,
  type TaskStore,
  TaskStoreFullError,
} from "./src/eras/tasks/store.ts";
export { SharedTaskStore } from "./src/eras/tasks/shared_task_store.ts";
export type { TaskOptions } from "./src/eras/tasks/options.ts";
