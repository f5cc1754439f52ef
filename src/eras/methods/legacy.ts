/**
 * The legacy front door (revisions 2024-11-05 to 2025-11-25): the
 * `initialize` handshake and the session it opens, and what each method
 * means on such a session. The work itself is the request core's.
 *
 * @module
 */

import { isRecord } from "../../jsonrpc/messages.ts";
import type { MethodHandler, NotificationHandler } from "../../dispatcher/dispatcher.ts";
import { invalidParamsError } from "../../jsonrpc/errors.ts";
import type { JsonRpcParams } from "../../jsonrpc/messages.ts";
import type { CallKind } from "../../call/context.ts";
import type { CallOutcome } from "../../call/outcome.ts";
import { CallFacts } from "../../core/call_facts.ts";
import { type Implementation, negotiateVersion } from "../../core/lifecycle.ts";
import { isLoggingLevel } from "../../core/logging.ts";
import { parseCall, type RequestCore } from "../../core/request_core.ts";
import {
  type ContextServices,
  createRequestContext,
  type HandlerContext,
} from "../legacy/context.ts";
import type { McpSession } from "../../core/session.ts";

/** What the legacy front door needs from the server. */
export interface LegacyDeps {
  /** The request core. */
  readonly core: RequestCore;
  /** `serverInfo` as sent at initialize. */
  readonly serverInfo: Readonly<Implementation>;
  /** Sent at initialize when set. */
  readonly instructions: string | undefined;
  /** What request contexts borrow. */
  readonly services: ContextServices;
  /** Called when a client says its roots changed. */
  readonly rootsChanged: (session: McpSession) => void;
}

function implementationOf(value: unknown): Implementation | undefined {
  if (!isRecord(value) || typeof value.name !== "string" || typeof value.version !== "string") {
    return undefined;
  }
  const info: Implementation = { name: value.name, version: value.version };
  if (typeof value.title === "string") info.title = value.title;
  return info;
}

/** A legacy session's wire answer for an outcome: the result, or its error as decided. */
function settle(outcome: CallOutcome): Record<string, unknown> {
  if ("result" in outcome) return outcome.result;
  throw outcome.error;
}

/** The facts guardrails see for a request on a legacy session. */
function factsOf(context: HandlerContext, request: Parameters<MethodHandler<McpSession>>[1]) {
  return new CallFacts(
    context.principal,
    context.client,
    request.id,
    request.request,
    context._meta,
    "legacy",
  );
}

/** Builds the legacy method and notification tables. */
export function legacyMethods(deps: LegacyDeps): {
  methods: Map<string, MethodHandler<McpSession>>;
  notifications: Map<string, NotificationHandler<McpSession>>;
} {
  const { core } = deps;
  const methods = new Map<string, MethodHandler<McpSession>>();
  const contextOf = (
    params: JsonRpcParams,
    request: Parameters<MethodHandler<McpSession>>[1],
  ): HandlerContext =>
    createRequestContext(request.id, params, request.session, request.request, deps.services);

  methods.set("initialize", (params, { session }) => {
    const offered = params.protocolVersion;
    if (typeof offered !== "string") throw invalidParamsError("protocolVersion must be a string");
    session.protocolVersion = negotiateVersion(offered);
    session.clientInfo = implementationOf(params.clientInfo);
    session.clientCapabilities = isRecord(params.capabilities) ? params.capabilities : {};
    const result: Record<string, unknown> = {
      protocolVersion: session.protocolVersion,
      capabilities: core.capabilities(),
      serverInfo: deps.serverInfo,
    };
    if (deps.instructions !== undefined) result.instructions = deps.instructions;
    return result;
  });
  methods.set("ping", () => ({}));
  methods.set("logging/setLevel", (params, { session }) => {
    const level = params.level;
    if (!isLoggingLevel(level)) {
      throw invalidParamsError(`unknown logging level ${JSON.stringify(level)}`);
    }
    session.logLevel = level;
    return {};
  });

  for (const list of ["tools", "resources", "prompts"] as const) {
    methods.set(
      `${list}/list`,
      (params, { session }) => core.list(list, params, session.principal, false).result,
    );
  }
  methods.set(
    "resources/templates/list",
    (params, { session }) =>
      core.list("resourceTemplates", params, session.principal, false).result,
  );

  const guarded = (
    kind: CallKind,
    method: string,
    run: (context: HandlerContext) => Parameters<RequestCore["guard"]>[1],
  ): MethodHandler<McpSession> =>
  async (params, request) => {
    const context = contextOf(params, request);
    const parsed = parseCall(kind, method, params, factsOf(context, request));
    return settle(await core.guard(parsed, run(context)));
  };
  methods.set("tools/call", guarded("tool", "tools/call", (ctx) => core.callTool(ctx)));
  methods.set(
    "resources/read",
    guarded("resource", "resources/read", (ctx) => core.readResource(ctx)),
  );
  methods.set("prompts/get", guarded("prompt", "prompts/get", (ctx) => core.getPrompt(ctx)));

  methods.set("resources/subscribe", async (params, request) => {
    const context = contextOf(params, request);
    const parsed = parseCall("resource", "resources/subscribe", params, factsOf(context, request));
    settle(await core.guard(parsed, core.subscribe()));
    request.session.subscriptions.add(parsed.call.name);
    return {};
  });
  methods.set("resources/unsubscribe", (params, { session }) => {
    const uri = params.uri;
    if (typeof uri !== "string") throw invalidParamsError("uri must be a string");
    session.subscriptions.delete(uri);
    return {};
  });
  methods.set("completion/complete", async (params, request) => {
    const context = contextOf(params, request);
    const parsed = core.parseCompletion(params, factsOf(context, request));
    return settle(await core.guard(parsed, parsed.step));
  });

  const notifications = new Map<string, NotificationHandler<McpSession>>();
  notifications.set("notifications/cancelled", cancelled);
  notifications.set("notifications/initialized", (_params, session) => {
    session.initialized = true;
  });
  notifications.set("notifications/roots/list_changed", (_params, session) => {
    deps.rootsChanged(session);
  });
  return { methods, notifications };
}

/** `notifications/cancelled`, the same in both eras: abort the named request. */
export function cancelled(params: JsonRpcParams, session: McpSession): void {
  const requestId = params.requestId;
  if (typeof requestId !== "string" && typeof requestId !== "number") return;
  const reason = typeof params.reason === "string" ? params.reason : "Cancelled by the client";
  session.inflight.cancel(requestId, new Error(reason));
}
