/**
 * `createServer()`: the wiring of one server — its masker, request core
 * (registries, guardrail pipeline), the two era front doors routed per
 * request, the ways clients reach it and how it shuts down — over the parts
 * in this folder.
 *
 * @module
 */

import { composePipeline, orderGuardrails } from "../call/compose.ts";
import type { Dispatcher } from "../dispatcher/dispatcher.ts";
import { createRegistry, type ItemType, type Registry } from "../core/registry.ts";
import { RequestCore } from "../core/request_core.ts";
import type { McpSession } from "../core/session.ts";
import { SubscriptionHub } from "../eras/modern/subscriptions.ts";
import { SKILLS_METHOD_NAMES } from "../extensions/skills/method_names.ts";
import { MODERN_METHOD_NAMES } from "../eras/methods/modern_names.ts";
import { checkTaskOptions } from "../eras/tasks/options.ts";
import { SkillShelf } from "../extensions/skills/loaded.ts";
import type { ObjectSchema } from "../schema/types.ts";
import { ChangeFeed } from "./changes.ts";
import { Connections } from "./connections.ts";
import { createDoors } from "./eras.ts";
import { LiveSessions } from "./live_sessions.ts";
import { maskedLog, serverMasker } from "./masker.ts";
import { resolveOptions } from "./options.ts";
import { registerApp } from "../extensions/apps/register.ts";
import { RootsListeners } from "./roots_listeners.ts";
import { shutDown, type ShutdownParts } from "./shutdown.ts";
import type { Server, ServerOptions } from "./types.ts";

/**
 * Creates an MCP server that speaks both protocol eras: legacy sessions
 * opened by `initialize` (revisions 2024-11-05 to 2025-11-25) and stateless
 * requests of revision 2026-07-28, on the same transports. Capabilities are
 * advertised only for what is registered; every request that reads or acts
 * on a tool, resource or prompt runs through the guardrail pipeline.
 *
 * @example A complete stdio server
 * ```ts
 * import { createServer, defineTool, serveStdio } from "@warden/mcp";
 *
 * const server = createServer({
 *   name: "weather",
 *   version: "1.0.0",
 *   tools: [defineTool({
 *     name: "forecast",
 *     description: "Tomorrow's weather for a city",
 *     inputSchema: {
 *       type: "object",
 *       properties: { city: { type: "string" } },
 *       required: ["city"],
 *     },
 *     handler: ({ city }) => `Sunny in ${city}`,
 *   })],
 * });
 * if (import.meta.main) await serveStdio(server);
 * ```
 */
export function createServer<
  const T extends readonly ObjectSchema[] = readonly [],
  const P extends readonly unknown[] = readonly [],
  const O extends readonly unknown[] = readonly [],
>(options: ServerOptions<T, P, O>): Server {
  const resolved = resolveOptions(options);
  const guardrails = orderGuardrails(options.guardrails ?? []);
  const services = serverMasker(guardrails);
  const log = maskedLog(options.log, services.mask, options.logStacks ?? true);
  const live = new LiveSessions();
  const subscriptions = new SubscriptionHub();
  const roots = new RootsListeners(log);
  // `core` is made below; nothing changes before the server is running.
  const changes = new ChangeFeed(
    live,
    subscriptions,
    (uri, principal) => core.visible("resource", uri, principal),
  );
  const registry = createRegistry((list) => changes.listChanged(list));
  const core = new RequestCore({
    registry,
    guardrails,
    pipeline: composePipeline(guardrails),
    pageSize: options.pageSize,
    log,
    inflightQuota: resolved.quotas.inflightCalls,
    scopeVisible: options.http?.auth?.visible,
    mask: services.callMask,
  });
  const now = options.now ?? Date.now;
  const skills = new SkillShelf(core, options.pageSize);
  // The modern era, tasks and skills methods load on first use; the task options are checked now.
  const { dispatcher, close } = createDoors({
    skills,
    core,
    options,
    resolved,
    services,
    subscriptions,
    taskTimes: checkTaskOptions(options.tasks),
    now,
    rootsChanged: (session) => roots.rootsChanged(session),
    log,
  });
  const connections = new Connections({
    dispatcher,
    live,
    subscriptions,
    resolved,
    http: options.http,
    headerParams: (tool) => registry.tools.get(tool)?.headers,
    modernMethods: { has: (method) => implementsModern(method, skills) },
    log,
    refusals: {
      guardrails,
      principal: resolved.principal,
      callMask: services.callMask,
      mask: services.mask,
      log,
    },
  });
  const embedded = connections.newSession(undefined);
  // Shared store (issue 17): changes reach the clients of every instance on it.
  if (options.store !== undefined) changes.join(options.store, log);
  registerItems(registry, options);
  const store = options.store;
  const tasks = { close };
  const shutdown = { tasks, subscriptions, embedded, live, changes, guardrails, store, log };
  return serverOf({
    registry,
    core,
    skills,
    changes,
    roots,
    dispatcher,
    embedded,
    connections,
    shutdown,
  });
}

/** Whether revision 2026-07-28 has `method`: a skills method only while a skill is served. */
function implementsModern(method: string, skills: SkillShelf): boolean {
  return MODERN_METHOD_NAMES.has(method) || (SKILLS_METHOD_NAMES.has(method) && skills.size > 0);
}

/** Registers the items the options list, in order: tools, resources, templates, prompts. */
function registerItems<
  const T extends readonly ObjectSchema[],
  const P extends readonly unknown[],
  const O extends readonly unknown[],
>(registry: Registry, options: ServerOptions<T, P, O>): void {
  for (const tool of options.tools ?? []) registry.tools.add(tool);
  for (const resource of options.resources ?? []) registry.resources.add(resource);
  for (const template of options.resourceTemplates ?? []) registry.templates.add(template);
  for (const prompt of options.prompts ?? []) registry.prompts.add(prompt);
}

/** The registry table that holds items of `type`. */
function tableOf(registry: Registry, type: ItemType): { remove(key: string): boolean } {
  return type === "tool"
    ? registry.tools
    : type === "resource"
    ? registry.resources
    : type === "resourceTemplate"
    ? registry.templates
    : registry.prompts;
}

/** The parts a server's methods use. */
interface ServerParts {
  readonly registry: Registry;
  readonly core: RequestCore;
  readonly skills: SkillShelf;
  readonly changes: ChangeFeed;
  readonly roots: RootsListeners;
  readonly dispatcher: Dispatcher<McpSession>;
  readonly embedded: McpSession;
  readonly connections: Connections;
  readonly shutdown: ShutdownParts;
}

/**
 * The server as its users see it. Its methods are closures, not a class's,
 * so that they work detached (`Deno.serve(server.fetch)`).
 */
function serverOf(parts: ServerParts): Server {
  const { registry, core, skills, changes, roots, dispatcher, embedded, connections } = parts;
  return {
    shutdownGraceMs: connections.shutdownGraceMs,
    // Method parameters are bivariant, so a typed definition is a plain one.
    tool: (definition) => registry.tools.add(definition as never),
    resource: (definition) => registry.resources.add(definition),
    resourceTemplate: (definition) => registry.templates.add(definition),
    prompt: (definition) => registry.prompts.add(definition as never),
    skill: (loaded) => skills.publish(loaded),
    app: (definition) => registerApp(core, definition),
    remove: (type, key) => tableOf(registry, type).remove(key),
    notifyResourceUpdated: (uri) => changes.resourceUpdated(uri),
    onRootsListChanged: (listener) => roots.add(listener),
    handle: (message) => dispatcher.handle(message, embedded),
    fetch: (request) => connections.fetch(request),
    connect: (transport, options) => connections.connect(transport, options),
    async close() {
      connections.close();
      await shutDown(parts.shutdown);
    },
  };
}
