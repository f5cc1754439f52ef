/**
 * `createServer()`: one request core (registries, guardrail pipeline), the
 * two era front doors routed per request, and the sessions it serves.
 *
 * @module
 */

import { runConnection } from "../dispatcher/connection.ts";
import { Dispatcher } from "../dispatcher/dispatcher.ts";
import { composePipeline, orderGuardrails } from "../call/compose.ts";
import {
  LEGACY_PROTOCOL_VERSIONS,
  SUPPORTED_PROTOCOL_VERSIONS,
  UNNEGOTIATED_PROTOCOL_VERSION,
} from "../core/lifecycle.ts";
import { createRegistry } from "../core/registry.ts";
import { RequestCore } from "../core/request_core.ts";
import { listRoots } from "../eras/legacy/client_requests.ts";
import { legacyMethods } from "../eras/methods/legacy.ts";
import { McpSession } from "../core/session.ts";
import { discoverResult } from "../eras/modern/discover.ts";
import { META_KEYS } from "../eras/modern/meta.ts";
import { modernMethods } from "../eras/methods/modern.ts";
import { StateSealer } from "../eras/modern/request_state.ts";
import { SubscriptionHub } from "../eras/modern/subscriptions.ts";
import { resolveTaskOptions } from "../eras/tasks/options.ts";
import { TaskRunner } from "../eras/tasks/runner.ts";
import type { createHttpHandler } from "../http/handler.ts";
import { maskedLog, serverMasker } from "./masker.ts";
import { resolveOptions } from "./options.ts";
import { routeEras } from "./router.ts";
import type { ClientSession, Server, ServerOptions } from "./types.ts";
import type { ObjectSchema } from "../schema/types.ts";
import { type ChangeBus, joinChangeBus, type ListName } from "../store/change_bus.ts";
import { storedStateSecrets } from "../store/sealing_keys.ts";

/** How long close() waits for aborted handlers to settle before flushing the guardrails. */
const ABORT_WAIT_MS = 1000;

/** The client notifications revision 2026-07-28 keeps (the rest were removed with sessions). */
const MODERN_NOTIFICATIONS: ReadonlySet<string> = new Set(["notifications/cancelled"]);

/** A sealed state carries answers; beyond this size the client is asked to start over. */
const MAX_REQUEST_STATE_BYTES = 256 * 1024;

interface LiveSession {
  readonly session: McpSession;
  readonly close: () => void;
  readonly done: Promise<void>;
}

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
  const log = maskedLog(options.log, services.mask);
  // Every legacy session a client can be reached on: stdio/memory connections and HTTP sessions.
  const live = new Set<LiveSession>();
  const subscriptions = new SubscriptionHub();
  const rootsListeners = new Set<(session: ClientSession) => void>();

  const deliverListChanged = (list: ListName): void => {
    for (const { session } of live) {
      if (session.initialized) session.notify(`notifications/${list}/list_changed`);
    }
    subscriptions.listChanged(list);
  };
  // Shared store (issue 17): changes reach the clients of every instance on it.
  let bus: ChangeBus | undefined;
  const listChanged = (list: ListName): void => {
    deliverListChanged(list);
    bus?.publish({ list });
  };
  const registry = createRegistry(listChanged);
  const core = new RequestCore({
    registry,
    guardrails,
    pipeline: composePipeline(guardrails),
    pageSize: options.pageSize,
    log,
  });

  const clientSession = (session: McpSession): ClientSession => ({
    client: {
      info: session.clientInfo,
      capabilities: session.clientCapabilities,
      protocolVersion: session.protocolVersion ?? UNNEGOTIATED_PROTOCOL_VERSION,
    },
    principal: session.principal,
    roots: (rootOptions = {}) => {
      const request: { timeoutMs?: number; signal?: AbortSignal } = {};
      if (rootOptions.timeoutMs !== undefined) request.timeoutMs = rootOptions.timeoutMs;
      if (rootOptions.signal !== undefined) request.signal = rootOptions.signal;
      return listRoots(session, request);
    },
  });
  const now = options.now ?? Date.now;
  const taskOptions = resolveTaskOptions(options.tasks, now, options.store);
  const tasks = new TaskRunner({
    ...taskOptions,
    services,
    now,
    log,
    changed: (task) => subscriptions.taskChanged(task.taskId, task.principal, tasks.notice(task)),
  });
  const discovery = {
    core,
    supportedVersions: SUPPORTED_PROTOCOL_VERSIONS,
    instructions: options.instructions,
  };
  const legacy = legacyMethods({
    core,
    serverInfo: resolved.serverInfo,
    instructions: options.instructions,
    services,
    rootsChanged: (session) => {
      for (const listener of rootsListeners) {
        try {
          listener(clientSession(session));
        } catch (error) {
          log(`warden: a roots listener failed: ${String(error)}`);
        }
      }
    },
  });
  // A legacy client may call server/discover too; it gets the same answer, with no _meta needed.
  if (resolved.modern) {
    legacy.methods.set("server/discover", () => ({
      ...discoverResult(discovery),
      resultType: "complete",
      _meta: { [META_KEYS.serverInfo]: resolved.serverInfo },
    }));
  }
  const modern = modernMethods({
    ...discovery,
    serverInfo: resolved.serverInfo,
    services,
    sealer: new StateSealer(
      resolved.stateSecrets,
      MAX_REQUEST_STATE_BYTES,
      options.store === undefined ? undefined : storedStateSecrets(options.store),
    ),
    subscriptions,
    listTtlMs: resolved.listTtlMs,
    readTtlMs: resolved.readTtlMs,
    callerScoped: options.http?.authenticate !== undefined,
    maxInputRounds: resolved.maxInputRounds,
    requestStateTtlMs: resolved.requestStateTtlMs,
    now,
    tasks,
  });
  const tables = resolved.modern
    ? routeEras(legacy, { methods: modern, notifications: legacy.notifications })
    : legacy;
  const dispatcher = new Dispatcher<McpSession>({ ...tables, log });
  const newSession = (principal: string | undefined): McpSession =>
    new McpSession(principal ?? resolved.principal, resolved.requestTimeoutMs);
  const embedded = newSession(undefined);
  let closed = false;
  let http: Promise<ReturnType<typeof createHttpHandler>> | undefined;

  const deliverResourceUpdated = (uri: string): void => {
    for (const { session } of live) {
      if (session.subscriptions.has(uri) && core.visible("resource", uri, session.principal)) {
        session.notify("notifications/resources/updated", { uri });
      }
    }
    subscriptions.resourceUpdated(uri, (principal) => core.visible("resource", uri, principal));
  };
  if (options.store !== undefined) {
    bus = joinChangeBus(options.store, (change) => {
      if ("list" in change) deliverListChanged(change.list);
      else deliverResourceUpdated(change.uri);
    }, log);
  }

  for (const tool of options.tools ?? []) registry.tools.add(tool);
  for (const resource of options.resources ?? []) registry.resources.add(resource);
  for (const template of options.resourceTemplates ?? []) registry.templates.add(template);
  for (const prompt of options.prompts ?? []) registry.prompts.add(prompt);

  const track = (session: McpSession, close: () => void): () => void => {
    let settle!: () => void;
    const entry = { session, close, done: new Promise<void>((resolve) => (settle = resolve)) };
    live.add(entry);
    return () => {
      live.delete(entry);
      settle();
    };
  };

  return {
    shutdownGraceMs: resolved.shutdownGraceMs,
    // Method parameters are bivariant, so a typed definition is a plain one.
    tool: (definition) => registry.tools.add(definition as never),
    resource: (definition) => registry.resources.add(definition),
    resourceTemplate: (definition) => registry.templates.add(definition),
    prompt: (definition) => registry.prompts.add(definition as never),
    remove(type, key) {
      const table = type === "tool"
        ? registry.tools
        : type === "resource"
        ? registry.resources
        : type === "resourceTemplate"
        ? registry.templates
        : registry.prompts;
      return table.remove(key);
    },
    notifyResourceUpdated(uri) {
      deliverResourceUpdated(uri);
      bus?.publish({ uri });
    },
    onRootsListChanged(listener) {
      rootsListeners.add(listener);
      return () => rootsListeners.delete(listener);
    },
    handle(message) {
      return dispatcher.handle(message, embedded);
    },
    async fetch(request) {
      if (closed) return new Response("Service unavailable", { status: 503 });
      // Loaded on first use: a stdio server never pays for the HTTP code at start-up.
      http ??= import("../http/handler.ts").then(({ createHttpHandler }) =>
        createHttpHandler({
          dispatcher,
          newSession,
          track,
          log,
          legacyVersions: LEGACY_PROTOCOL_VERSIONS,
          modern: resolved.modern,
          modernNotifications: MODERN_NOTIFICATIONS,
          headerParams: (tool) => registry.tools.get(tool)?.headers,
        }, options.http)
      );
      return (await http).fetch(request);
    },
    async connect(transport, connectOptions = {}) {
      if (closed) {
        // Release the transport (and the console redirect a stdio transport holds).
        await transport.writable.abort(new Error("The server is closed")).catch(() => {});
        throw new Error("Cannot connect: the server is closed");
      }
      const session = newSession(connectOptions.principal);
      const stop = new AbortController();
      const done = runConnection(transport, dispatcher, session, {
        log,
        shutdownGraceMs: resolved.shutdownGraceMs,
        signal: stop.signal,
        onOpen: (send) => session.attach(send),
        onInputEnd: () => subscriptions.endFor(session),
      });
      const entry = { session, close: () => stop.abort(), done };
      live.add(entry);
      try {
        await done;
      } finally {
        session.detach();
        live.delete(entry);
      }
    },
    async close() {
      closed = true;
      // Running tasks become "cancelled" (statusMessage "The server shut down") before streams close.
      await tasks.close();
      // Subscriptions end gracefully: their listen requests answer before the streams close.
      // The answer crosses several promise steps (handler, dispatcher, transport); one turn of
      // the event loop lets all of them run before the sessions are closed under them.
      if (subscriptions.size > 0) {
        subscriptions.endAll();
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
      const reason = new Error("The server is shutting down");
      const aborted = [embedded, ...[...live].map((entry) => entry.session)];
      // One deadline for every wait below, so a handler that ignores its signal costs a second
      // at most, however many sessions wait for it.
      const deadline = Date.now() + ABORT_WAIT_MS;
      embedded.inflight.abortAll(reason);
      const ending = [...live];
      for (const { session, close } of ending) {
        session.inflight.abortAll(reason);
        close();
      }
      await Promise.allSettled(ending.map((entry) => entry.done));
      // An HTTP session ends as soon as its requests are aborted, before their handlers settle:
      // wait for them too, so every aborted call's audit entry reaches the sinks before the
      // flush below.
      while (aborted.some((session) => session.inflight.size > 0) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      bus?.close();
      for (const guardrail of guardrails) {
        try {
          await guardrail.flush?.();
        } catch (error) {
          log(`warden: guardrail '${guardrail.name}' failed to flush: ${String(error)}`);
        }
      }
      // The shared store closes last: the guardrails may still use it while flushing.
      await options.store?.close().catch((error: unknown) =>
        log(`warden: the shared store failed to close: ${String(error)}`)
      );
    },
  };
}
