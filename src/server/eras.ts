/**
 * The two era front doors of one server, built over its request core: the
 * legacy method table at once, and the modern one (with the tasks and skills
 * extensions) on the first request that needs it, then the dispatcher that
 * routes each message to its era.
 *
 * @module
 */

import { Dispatcher, type MethodHandler } from "../dispatcher/dispatcher.ts";
import type { ContextServices } from "../core/context_base.ts";
import { SUPPORTED_PROTOCOL_VERSIONS } from "../core/lifecycle.ts";
import type { RequestCore } from "../core/request_core.ts";
import type { McpSession } from "../core/session.ts";
import { legacyMethods } from "../eras/methods/legacy.ts";
import { methodNotFound, MODERN_METHOD_LIST } from "../eras/methods/modern_names.ts";
import { discoverResult } from "../eras/modern/discover.ts";
import { META_KEYS } from "../eras/modern/meta.ts";
import type { SubscriptionHub } from "../eras/modern/subscriptions.ts";
import type { TaskTimes } from "../eras/tasks/options.ts";
import type { SkillShelf } from "../extensions/skills/loaded.ts";
import { SKILLS_METHOD_LIST } from "../extensions/skills/method_names.ts";
import { LazyPart } from "./lazy_part.ts";
import type { ModernDoor } from "./modern_door.ts";
import type { ResolvedOptions } from "./options.ts";
import { routeEras } from "./router.ts";
import type { ServerOptions } from "./types.ts";

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
  /** The tasks' times, checked when the server was created. */
  readonly taskTimes: TaskTimes;
  /** The published skills (the skills extension's methods answer from it). */
  readonly skills: SkillShelf;
  /** The server's clock. */
  readonly now: () => number;
  /** Called when a legacy client says its roots changed. */
  readonly rootsChanged: (session: McpSession) => void;
  /** Diagnostics. */
  readonly log: (message: string) => void;
}

/** A server's dispatcher, and how its lazily loaded parts close. */
export interface EraDoors {
  /** Routes each message to its era. */
  readonly dispatcher: Dispatcher<McpSession>;
  /** Cancels running tasks and closes the task store (see shutdown.ts). */
  close(): Promise<void>;
}

type Handler = MethodHandler<McpSession>;

/** The dispatcher of a server: both eras' tables, or the legacy one alone. */
export function createDoors(deps: EraDeps): EraDoors {
  const door = new LazyPart<ModernDoor>(
    // A static specifier, so that `deno compile` and `deno publish` include the module.
    async () => (await import("./modern_door.ts")).openModernDoor(deps),
    "the 2026-07-28 era and the tasks and skills extensions",
    deps.log,
  );
  const legacy = legacyTables(deps);
  const modern = new Map<string, Handler>();
  for (const name of MODERN_METHOD_LIST) modern.set(name, deferred(door, name, (d) => d.modern));
  // The skills methods do not exist while no skill is published: no need to load them to say so.
  const served = (): boolean => deps.skills.size > 0;
  for (const name of SKILLS_METHOD_LIST) {
    legacy.methods.set(name, deferred(door, name, (d) => d.skills.legacy, served));
    modern.set(name, deferred(door, name, (d) => d.skills.modern, served));
  }
  const tables = deps.resolved.modern
    ? routeEras(legacy, { methods: modern, notifications: legacy.notifications })
    : legacy;
  const dispatcher = new Dispatcher<McpSession>({
    ...tables,
    log: deps.log,
    mask: deps.services.callMask,
  });
  return { dispatcher, close: () => closeDoor(door, deps.options) };
}

/** A handler that loads the door on its first call; once it is loaded, calls through at once. */
function deferred(
  door: LazyPart<ModernDoor>,
  name: string,
  table: (door: ModernDoor) => ReadonlyMap<string, Handler>,
  served: () => boolean = () => true,
): Handler {
  const call = (loaded: ModernDoor, ...args: Parameters<Handler>): ReturnType<Handler> => {
    const handler = table(loaded).get(name);
    if (handler === undefined) throw methodNotFound(name);
    return handler(...args);
  };
  return (params, context) => {
    if (!served()) throw methodNotFound(name);
    const loaded = door.value;
    if (loaded !== undefined) return call(loaded, params, context);
    return door.get().then((opened) => call(opened, params, context));
  };
}

/** Closes the task runner if it was loaded; else the task store the options gave, as it would. */
async function closeDoor(door: LazyPart<ModernDoor>, options: ServerOptions): Promise<void> {
  const loaded = await door.close();
  if (loaded !== undefined) await loaded.tasks.close();
  else options.tasks?.store?.close();
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
    const shared = {
      core: deps.core,
      supportedVersions: SUPPORTED_PROTOCOL_VERSIONS,
      instructions: deps.options.instructions,
    };
    legacy.methods.set("server/discover", () => ({
      ...discoverResult(shared),
      resultType: "complete",
      _meta: { [META_KEYS.serverInfo]: resolved.serverInfo },
    }));
  }
  return legacy;
}
