/**
 * `createServer()`: the registries, the guardrail pipeline and the MCP
 * method table in one dispatcher, served over transports.
 *
 * @module
 */

import { runConnection } from "../dispatcher/connection.ts";
import { Dispatcher } from "../dispatcher/dispatcher.ts";
import { type CallNext, composePipeline, orderGuardrails } from "../guardrails/pipeline.ts";
import { createHttpHandler } from "../transports/http/handler.ts";
import { listRoots } from "./client_requests.ts";
import { type Implementation, UNNEGOTIATED_PROTOCOL_VERSION } from "./lifecycle.ts";
import { buildMethods, isVisible, malformed, notFound, type ServerState } from "./methods.ts";
import {
  getPrompt,
  type PromptDefinition,
  type RegisteredPrompt,
  registerPrompt,
} from "./prompts.ts";
import {
  readResource,
  type RegisteredResource,
  registerResource,
  type ResourceDefinition,
} from "./resources.ts";
import { HandlerContext } from "./request_context.ts";
import { McpSession } from "./session.ts";
import {
  readTemplate,
  type RegisteredTemplate,
  registerTemplate,
  type ResourceTemplateDefinition,
} from "./templates.ts";
import { type RegisteredTool, registerTool, runTool, type ToolDefinition } from "./tools.ts";
import type { ClientSession, Server, ServerOptions } from "./types.ts";

function positive(value: number | undefined, name: string, integer: boolean): void {
  if (value === undefined) return;
  if (
    !Number.isFinite(value) || value < 0 || (integer && (!Number.isInteger(value) || value < 1))
  ) {
    throw new RangeError(
      `Cannot create server: ${name} must be a ${integer ? "positive integer" : "number >= 0"}`,
    );
  }
}

/**
 * Creates an MCP server. Capabilities are advertised only for what is
 * registered; every tools/call, resources/read and prompts/get runs through
 * the guardrail pipeline.
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
export function createServer(options: ServerOptions): Server {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("Cannot create server: expected an options object");
  }
  if (typeof options.name !== "string" || options.name.length === 0) {
    throw new TypeError("Cannot create server: name must be a non-empty string");
  }
  if (typeof options.version !== "string") {
    throw new TypeError("Cannot create server: version must be a string");
  }
  positive(options.shutdownGraceMs, "shutdownGraceMs", false);
  positive(options.requestTimeoutMs, "requestTimeoutMs", false);
  positive(options.pageSize, "pageSize", true);
  const shutdownGraceMs = options.shutdownGraceMs ?? 5000;
  const requestTimeoutMs = options.requestTimeoutMs ?? 60_000;
  const guardrails = orderGuardrails(options.guardrails ?? []);
  const outgoingHooks = guardrails.filter((g) => g.outgoing !== undefined);
  const outgoing = <T>(value: T): T =>
    outgoingHooks.reduce((masked, guardrail) => guardrail.outgoing?.(masked) ?? masked, value);
  const writeLog = options.log ?? ((message: string) => console.error(message));
  // Diagnostics carry error messages and stacks: the redactor sees them too.
  const log = (message: string): void => writeLog(outgoing(message));
  const tools = new Map<string, RegisteredTool>();
  const resources = new Map<string, RegisteredResource>();
  const templates = new Map<string, RegisteredTemplate>();
  const prompts = new Map<string, RegisteredPrompt>();
  // Every session a client can be reached on: stdio/memory connections and HTTP sessions.
  const live = new Set<{ session: McpSession; close: () => void; done: Promise<void> }>();
  const rootsListeners = new Set<(session: ClientSession) => void>();

  const listChanged = (list: "tools" | "resources" | "prompts"): void => {
    for (const { session } of live) {
      if (session.initialized) session.notify(`notifications/${list}/list_changed`);
    }
  };
  const add = <T>(table: Map<string, T>, kind: string, key: string, entry: T): void => {
    if (table.has(key)) throw new TypeError(`Cannot register ${kind} '${key}': already registered`);
    table.set(key, entry);
  };
  const addTool = (definition: ToolDefinition): void => {
    add(tools, "tool", definition?.name, registerTool(definition));
    listChanged("tools");
  };
  const addResource = (definition: ResourceDefinition): void => {
    add(resources, "resource", definition?.uri, registerResource(definition));
    listChanged("resources");
  };
  const addTemplate = (definition: ResourceTemplateDefinition): void => {
    add(templates, "resource template", definition?.uriTemplate, registerTemplate(definition));
    listChanged("resources");
  };
  const addPrompt = (definition: PromptDefinition): void => {
    add(prompts, "prompt", definition?.name, registerPrompt(definition));
    listChanged("prompts");
  };
  for (const tool of options.tools ?? []) addTool(tool);
  for (const resource of options.resources ?? []) addResource(resource);
  for (const template of options.resourceTemplates ?? []) addTemplate(template);
  for (const prompt of options.prompts ?? []) addPrompt(prompt);

  // The innermost step: find the item (after access and rate limit, so a
  // denied caller learns nothing about what exists) and run it.
  const core: CallNext = (call) => {
    const problem = malformed.get(call.context);
    if (problem !== undefined) return Promise.resolve({ status: "invalid", error: problem });
    switch (call.kind) {
      case "tool": {
        const tool = tools.get(call.name);
        if (tool === undefined) return Promise.resolve(notFound("tool", call.name));
        return runTool(tool, call.arguments, call.context, log);
      }
      case "resource": {
        const context = call.context instanceof HandlerContext
          ? call.context.forResource(call.name)
          : { ...call.context, uri: call.name };
        const resource = resources.get(call.name);
        if (resource !== undefined) return readResource(resource, context, log);
        for (const template of templates.values()) {
          const variables = template.template.match(call.name);
          if (variables !== undefined) return readTemplate(template, variables, context, log);
        }
        return Promise.resolve(notFound("resource", call.name));
      }
      case "prompt": {
        const prompt = prompts.get(call.name);
        if (prompt === undefined) return Promise.resolve(notFound("prompt", call.name));
        return getPrompt(prompt, call.arguments, call.context, log);
      }
    }
  };

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
  const serverInfo: Implementation = { name: options.name, version: options.version };
  if (options.title !== undefined) serverInfo.title = options.title;
  if (options.description !== undefined) serverInfo.description = options.description;
  if (options.icons !== undefined) serverInfo.icons = options.icons;
  if (options.websiteUrl !== undefined) serverInfo.websiteUrl = options.websiteUrl;
  const state: ServerState = {
    serverInfo,
    instructions: options.instructions,
    tools,
    resources,
    templates,
    prompts,
    guardrails,
    pipeline: composePipeline(guardrails, core),
    services: {
      outgoing,
    },
    pageSize: options.pageSize,
    log,
    rootsChanged: (session) => {
      for (const listener of rootsListeners) {
        try {
          listener(clientSession(session));
        } catch (error) {
          log(`warden: a roots listener failed: ${String(error)}`);
        }
      }
    },
  };
  const { methods, notifications } = buildMethods(state);
  const dispatcher = new Dispatcher<McpSession>({ methods, notifications, log });
  const embedded = new McpSession(options.principal, requestTimeoutMs);
  let closed = false;
  let http: ReturnType<typeof createHttpHandler> | undefined;

  return {
    shutdownGraceMs,
    tool(definition) {
      // Method parameters are bivariant, so the typed definition is a ToolDefinition.
      addTool(definition as ToolDefinition);
    },
    resource: addResource,
    resourceTemplate: addTemplate,
    prompt(definition) {
      addPrompt(definition as PromptDefinition);
    },
    remove(type, key) {
      const table = type === "tool"
        ? tools
        : type === "resource"
        ? resources
        : type === "resourceTemplate"
        ? templates
        : prompts;
      const removed = table.delete(key);
      if (removed) {
        listChanged(type === "tool" ? "tools" : type === "prompt" ? "prompts" : "resources");
      }
      return removed;
    },
    notifyResourceUpdated(uri) {
      for (const { session } of live) {
        if (
          session.subscriptions.has(uri) &&
          isVisible(guardrails, "resource", uri, session.principal)
        ) {
          session.notify("notifications/resources/updated", { uri });
        }
      }
    },
    onRootsListChanged(listener) {
      rootsListeners.add(listener);
      return () => rootsListeners.delete(listener);
    },
    handle(message) {
      return dispatcher.handle(message, embedded);
    },
    fetch(request) {
      if (closed) return Promise.resolve(new Response("Service unavailable", { status: 503 }));
      http ??= createHttpHandler({
        dispatcher,
        newSession: (principal) => new McpSession(principal ?? options.principal, requestTimeoutMs),
        track: (session, close) => {
          let settle!: () => void;
          const entry = {
            session,
            close,
            done: new Promise<void>((resolve) => (settle = resolve)),
          };
          live.add(entry);
          return () => {
            live.delete(entry);
            settle();
          };
        },
        log,
      }, options.http);
      return http.fetch(request);
    },
    async connect(transport, connectOptions = {}) {
      if (closed) {
        // Release the transport (and the console redirect a stdio transport holds).
        await transport.writable.abort(new Error("The server is closed")).catch(() => {});
        throw new Error("Cannot connect: the server is closed");
      }
      const session = new McpSession(
        connectOptions.principal ?? options.principal,
        requestTimeoutMs,
      );
      const stop = new AbortController();
      const done = runConnection(transport, dispatcher, session, {
        log,
        shutdownGraceMs,
        signal: stop.signal,
        onOpen: (send) => session.attach(send),
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
      const reason = new Error("The server is shutting down");
      embedded.inflight.abortAll(reason);
      for (const { session, close } of live) {
        session.inflight.abortAll(reason);
        close();
      }
      await Promise.allSettled([...live].map((entry) => entry.done));
      for (const guardrail of guardrails) {
        try {
          await guardrail.flush?.();
        } catch (error) {
          log(`warden: guardrail '${guardrail.name}' failed to flush: ${String(error)}`);
        }
      }
    },
  };
}
