/**
 * `createServer()`: wires the registries, the guardrail pipeline and the MCP
 * method table into one dispatcher, and runs it over transports.
 *
 * @module
 */

import { runConnection } from "../dispatcher/connection.ts";
import {
  Dispatcher,
  type MethodHandler,
  type NotificationHandler,
} from "../dispatcher/dispatcher.ts";
import {
  type CallNext,
  type CallOutcome,
  composePipeline,
  type GuardedCall,
  type Guardrail,
  orderGuardrails,
} from "../guardrails/pipeline.ts";
import { ErrorCode, RpcError } from "../jsonrpc/errors.ts";
import type { JsonRpcId, JsonRpcParams, JsonRpcResponse } from "../jsonrpc/messages.ts";
import type { Transport } from "../transports/transport.ts";
import type { RequestContext } from "./context.ts";
import {
  type Implementation,
  LATEST_PROTOCOL_VERSION,
  McpSession,
  negotiateVersion,
} from "./lifecycle.ts";
import { errorOutcome } from "./outcome.ts";
import {
  getPrompt,
  type PromptArgument,
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
import { type RegisteredTool, registerTool, runTool, type ToolDefinition } from "./tools.ts";
import type { ObjectSchema } from "../schema/types.ts";
import type { InflightRequest } from "../dispatcher/inflight.ts";

/** Options of {@linkcode createServer}. */
export interface ServerOptions {
  /** The server's programmatic name, sent as `serverInfo.name`. */
  name: string;
  /** The server's version, sent as `serverInfo.version`. */
  version: string;
  /** A human-readable name, sent as `serverInfo.title`. */
  title?: string;
  /** Guidance for the model on how to use this server, sent at `initialize`. */
  instructions?: string;
  /** Tools to register now (more can be added with `server.tool()`). */
  tools?: readonly ToolDefinition[];
  /** Resources to register now. */
  resources?: readonly ResourceDefinition[];
  /** Prompts to register now. */
  prompts?: readonly PromptDefinition[];
  /** Guardrails, run in the fixed pipeline order whatever their order here. */
  guardrails?: readonly Guardrail[];
  /**
   * The principal guardrails decide about, for sessions that don't name one
   * in `connect()`. The client's `clientInfo` is never used for this: a client
   * could claim any name.
   */
  principal?: string;
  /**
   * Where diagnostics go: skipped lines, internal errors with their stacks.
   * @default {console.error}, i.e. stderr
   */
  log?: (message: string) => void;
  /**
   * How long in-flight requests may finish after the client closes the
   * stream, before they are aborted.
   * @default {5000}
   */
  shutdownGraceMs?: number;
}

/** Options of `server.connect()`. */
export interface ConnectOptions {
  /** The principal of this session; overrides the server's `principal`. */
  principal?: string;
}

/**
 * An MCP server: register tools, resources and prompts, then `connect()` it
 * to a transport, or call `handle()` directly.
 */
export interface Server {
  /** Registers a tool; its handler's argument type comes from the schema literal. */
  tool<const S extends ObjectSchema, const O extends ObjectSchema | undefined = undefined>(
    definition: ToolDefinition<S, O>,
  ): void;
  /** Registers a resource. */
  resource(definition: ResourceDefinition): void;
  /** Registers a prompt; its `get` argument type comes from the argument list. */
  prompt<const A extends readonly PromptArgument[] = readonly []>(
    definition: PromptDefinition<A>,
  ): void;
  /** Removes a tool, resource (by URI) or prompt; false when there was none. */
  remove(kind: "tool" | "resource" | "prompt", name: string): boolean;
  /**
   * Handles one parsed JSON-RPC message (or batch) on the server's embedded
   * session and resolves to the reply, or undefined when none is due.
   */
  handle(message: unknown): Promise<JsonRpcResponse | JsonRpcResponse[] | undefined>;
  /** Serves one session over `transport`; resolves when the session has ended. */
  connect(transport: Transport, options?: ConnectOptions): Promise<void>;
  /** Aborts in-flight handlers, ends every session, and flushes guardrails (the audit log). */
  close(): Promise<void>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function implementationOf(value: unknown): Implementation | undefined {
  if (!isRecord(value) || typeof value.name !== "string" || typeof value.version !== "string") {
    return undefined;
  }
  const info: Implementation = { name: value.name, version: value.version };
  if (typeof value.title === "string") info.title = value.title;
  return info;
}

function invalid(message: string): RpcError {
  return new RpcError(ErrorCode.InvalidParams, `Invalid params: ${message}`);
}

function stringParam(params: JsonRpcParams, key: string): string {
  const value = params[key];
  if (typeof value !== "string") throw invalid(`${key} must be a string`);
  return value;
}

function argumentsParam(params: JsonRpcParams): Readonly<Record<string, unknown>> {
  const value = params.arguments;
  if (value === undefined) return {};
  if (!isRecord(value)) throw invalid("arguments must be an object");
  return value;
}

function progressTokenOf(
  meta: Readonly<Record<string, unknown>> | undefined,
): string | number | undefined {
  const token = meta?.progressToken;
  return typeof token === "string" || typeof token === "number" ? token : undefined;
}

/** The handler-facing context; the signal is made only if someone reads it. */
function contextOf(
  id: JsonRpcId,
  params: JsonRpcParams,
  session: McpSession,
  request: InflightRequest,
): RequestContext {
  const meta = isRecord(params._meta) ? params._meta : undefined;
  return {
    get signal() {
      return request.signal;
    },
    requestId: id,
    client: {
      info: session.clientInfo,
      capabilities: session.clientCapabilities,
      protocolVersion: session.protocolVersion ?? LATEST_PROTOCOL_VERSION,
    },
    principal: session.principal,
    _meta: meta,
    progressToken: progressTokenOf(meta),
  };
}

/**
 * Creates an MCP server. Capabilities are advertised only for what is
 * registered; every tools/call, resources/read and prompts/get runs through
 * the guardrail pipeline.
 *
 * @example A complete stdio server
 * ```ts
 * import { createServer, defineTool, StdioTransport } from "@warden/mcp";
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
 * if (import.meta.main) await server.connect(new StdioTransport());
 * ```
 */
export function createServer(options: ServerOptions): Server {
  if (!isRecord(options)) throw new TypeError("Cannot create server: expected an options object");
  if (typeof options.name !== "string" || options.name.length === 0) {
    throw new TypeError("Cannot create server: name must be a non-empty string");
  }
  if (typeof options.version !== "string") {
    throw new TypeError("Cannot create server: version must be a string");
  }
  const log = options.log ?? ((message: string) => console.error(message));
  const shutdownGraceMs = options.shutdownGraceMs ?? 5000;
  if (!Number.isFinite(shutdownGraceMs) || shutdownGraceMs < 0) {
    throw new RangeError("Cannot create server: shutdownGraceMs must be a number >= 0");
  }
  const guardrails = orderGuardrails(options.guardrails ?? []);
  const tools = new Map<string, RegisteredTool>();
  const resources = new Map<string, RegisteredResource>();
  const prompts = new Map<string, RegisteredPrompt>();

  const add = <T>(table: Map<string, T>, kind: string, key: string, entry: T): void => {
    if (table.has(key)) throw new TypeError(`Cannot register ${kind} '${key}': already registered`);
    table.set(key, entry);
  };
  const addTool = (definition: ToolDefinition): void => {
    const registered = registerTool(definition);
    add(tools, "tool", definition.name, registered);
  };
  const addResource = (definition: ResourceDefinition): void => {
    const registered = registerResource(definition);
    add(resources, "resource", definition.uri, registered);
  };
  const addPrompt = (definition: PromptDefinition): void => {
    const registered = registerPrompt(definition);
    add(prompts, "prompt", definition.name, registered);
  };
  for (const tool of options.tools ?? []) addTool(tool);
  for (const resource of options.resources ?? []) addResource(resource);
  for (const prompt of options.prompts ?? []) addPrompt(prompt);

  // The innermost step: find the item (after access and rate limit, so a
  // denied caller learns nothing about what exists) and run it.
  const core: CallNext = (call) => {
    switch (call.kind) {
      case "tool": {
        const tool = tools.get(call.name);
        if (tool === undefined) return Promise.resolve(notFound("tool", call.name));
        return runTool(tool, call.arguments, call.context, log);
      }
      case "resource": {
        const resource = resources.get(call.name);
        if (resource === undefined) return Promise.resolve(notFound("resource", call.name));
        return readResource(resource, { ...call.context, uri: call.name }, log);
      }
      case "prompt": {
        const prompt = prompts.get(call.name);
        if (prompt === undefined) return Promise.resolve(notFound("prompt", call.name));
        return getPrompt(prompt, call.arguments, call.context, log);
      }
    }
  };
  const pipeline = composePipeline(guardrails, core);

  const runCall = async (call: GuardedCall): Promise<Record<string, unknown>> => {
    let outcome: CallOutcome;
    try {
      outcome = await pipeline(call);
    } catch (error) {
      // A guardrail that throws is a bug in it; the client gets -32603, stderr the stack.
      const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
      log(`warden: the call pipeline failed on ${call.method} '${call.name}': ${detail}`);
      throw new RpcError(ErrorCode.InternalError, "Internal error");
    }
    if ("result" in outcome) return outcome.result;
    throw outcome.error;
  };

  const visible = (kind: GuardedCall["kind"], name: string, session: McpSession): boolean => {
    for (const guardrail of guardrails) {
      if (
        guardrail.visible !== undefined && !guardrail.visible({ kind, name }, session.principal)
      ) {
        return false;
      }
    }
    return true;
  };

  const methods = new Map<string, MethodHandler<McpSession>>();
  methods.set("initialize", (params, { session }) => {
    const offered = stringParam(params, "protocolVersion");
    session.protocolVersion = negotiateVersion(offered);
    session.clientInfo = implementationOf(params.clientInfo);
    session.clientCapabilities = isRecord(params.capabilities) ? params.capabilities : {};
    const serverInfo: Record<string, unknown> = { name: options.name, version: options.version };
    if (options.title !== undefined) serverInfo.title = options.title;
    const result: Record<string, unknown> = {
      protocolVersion: session.protocolVersion,
      capabilities: capabilities(),
      serverInfo,
    };
    if (options.instructions !== undefined) result.instructions = options.instructions;
    return result;
  });
  methods.set("ping", () => ({}));
  methods.set("tools/list", (_params, { session }) => ({
    tools: [...tools.values()].filter((t) => visible("tool", t.definition.name, session))
      .map((t) => t.listing),
  }));
  methods.set("resources/list", (_params, { session }) => ({
    resources: [...resources.values()].filter((r) => visible("resource", r.definition.uri, session))
      .map((r) => r.listing),
  }));
  methods.set("prompts/list", (_params, { session }) => ({
    prompts: [...prompts.values()].filter((p) => visible("prompt", p.definition.name, session))
      .map((p) => p.listing),
  }));
  methods.set("tools/call", (params, { id, session, request }) =>
    runCall({
      kind: "tool",
      method: "tools/call",
      name: stringParam(params, "name"),
      arguments: argumentsParam(params),
      context: contextOf(id, params, session, request),
    }));
  methods.set("resources/read", (params, { id, session, request }) =>
    runCall({
      kind: "resource",
      method: "resources/read",
      name: stringParam(params, "uri"),
      arguments: {},
      context: contextOf(id, params, session, request),
    }));
  methods.set("prompts/get", (params, { id, session, request }) =>
    runCall({
      kind: "prompt",
      method: "prompts/get",
      name: stringParam(params, "name"),
      arguments: argumentsParam(params),
      context: contextOf(id, params, session, request),
    }));

  const notifications = new Map<string, NotificationHandler<McpSession>>();
  notifications.set("notifications/cancelled", (params, session) => {
    const requestId = params.requestId;
    if (typeof requestId !== "string" && typeof requestId !== "number") return;
    const reason = typeof params.reason === "string" ? params.reason : "Cancelled by the client";
    session.inflight.cancel(requestId, new Error(reason));
  });

  function capabilities(): Record<string, unknown> {
    const caps: Record<string, unknown> = {};
    if (tools.size > 0) caps.tools = {};
    if (resources.size > 0) caps.resources = {};
    if (prompts.size > 0) caps.prompts = {};
    return caps;
  }

  const dispatcher = new Dispatcher<McpSession>({ methods, notifications, log });
  const embedded = new McpSession(options.principal);
  const live = new Set<{ session: McpSession; stop: AbortController; done: Promise<void> }>();
  let closed = false;

  return {
    tool(definition) {
      addTool(definition as ToolDefinition);
    },
    resource(definition) {
      addResource(definition);
    },
    prompt(definition) {
      addPrompt(definition as PromptDefinition);
    },
    remove(kind, name) {
      const table = kind === "tool" ? tools : kind === "resource" ? resources : prompts;
      return table.delete(name);
    },
    handle(message) {
      return dispatcher.handle(message, embedded);
    },
    async connect(transport, connectOptions = {}) {
      if (closed) {
        // Release the transport (and the console redirect a stdio transport holds).
        await transport.writable.abort(new Error("The server is closed")).catch(() => {});
        throw new Error("Cannot connect: the server is closed");
      }
      const session = new McpSession(connectOptions.principal ?? options.principal);
      const stop = new AbortController();
      const done = runConnection(transport, dispatcher, session, {
        log,
        shutdownGraceMs,
        signal: stop.signal,
      });
      const entry = { session, stop, done };
      live.add(entry);
      try {
        await done;
      } finally {
        live.delete(entry);
      }
    },
    async close() {
      closed = true;
      const reason = new Error("The server is shutting down");
      embedded.inflight.abortAll(reason);
      for (const { session, stop } of live) {
        session.inflight.abortAll(reason);
        stop.abort(reason);
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

  function notFound(kind: string, name: string): CallOutcome {
    const shown = name.length > 80 ? `${name.slice(0, 80)}…` : name;
    return errorOutcome(
      new RpcError(ErrorCode.MethodNotFound, `Unknown ${kind}: ${JSON.stringify(shown)}`),
    );
  }
}
