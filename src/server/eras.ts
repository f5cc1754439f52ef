/**
 * The two era front doors of one server, built over its request core: the
 * legacy and modern method tables, the task runner the modern one starts
 * tasks with, and the dispatcher that routes each message to its era.
 *
 * @module
 */

import { Dispatcher } from "../dispatcher/dispatcher.ts";
import type { ContextServices } from "../core/context_base.ts";
import { SUPPORTED_PROTOCOL_VERSIONS } from "../core/lifecycle.ts";
import { PrincipalCounts } from "../core/quotas.ts";
import type { RequestCore } from "../core/request_core.ts";
import type { McpSession } from "../core/session.ts";
import { legacyMethods } from "../eras/methods/legacy.ts";
import { modernMethods } from "../eras/methods/modern.ts";
import { discoverResult, type DiscoverSource } from "../eras/modern/discover.ts";
import { META_KEYS } from "../eras/modern/meta.ts";
import { StateSealer } from "../eras/modern/request_state.ts";
import type { SubscriptionHub } from "../eras/modern/subscriptions.ts";
import { resolveTaskOptions } from "../eras/tasks/options.ts";
import type { SkillCatalog } from "../extensions/skills/catalog.ts";
import { skillsMethods } from "../extensions/skills/methods.ts";
import { TaskRunner } from "../eras/tasks/runner.ts";
import { storedStateSecrets } from "../store/sealing_keys.ts";
import type { ResolvedOptions } from "./options.ts";
import { routeEras } from "./router.ts";
import type { ServerOptions } from "./types.ts";

/** A sealed state carries answers; beyond this size the client is asked to start over. */
const MAX_REQUEST_STATE_BYTES = 256 * 1024;

/** What the front doors are built from. */
export interface EraDeps {
  /** The request core both eras call into. */
  readonly core: RequestCore;
  /** The options as given (instructions, store, HTTP authentication). */
  readonly options: ServerOptions;
  /** The options resolved, defaults applied. */
  readonly resolved: ResolvedOptions;
  /** The server's masker, as contexts borrow it. */
  readonly services: ContextServices;
  /** The modern era's subscriptions. */
  readonly subscriptions: SubscriptionHub;
  /** The task runner. */
  readonly tasks: TaskRunner;
  /** The published skills (the skills extension's methods answer from it). */
  readonly skills: SkillCatalog;
  /** The server's clock. */
  readonly now: () => number;
  /** Called when a legacy client says its roots changed. */
  readonly rootsChanged: (session: McpSession) => void;
  /** Diagnostics. */
  readonly log: (message: string) => void;
}

/**
 * The task runner of a server: where tasks are kept (the shared store's
 * unless the options name one), and where their changes are announced.
 */
export function createTaskRunner(
  options: ServerOptions,
  services: ContextServices,
  subscriptions: SubscriptionHub,
  now: () => number,
  log: (message: string) => void,
): TaskRunner {
  const tasks: TaskRunner = new TaskRunner({
    ...resolveTaskOptions(options.tasks, now, options.store, options.quotas?.tasks),
    services,
    now,
    log,
    changed: (task) => subscriptions.taskChanged(task.taskId, task.principal, tasks.notice(task)),
  });
  return tasks;
}

/** The dispatcher of a server: both eras' tables, or the legacy one alone. */
export function createDispatcher(deps: EraDeps): Dispatcher<McpSession> {
  const legacy = legacyTables(deps);
  const modern = modernTable(deps);
  const skills = skillsMethods({
    core: deps.core,
    catalog: deps.skills,
    services: deps.services,
    serverInfo: deps.resolved.serverInfo,
    listTtlMs: deps.resolved.listTtlMs,
    readTtlMs: deps.resolved.readTtlMs,
    callerScoped: deps.options.http?.authenticate !== undefined ||
      deps.options.http?.auth !== undefined,
  });
  for (const [name, handler] of skills.legacy) legacy.methods.set(name, handler);
  for (const [name, handler] of skills.modern) modern.set(name, handler);
  const tables = deps.resolved.modern
    ? routeEras(legacy, { methods: modern, notifications: legacy.notifications })
    : legacy;
  return new Dispatcher<McpSession>({ ...tables, log: deps.log, mask: deps.services.callMask });
}

/** What `server/discover` tells either era. */
function discovery(deps: EraDeps): DiscoverSource {
  return {
    core: deps.core,
    supportedVersions: SUPPORTED_PROTOCOL_VERSIONS,
    instructions: deps.options.instructions,
  };
}

function legacyTables(deps: EraDeps): ReturnType<typeof legacyMethods> {
  const { resolved } = deps;
  const legacy = legacyMethods({
    core: deps.core,
    serverInfo: resolved.serverInfo,
    instructions: deps.options.instructions,
    services: deps.services,
    rootsChanged: deps.rootsChanged,
  });
  // A legacy client may call server/discover too; it gets the same answer, with no _meta needed.
  if (resolved.modern) {
    const shared = discovery(deps);
    legacy.methods.set("server/discover", () => ({
      ...discoverResult(shared),
      resultType: "complete",
      _meta: { [META_KEYS.serverInfo]: resolved.serverInfo },
    }));
  }
  return legacy;
}

function modernTable(deps: EraDeps): ReturnType<typeof modernMethods> {
  const { options, resolved } = deps;
  return modernMethods({
    ...discovery(deps),
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
    callerScoped: options.http?.authenticate !== undefined || options.http?.auth !== undefined,
    maxInputRounds: resolved.maxInputRounds,
    requestStateTtlMs: resolved.requestStateTtlMs,
    now: deps.now,
    tasks: deps.tasks,
  });
}
