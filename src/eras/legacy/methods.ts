/**
 * The MCP method table: what each request and notification does, over the
 * server's registries, its guardrail pipeline and the session.
 *
 * @module
 */

import { isRecord } from "../../jsonrpc/messages.ts";
import type { MethodHandler, NotificationHandler } from "../../dispatcher/dispatcher.ts";
import type {
  CallKind,
  CallNext,
  CallOutcome,
  GuardedCall,
  Guardrail,
} from "../../guardrails/pipeline.ts";
import { ErrorCode, RpcError } from "../../jsonrpc/errors.ts";
import type { JsonRpcParams } from "../../jsonrpc/messages.ts";
import { complete, type Completer, parseCompletionRequest } from "../../core/completion.ts";
import { type Implementation, negotiateVersion } from "../../core/lifecycle.ts";
import { paginate } from "../../core/pagination.ts";
import type { RegisteredPrompt } from "../../core/prompts.ts";
import { type ContextServices, createRequestContext } from "./context.ts";
import type { RegisteredResource } from "../../core/resources.ts";
import { isLoggingLevel, type McpSession } from "./session.ts";
import type { RegisteredTemplate } from "../../core/templates.ts";
import type { RegisteredTool } from "../../core/tools.ts";

/**
 * Calls whose params were malformed, keyed by their context (which guardrails
 * pass along unchanged even when they copy the call): the core refuses them.
 */
export const malformed: WeakMap<object, RpcError> = new WeakMap();

/** Everything the method table reads. */
export interface ServerState {
  /** `serverInfo` as sent at initialize. */
  readonly serverInfo: Readonly<Implementation>;
  /** Sent at initialize when set. */
  readonly instructions: string | undefined;
  /** Registered tools by name. */
  readonly tools: ReadonlyMap<string, RegisteredTool>;
  /** Registered resources by URI. */
  readonly resources: ReadonlyMap<string, RegisteredResource>;
  /** Registered templates by template string. */
  readonly templates: ReadonlyMap<string, RegisteredTemplate>;
  /** Registered prompts by name. */
  readonly prompts: ReadonlyMap<string, RegisteredPrompt>;
  /** The guardrails, in pipeline order. */
  readonly guardrails: readonly Guardrail[];
  /** The composed pipeline. */
  readonly pipeline: CallNext;
  /** What request contexts borrow. */
  readonly services: ContextServices;
  /** Items per page of the list methods; undefined for no paging. */
  readonly pageSize: number | undefined;
  /** Diagnostics. */
  readonly log: (message: string) => void;
  /** Called when a client says its roots changed. */
  readonly rootsChanged: (session: McpSession) => void;
}

function invalid(message: string): RpcError {
  return new RpcError(ErrorCode.InvalidParams, `Invalid params: ${message}`);
}

function stringParam(params: JsonRpcParams, key: string): string {
  const value = params[key];
  if (typeof value !== "string") throw invalid(`${key} must be a string`);
  return value;
}

function implementationOf(value: unknown): Implementation | undefined {
  if (!isRecord(value) || typeof value.name !== "string" || typeof value.version !== "string") {
    return undefined;
  }
  const info: Implementation = { name: value.name, version: value.version };
  if (typeof value.title === "string") info.title = value.title;
  return info;
}

/** Whether every guardrail lets `principal` see an item. */
export function isVisible(
  guardrails: readonly Guardrail[],
  kind: CallKind,
  name: string,
  principal: string | undefined,
): boolean {
  for (const guardrail of guardrails) {
    if (guardrail.visible !== undefined && !guardrail.visible({ kind, name }, principal)) {
      return false;
    }
  }
  return true;
}

function label(name: string): string {
  return JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name);
}

/** The -32601 error for an item that does not exist. */
export function notFoundError(kind: string, name: string): RpcError {
  return new RpcError(ErrorCode.MethodNotFound, `Unknown ${kind}: ${label(name)}`);
}

/** The -32601 outcome for an item that does not exist. */
export function notFound(kind: string, name: string): CallOutcome {
  return { status: "not_found", error: notFoundError(kind, name) };
}

/** The capabilities to advertise: only what is registered, plus logging. */
export function capabilitiesOf(state: ServerState): Record<string, unknown> {
  const caps: Record<string, unknown> = { logging: {} };
  if (state.tools.size > 0) caps.tools = { listChanged: true };
  if (state.resources.size > 0 || state.templates.size > 0) {
    caps.resources = { subscribe: true, listChanged: true };
  }
  if (state.prompts.size > 0) caps.prompts = { listChanged: true };
  const hasCompleter =
    [...state.prompts.values()].some((p) =>
      (p.definition.arguments ?? []).some((a) => a.complete !== undefined)
    ) || [...state.templates.values()].some((t) => t.definition.complete !== undefined);
  if (hasCompleter) caps.completions = {};
  return caps;
}

/** Builds the method and notification tables. */
export function buildMethods(state: ServerState): {
  methods: Map<string, MethodHandler<McpSession>>;
  notifications: Map<string, NotificationHandler<McpSession>>;
} {
  const { guardrails } = state;
  const methods = new Map<string, MethodHandler<McpSession>>();

  const runCall = async (call: GuardedCall): Promise<Record<string, unknown>> => {
    let outcome: CallOutcome;
    try {
      outcome = await state.pipeline(call);
    } catch (error) {
      // A guardrail that throws is a bug in it; the client gets -32603, stderr the stack.
      const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
      state.log(
        `warden: the call pipeline failed on ${call.method} ${label(call.name)}: ${detail}`,
      );
      throw new RpcError(ErrorCode.InternalError, "Internal error");
    }
    if ("result" in outcome) return outcome.result;
    throw outcome.error;
  };

  const listOf = <T extends { listing: Readonly<Record<string, unknown>> }>(
    list: string,
    kind: CallKind,
    items: Iterable<[string, T]>,
    params: JsonRpcParams,
    session: McpSession,
  ): Record<string, unknown> => {
    const visible = [...items].filter(([name]) =>
      isVisible(guardrails, kind, name, session.principal)
    )
      .map(([, item]) => item.listing);
    const { page, nextCursor } = paginate(list, visible, params.cursor, state.pageSize);
    return nextCursor === undefined ? { [list]: page } : { [list]: page, nextCursor };
  };

  methods.set("initialize", (params, { session }) => {
    const offered = stringParam(params, "protocolVersion");
    session.protocolVersion = negotiateVersion(offered);
    session.clientInfo = implementationOf(params.clientInfo);
    session.clientCapabilities = isRecord(params.capabilities) ? params.capabilities : {};
    const result: Record<string, unknown> = {
      protocolVersion: session.protocolVersion,
      capabilities: capabilitiesOf(state),
      serverInfo: state.serverInfo,
    };
    if (state.instructions !== undefined) result.instructions = state.instructions;
    return result;
  });
  methods.set("ping", () => ({}));
  methods.set("logging/setLevel", (params, { session }) => {
    const level = params.level;
    if (!isLoggingLevel(level)) throw invalid(`unknown logging level ${JSON.stringify(level)}`);
    session.logLevel = level;
    return {};
  });

  methods.set(
    "tools/list",
    (params, { session }) => listOf("tools", "tool", state.tools, params, session),
  );
  methods.set(
    "resources/list",
    (params, { session }) => listOf("resources", "resource", state.resources, params, session),
  );
  methods.set(
    "resources/templates/list",
    (params, { session }) =>
      listOf("resourceTemplates", "resource", state.templates, params, session),
  );
  methods.set(
    "prompts/list",
    (params, { session }) => listOf("prompts", "prompt", state.prompts, params, session),
  );

  // Malformed params still go through the pipeline (as a call the core refuses),
  // so the audit log sees every guarded request.
  const call =
    (kind: CallKind, method: string, nameKey: string): MethodHandler<McpSession> =>
    (params, { id, session, request }) => {
      const name = params[nameKey];
      const args = kind === "resource" ? {} : params.arguments ?? {};
      const problem = typeof name !== "string"
        ? invalid(`${nameKey} must be a string`)
        : !isRecord(args)
        ? invalid("arguments must be an object")
        : undefined;
      const guarded: GuardedCall = {
        kind,
        method,
        name: typeof name === "string" ? name : "",
        arguments: isRecord(args) ? args : {},
        context: createRequestContext(id, params, session, request, state.services),
      };
      if (problem !== undefined) malformed.set(guarded.context, problem);
      return runCall(guarded);
    };
  methods.set("tools/call", call("tool", "tools/call", "name"));
  methods.set("resources/read", call("resource", "resources/read", "uri"));
  methods.set("prompts/get", call("prompt", "prompts/get", "name"));

  const subscribable = (params: JsonRpcParams, session: McpSession): string => {
    const uri = stringParam(params, "uri");
    if (!isVisible(guardrails, "resource", uri, session.principal)) {
      throw new RpcError(ErrorCode.AccessDenied, `Access denied: resource ${label(uri)}`);
    }
    const exists = state.resources.has(uri) ||
      [...state.templates.values()].some((t) => t.template.match(uri) !== undefined);
    if (!exists) throw notFoundError("resource", uri);
    return uri;
  };
  methods.set("resources/subscribe", (params, { session }) => {
    session.subscriptions.add(subscribable(params, session));
    return {};
  });
  methods.set("resources/unsubscribe", (params, { session }) => {
    session.subscriptions.delete(stringParam(params, "uri"));
    return {};
  });

  methods.set("completion/complete", async (params, { session }) => {
    const request = parseCompletionRequest(params);
    let completer: Completer | undefined;
    if (request.ref.type === "ref/prompt") {
      const { name } = request.ref;
      if (!isVisible(guardrails, "prompt", name, session.principal)) {
        throw new RpcError(ErrorCode.AccessDenied, `Access denied: prompt ${label(name)}`);
      }
      const prompt = state.prompts.get(name);
      if (prompt === undefined) throw notFoundError("prompt", name);
      completer = prompt.definition.arguments?.find((a) => a.name === request.argument.name)
        ?.complete;
    } else {
      const { uri } = request.ref;
      if (!isVisible(guardrails, "resource", uri, session.principal)) {
        throw new RpcError(ErrorCode.AccessDenied, `Access denied: resource ${label(uri)}`);
      }
      const template = state.templates.get(uri);
      if (template === undefined) throw notFoundError("resource template", uri);
      const completers = template.definition.complete;
      completer = completers !== undefined && Object.hasOwn(completers, request.argument.name)
        ? completers[request.argument.name]
        : undefined;
    }
    return await complete(completer, request);
  });

  const notifications = new Map<string, NotificationHandler<McpSession>>();
  notifications.set("notifications/cancelled", (params, session) => {
    const requestId = params.requestId;
    if (typeof requestId !== "string" && typeof requestId !== "number") return;
    const reason = typeof params.reason === "string" ? params.reason : "Cancelled by the client";
    session.inflight.cancel(requestId, new Error(reason));
  });
  notifications.set("notifications/initialized", (_params, session) => {
    session.initialized = true;
  });
  notifications.set("notifications/roots/list_changed", (_params, session) => {
    state.rootsChanged(session);
  });
  return { methods, notifications };
}
