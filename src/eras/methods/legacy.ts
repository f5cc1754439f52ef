/**
 * The legacy front door (revisions 2024-11-05 to 2025-11-25): the
 * `initialize` handshake and the session it opens, and what each method
 * means on such a session. The work itself is the request core's.
 *
 * @module
 */

import type {
  MethodContext,
  MethodHandler,
  NotificationHandler,
} from "../../dispatcher/dispatcher.ts";
import { invalidParamsError } from "../../jsonrpc/errors.ts";
import { MAX_SUBSCRIBED_URIS } from "../modern/subscriptions.ts";
import { isRecord, type JsonRpcParams } from "../../jsonrpc/messages.ts";
import type { CallKind } from "../../call/context.ts";
import {
  type CallNext,
  type CallOutcome,
  isPending,
  type MaybeOutcome,
} from "../../call/outcome.ts";
import { type Implementation, negotiateVersion } from "../../core/lifecycle.ts";
import { isLoggingLevel } from "../../core/logging.ts";
import { canonicalUri } from "../../core/canonical_uri.ts";
import { parseCall } from "../../core/parse_call.ts";
import type { RequestCore } from "../../core/request_core.ts";
import type { McpSession } from "../../core/session.ts";
import {
  type ContextServices,
  createRequestContext,
  type HandlerContext,
  legacyFacts,
} from "../legacy/context.ts";

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

/** One method of the legacy table: answers a request on a session. */
type LegacyMethod = (
  deps: LegacyDeps,
  params: JsonRpcParams,
  request: MethodContext<McpSession>,
) => Promise<Record<string, unknown>> | Record<string, unknown>;

/** One notification of the legacy table. */
type LegacyNotification = (deps: LegacyDeps, params: JsonRpcParams, session: McpSession) => void;

/** The legacy method table: one row per method, each a named function. */
const LEGACY_METHODS: readonly (readonly [string, LegacyMethod])[] = [
  ["initialize", initialize],
  ["ping", ping],
  ["logging/setLevel", setLevel],
  ["tools/list", listTools],
  ["resources/list", listResources],
  ["prompts/list", listPrompts],
  ["resources/templates/list", listResourceTemplates],
  ["tools/call", callTool],
  ["resources/read", readResource],
  ["prompts/get", getPrompt],
  ["resources/subscribe", subscribe],
  ["resources/unsubscribe", unsubscribe],
  ["completion/complete", complete],
];

/** The notifications a client sends (also those of modern requests: the same cancellation). */
const LEGACY_NOTIFICATIONS: readonly (readonly [string, LegacyNotification])[] = [
  ["notifications/cancelled", cancelled],
  ["notifications/initialized", initialized],
  ["notifications/roots/list_changed", rootsListChanged],
];

/** Builds the legacy method and notification tables for one server, each row given `deps`. */
export function legacyMethods(deps: LegacyDeps): {
  methods: Map<string, MethodHandler<McpSession>>;
  notifications: Map<string, NotificationHandler<McpSession>>;
} {
  const methods = new Map<string, MethodHandler<McpSession>>();
  for (const [name, method] of LEGACY_METHODS) {
    methods.set(name, (params, request) => method(deps, params, request));
  }
  const notifications = new Map<string, NotificationHandler<McpSession>>();
  for (const [name, notification] of LEGACY_NOTIFICATIONS) {
    notifications.set(name, (params, session) => notification(deps, params, session));
  }
  return { methods, notifications };
}

function implementationOf(value: unknown): Implementation | undefined {
  if (!isRecord(value) || typeof value.name !== "string" || typeof value.version !== "string") {
    return undefined;
  }
  const info: Implementation = { name: value.name, version: value.version };
  if (typeof value.title === "string") info.title = value.title;
  return info;
}

/** `initialize`: settles the session's revision and learns the client. */
function initialize(
  deps: LegacyDeps,
  params: JsonRpcParams,
  { session }: MethodContext<McpSession>,
): Record<string, unknown> {
  const offered = params.protocolVersion;
  if (typeof offered !== "string") throw invalidParamsError("protocolVersion must be a string");
  session.protocolVersion = negotiateVersion(offered);
  session.clientInfo = implementationOf(params.clientInfo);
  session.clientCapabilities = isRecord(params.capabilities) ? params.capabilities : {};
  const result: Record<string, unknown> = {
    protocolVersion: session.protocolVersion,
    capabilities: deps.core.capabilities(),
    serverInfo: deps.serverInfo,
  };
  if (deps.instructions !== undefined) result.instructions = deps.instructions;
  return result;
}

/** `ping`. */
function ping(): Record<string, unknown> {
  return {};
}

/** `logging/setLevel`: the least severe level the session hears from now on. */
function setLevel(
  _deps: LegacyDeps,
  params: JsonRpcParams,
  { session }: MethodContext<McpSession>,
): Record<string, unknown> {
  const level = params.level;
  if (!isLoggingLevel(level)) {
    throw invalidParamsError(`unknown logging level ${JSON.stringify(level)}`);
  }
  session.logLevel = level;
  return {};
}

/** `tools/list`. */
function listTools(
  deps: LegacyDeps,
  params: JsonRpcParams,
  { session, request }: MethodContext<McpSession>,
): Record<string, unknown> {
  const { principal, clientCapabilities } = session;
  const scopes = session.grantOf(request)?.scopes;
  return deps.core.list("tools", params, principal, false, clientCapabilities, scopes).result;
}

/** `resources/list`. */
function listResources(
  deps: LegacyDeps,
  params: JsonRpcParams,
  request: MethodContext<McpSession>,
): Record<string, unknown> {
  return listOf("resources", deps, params, request);
}

/** `prompts/list`. */
function listPrompts(
  deps: LegacyDeps,
  params: JsonRpcParams,
  request: MethodContext<McpSession>,
): Record<string, unknown> {
  return listOf("prompts", deps, params, request);
}

/** `resources/templates/list`. */
function listResourceTemplates(
  deps: LegacyDeps,
  params: JsonRpcParams,
  request: MethodContext<McpSession>,
): Record<string, unknown> {
  return listOf("resourceTemplates", deps, params, request);
}

/** A list other than tools (which filters by client capabilities): the session's principal and grant decide. */
function listOf(
  kind: "resources" | "prompts" | "resourceTemplates",
  deps: LegacyDeps,
  params: JsonRpcParams,
  { session, request }: MethodContext<McpSession>,
): Record<string, unknown> {
  return deps.core.list(
    kind,
    params,
    session.principal,
    false,
    undefined,
    session.grantOf(request)?.scopes,
  )
    .result;
}

/** A legacy session's wire answer for an outcome: the result, or its error as decided. */
function settle(outcome: CallOutcome): Record<string, unknown> {
  if ("result" in outcome) return outcome.result;
  throw outcome.error;
}

/** {@linkcode settle} now when the outcome is known, else once it is (no promise when none is due). */
function answer(
  outcome: MaybeOutcome,
): Record<string, unknown> | Promise<Record<string, unknown>> {
  return isPending(outcome) ? outcome.then(settle) : settle(outcome);
}

/** The context a legacy request's handler gets. */
function contextOf(
  deps: LegacyDeps,
  params: JsonRpcParams,
  request: MethodContext<McpSession>,
): HandlerContext {
  return createRequestContext(request.id, params, request.session, request.request, deps.services);
}

/** A call on one item, as the table's rows for it differ: its kind, method and last step. */
interface ItemCall {
  readonly kind: CallKind;
  readonly method: string;
  /** The step that does the work once the guardrails let the call through. */
  readonly step: (core: RequestCore, context: HandlerContext) => CallNext;
}

const TOOL_CALL: ItemCall = {
  kind: "tool",
  method: "tools/call",
  step: (core, context) => core.callTool(context),
};
const RESOURCE_READ: ItemCall = {
  kind: "resource",
  method: "resources/read",
  step: (core, context) => core.readResource(context),
};
const PROMPT_GET: ItemCall = {
  kind: "prompt",
  method: "prompts/get",
  step: (core, context) => core.getPrompt(context),
};

/** One call on an item through the pipeline: answered synchronously when every step was. */
function itemCall(
  deps: LegacyDeps,
  item: ItemCall,
  params: JsonRpcParams,
  request: MethodContext<McpSession>,
): Record<string, unknown> | Promise<Record<string, unknown>> {
  const context = contextOf(deps, params, request);
  const parsed = parseCall(
    item.kind,
    item.method,
    params,
    legacyFacts(context, request, deps.services.callMask),
  );
  return answer(deps.core.guard(parsed, item.step(deps.core, context)));
}

/** `tools/call`. */
function callTool(
  deps: LegacyDeps,
  params: JsonRpcParams,
  request: MethodContext<McpSession>,
): Record<string, unknown> | Promise<Record<string, unknown>> {
  return itemCall(deps, TOOL_CALL, params, request);
}

/** `resources/read`. */
function readResource(
  deps: LegacyDeps,
  params: JsonRpcParams,
  request: MethodContext<McpSession>,
): Record<string, unknown> | Promise<Record<string, unknown>> {
  return itemCall(deps, RESOURCE_READ, params, request);
}

/** `prompts/get`. */
function getPrompt(
  deps: LegacyDeps,
  params: JsonRpcParams,
  request: MethodContext<McpSession>,
): Record<string, unknown> | Promise<Record<string, unknown>> {
  return itemCall(deps, PROMPT_GET, params, request);
}

/** `resources/subscribe`: a guarded use of the resource, then the session hears its updates. */
async function subscribe(
  deps: LegacyDeps,
  params: JsonRpcParams,
  request: MethodContext<McpSession>,
): Promise<Record<string, unknown>> {
  const context = contextOf(deps, params, request);
  const parsed = parseCall(
    "resource",
    "resources/subscribe",
    params,
    legacyFacts(context, request, deps.services.callMask),
  );
  settle(await deps.core.guard(parsed, deps.core.subscribe()));
  const { subscriptions } = request.session;
  // A template matches endless URIs: held to a listen stream's bound, the session's memory is too.
  if (subscriptions.size >= MAX_SUBSCRIBED_URIS && !subscriptions.has(parsed.call.name)) {
    throw invalidParamsError(
      `the session holds ${MAX_SUBSCRIBED_URIS} subscriptions already; unsubscribe from one first`,
    );
  }
  subscriptions.add(parsed.call.name);
  return {};
}

/** `resources/unsubscribe`: not guarded, as it only stops what was allowed. */
function unsubscribe(
  _deps: LegacyDeps,
  params: JsonRpcParams,
  { session }: MethodContext<McpSession>,
): Record<string, unknown> {
  const uri = params.uri;
  if (typeof uri !== "string") throw invalidParamsError("uri must be a string");
  // Subscriptions are kept by canonical URI; one with no canonical form was never subscribed.
  const canonical = canonicalUri(uri);
  if (typeof canonical !== "string") throw invalidParamsError(`uri ${canonical.refused}`);
  session.subscriptions.delete(canonical);
  return {};
}

/** `completion/complete`: a guarded call on the prompt or template it completes. */
async function complete(
  deps: LegacyDeps,
  params: JsonRpcParams,
  request: MethodContext<McpSession>,
): Promise<Record<string, unknown>> {
  const context = contextOf(deps, params, request);
  const parsed = deps.core.parseCompletion(
    params,
    legacyFacts(context, request, deps.services.callMask),
  );
  return settle(await deps.core.guard(parsed, parsed.step));
}

/** `notifications/cancelled`, the same in both eras: abort the named request. */
function cancelled(_deps: LegacyDeps, params: JsonRpcParams, session: McpSession): void {
  const requestId = params.requestId;
  if (typeof requestId !== "string" && typeof requestId !== "number") return;
  const reason = typeof params.reason === "string" ? params.reason : "Cancelled by the client";
  session.inflight.cancel(requestId, new Error(reason));
}

/** `notifications/initialized`: the handshake is over. */
function initialized(_deps: LegacyDeps, _params: JsonRpcParams, session: McpSession): void {
  session.initialized = true;
}

/** `notifications/roots/list_changed`: the server may ask for the roots again. */
function rootsListChanged(deps: LegacyDeps, _params: JsonRpcParams, session: McpSession): void {
  deps.rootsChanged(session);
}
