/**
 * The modern methods that use one item through the guardrail pipeline:
 * `tools/call`, `resources/read`, `prompts/get` and `completion/complete`.
 * The first three may ask the client for input over several round trips
 * (the state travels sealed in the request); a resource read carries cache
 * hints.
 *
 * @module
 */

import type { MethodContext } from "../../dispatcher/dispatcher.ts";
import type { JsonRpcParams } from "../../jsonrpc/messages.ts";
import type { CallKind } from "../../call/context.ts";
import { type CallNext, type CallOutcome, isPending } from "../../call/outcome.ts";
import { parseCall } from "../../core/parse_call.ts";
import type { McpSession } from "../../core/session.ts";
import { type CacheHints, readHints } from "../modern/caching.ts";
import { InputLedger, ModernContext } from "../modern/context.ts";
import { modernError, modernFacts, modernResult } from "../modern/exchange.ts";
import type { RequestMeta } from "../modern/meta.ts";
import { inputRequiredStep, openState, type RoundTrip } from "../modern/mrtr.ts";
import { toolCallStep } from "../tasks/methods.ts";
import { type ModernDeps, variesByCaller } from "./modern_deps.ts";

/** A call on one item, as the table's rows for it differ: its kind, method and last step. */
interface ItemCall {
  readonly kind: CallKind;
  readonly method: string;
  /** The step that does the work once the guardrails let the call through. */
  readonly step: (deps: ModernDeps, context: ModernContext) => CallNext;
}

const TOOL_CALL: ItemCall = {
  kind: "tool",
  method: "tools/call",
  step: (deps, context) => toolCallStep(deps.core, deps.tasks, context),
};
const RESOURCE_READ: ItemCall = {
  kind: "resource",
  method: "resources/read",
  step: (deps, context) => deps.core.readResource(context),
};
const PROMPT_GET: ItemCall = {
  kind: "prompt",
  method: "prompts/get",
  step: (deps, context) => deps.core.getPrompt(context),
};

/** `tools/call`: synchronously, or as a task (the tasks extension). */
export function callTool(
  deps: ModernDeps,
  params: JsonRpcParams,
  request: MethodContext<McpSession>,
  meta: RequestMeta,
): Record<string, unknown> | Promise<Record<string, unknown>> {
  return itemCall(deps, TOOL_CALL, params, request, meta);
}

/** `resources/read`. */
export function readResource(
  deps: ModernDeps,
  params: JsonRpcParams,
  request: MethodContext<McpSession>,
  meta: RequestMeta,
): Record<string, unknown> | Promise<Record<string, unknown>> {
  return itemCall(deps, RESOURCE_READ, params, request, meta);
}

/** `prompts/get`. */
export function getPrompt(
  deps: ModernDeps,
  params: JsonRpcParams,
  request: MethodContext<McpSession>,
  meta: RequestMeta,
): Record<string, unknown> | Promise<Record<string, unknown>> {
  return itemCall(deps, PROMPT_GET, params, request, meta);
}

/** `completion/complete`: a guarded call on the prompt or template it completes. */
export async function complete(
  deps: ModernDeps,
  params: JsonRpcParams,
  request: MethodContext<McpSession>,
  meta: RequestMeta,
): Promise<Record<string, unknown>> {
  const parsed = deps.core.parseCompletion(
    params,
    modernFacts(request, meta, deps.services.callMask, false),
  );
  const outcome = await deps.core.guard(parsed, parsed.step);
  if ("error" in outcome) {
    throw modernError(outcome, parsed.call.kind, parsed.call.name);
  }
  return modernResult(deps.serverInfo, outcome.result);
}

/**
 * One call on an item: open the sealed state of earlier rounds, run the
 * pipeline with a step that may ask for input, and answer with the result,
 * the request for input, or the error. Answered synchronously when there is
 * no state to open and every step answered synchronously.
 */
function itemCall(
  deps: ModernDeps,
  item: ItemCall,
  params: JsonRpcParams,
  request: MethodContext<McpSession>,
  meta: RequestMeta,
): Record<string, unknown> | Promise<Record<string, unknown>> {
  const { kind, method } = item;
  const principal = request.session.principal;
  const trip = openState(deps.sealer, kind, method, params, principal, deps.now());
  if (trip instanceof Promise) {
    return trip.then((opened) => guardedItemCall(deps, item, params, request, meta, opened));
  }
  return guardedItemCall(deps, item, params, request, meta, trip);
}

/** An item call once its round trip is known: through the pipeline, then its wire answer. */
function guardedItemCall(
  deps: ModernDeps,
  item: ItemCall,
  params: JsonRpcParams,
  request: MethodContext<McpSession>,
  meta: RequestMeta,
  trip: RoundTrip,
): Record<string, unknown> | Promise<Record<string, unknown>> {
  const { kind, method } = item;
  const { session } = request;
  const grant = session.grantOf(request.request);
  const parsed = parseCall(
    kind,
    method,
    params,
    modernFacts(request, meta, deps.services.callMask, trip.continuation, grant),
  );
  const problem = parsed.problem ?? trip.problem;
  const ledger = new InputLedger(trip.answers);
  const context = new ModernContext(
    request.id,
    session.principal,
    meta,
    request.request,
    deps.services,
    (m, p, related) => session.notify(m, p, related),
    ledger,
    grant,
  );
  const refused = trip.overQuota;
  const step: CallNext = refused !== undefined
    // Its principal's memory of states is full: refused, through the pipeline (audited).
    ? () => refused
    : inputRequiredStep(item.step(deps, context), ledger, trip, {
      sealer: deps.sealer,
      maxRounds: deps.maxInputRounds,
      ttlMs: deps.requestStateTtlMs,
      now: deps.now,
    });
  const outcome = deps.core.guard({ call: parsed.call, problem }, step);
  const name = parsed.call.name;
  if (isPending(outcome)) {
    return outcome.then((settled) => itemAnswer(deps, kind, name, trip, settled));
  }
  return itemAnswer(deps, kind, name, trip, outcome);
}

/** The wire answer to an item call's outcome. */
function itemAnswer(
  deps: ModernDeps,
  kind: CallKind,
  name: string,
  trip: RoundTrip,
  outcome: CallOutcome,
): Record<string, unknown> {
  if ("error" in outcome) throw modernError(outcome, kind, name);
  if (outcome.status === "input_required") return modernResult(deps.serverInfo, outcome.result);
  const hints = kind === "resource" ? readCacheHints(deps, name, trip) : undefined;
  return modernResult(deps.serverInfo, outcome.result, hints);
}

/** A resource read's cache hints. */
function readCacheHints(deps: ModernDeps, uri: string, trip: RoundTrip): CacheHints {
  // Results of a retry depend on inputs outside the cache key: never cacheable.
  if (trip.retried) return { ttlMs: 0, cacheScope: "private" };
  return readHints(deps.readTtlMs, deps.core.readCache(uri), variesByCaller(deps));
}
