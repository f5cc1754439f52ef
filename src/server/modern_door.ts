/**
 * What only revision 2026-07-28 and the extensions use: the modern method
 * table, the task runner and its store, the request-state sealer and the
 * skills methods. `createServer` loads this module on the first request
 * that needs it (see eras.ts), so a server whose clients only speak the
 * handshake era never loads it.
 *
 * @module
 */

import type { MethodHandler } from "../dispatcher/dispatcher.ts";
import { SUPPORTED_PROTOCOL_VERSIONS } from "../core/lifecycle.ts";
import { PrincipalCounts } from "../core/quotas.ts";
import type { McpSession } from "../core/session.ts";
import { modernMethods } from "../eras/methods/modern.ts";
import { StateSealer } from "../eras/modern/request_state.ts";
import { MemoryTaskStore } from "../eras/tasks/memory_task_store.ts";
import { TaskRunner } from "../eras/tasks/runner.ts";
import { SharedTaskStore } from "../eras/tasks/shared_task_store.ts";
import type { TaskStore } from "../eras/tasks/store.ts";
import { skillsMethods } from "../extensions/skills/methods.ts";
import { storedStateSecrets } from "../store/sealing_keys.ts";
import type { EraDeps } from "./eras.ts";

/** A sealed state carries answers; beyond this size the client is asked to start over. */
const MAX_REQUEST_STATE_BYTES = 256 * 1024;

type Handler = MethodHandler<McpSession>;

/** The loaded parts. */
export interface ModernDoor {
  /** The modern method table. */
  readonly modern: ReadonlyMap<string, Handler>;
  /** The skills extension's methods, one table per era. */
  readonly skills: Readonly<Record<"legacy" | "modern", ReadonlyMap<string, Handler>>>;
  /** The task runner (closed by the server's `close()`). */
  readonly tasks: TaskRunner;
}

/** Builds the parts over the server's `deps`. */
export function openModernDoor(deps: EraDeps): ModernDoor {
  const tasks = createTaskRunner(deps);
  const callerScoped = deps.options.http?.authenticate !== undefined ||
    deps.options.http?.auth !== undefined;
  const shelf = deps.skills;
  const skills = skillsMethods({
    core: deps.core,
    // Read when a skills method runs, which is only once a skill was published.
    get catalog() {
      return shelf.catalog;
    },
    services: deps.services,
    serverInfo: deps.resolved.serverInfo,
    listTtlMs: deps.resolved.listTtlMs,
    readTtlMs: deps.resolved.readTtlMs,
    callerScoped,
  });
  return { modern: modernTable(deps, tasks, callerScoped), skills, tasks };
}

/**
 * The task runner of a server: where tasks are kept (the options' store, else
 * the shared store's, else memory), and where their changes are announced.
 */
function createTaskRunner(deps: EraDeps): TaskRunner {
  const { options, now } = deps;
  const tasks: TaskRunner = new TaskRunner({
    ...deps.taskTimes,
    store: options.tasks?.store ?? defaultTaskStore(deps),
    services: deps.services,
    now,
    log: deps.log,
    changed: (task) =>
      deps.subscriptions.taskChanged(task.taskId, task.principal, tasks.notice(task)),
  });
  return tasks;
}

function defaultTaskStore(deps: EraDeps): TaskStore {
  const { now, options } = deps;
  const most = options.quotas?.tasks;
  const bounds = most === undefined ? { now } : { now, maxTasksPerPrincipal: most };
  return options.store === undefined
    ? new MemoryTaskStore(bounds)
    : new SharedTaskStore(options.store, bounds);
}

function modernTable(
  deps: EraDeps,
  tasks: TaskRunner,
  callerScoped: boolean,
): Map<string, Handler> {
  const { options, resolved } = deps;
  return modernMethods({
    core: deps.core,
    supportedVersions: SUPPORTED_PROTOCOL_VERSIONS,
    instructions: options.instructions,
    serverInfo: resolved.serverInfo,
    services: deps.services,
    sealer: new StateSealer(
      resolved.stateSecrets,
      MAX_REQUEST_STATE_BYTES,
      options.store === undefined ? undefined : storedStateSecrets(options.store),
      resolved.quotas.requestStates,
    ),
    subscriptions: deps.subscriptions,
    listenStreams: new PrincipalCounts(resolved.quotas.listenStreams),
    listTtlMs: resolved.listTtlMs,
    readTtlMs: resolved.readTtlMs,
    callerScoped,
    maxInputRounds: resolved.maxInputRounds,
    requestStateTtlMs: resolved.requestStateTtlMs,
    now: deps.now,
    tasks,
  });
}
