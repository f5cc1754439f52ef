/**
 * `subscriptions/listen`: the modern way to hear about changes. The request
 * stays open for as long as the subscription lasts; its first message
 * acknowledges what it will carry, and every resource and task it names is
 * checked as any use of that item would be. Each principal may hold a
 * bounded number open (`quotas.listenStreams`).
 *
 * @module
 */

import type { MethodContext } from "../../dispatcher/dispatcher.ts";
import type { JsonRpcParams } from "../../jsonrpc/messages.ts";
import { quotaOutcome } from "../../core/quotas.ts";
import { parseCall } from "../../core/parse_call.ts";
import type { McpSession } from "../../core/session.ts";
import { modernError, modernFacts, modernResult } from "../modern/exchange.ts";
import { META_KEYS, type RequestMeta } from "../modern/meta.ts";
import {
  parseFilter,
  type SubscriptionFilter,
  type SubscriptionHub,
} from "../modern/subscriptions.ts";
import { acknowledgeTaskIds } from "../tasks/methods.ts";
import type { ModernDeps } from "./modern_deps.ts";

/**
 * Opens a subscription, acknowledges it, and answers once it ends; refused
 * (and audited) when the principal holds its quota of open streams.
 */
export async function listen(
  deps: ModernDeps,
  params: JsonRpcParams,
  request: MethodContext<McpSession>,
  meta: RequestMeta,
): Promise<Record<string, unknown>> {
  const principal = request.session.principal;
  const streams = deps.listenStreams;
  if (!streams.take(principal)) return await refuseListen(deps, request, meta, streams.limit);
  let held = true;
  // Given back the moment the stream ends (a cancel), not a few promise steps later: a client
  // that closes one stream and opens the next in the same breath must find its place free.
  const release = (): void => {
    if (!held) return;
    held = false;
    streams.release(principal);
  };
  try {
    return await openListen(deps, params, request, meta, release);
  } finally {
    release();
  }
}

/** The refusal of a stream over quota, through the pipeline so that the audit records it. */
async function refuseListen(
  deps: ModernDeps,
  request: MethodContext<McpSession>,
  meta: RequestMeta,
  limit: number,
): Promise<never> {
  const refused = quotaOutcome("listenStreams", limit);
  const parsed = parseCall(
    "resource",
    "subscriptions/listen",
    { uri: "" },
    modernFacts(request, meta, deps.services.callMask, false),
  );
  const outcome = await deps.core.guard(parsed, () => Promise.resolve(refused));
  // Another refusal (access) may have come first; either way the stream is not opened.
  throw modernError("error" in outcome ? outcome : refused, "resource", "");
}

/** Opens the subscription the request asks for and follows it until it ends. */
async function openListen(
  deps: ModernDeps,
  params: JsonRpcParams,
  request: MethodContext<McpSession>,
  meta: RequestMeta,
  ended: () => void,
): Promise<Record<string, unknown>> {
  const { session, id } = request;
  const { flags, uris, taskIds } = parseFilter(params);
  const acknowledged: Record<string, unknown> = { ...flags };
  const followed = taskIds === undefined
    ? undefined
    : await acknowledgeTaskIds(deps.tasks, taskIds, meta, session.principal);
  if (followed !== undefined) acknowledged.taskIds = followed;
  const allowed = uris === undefined ? undefined : await allowedUris(deps, uris, request, meta);
  // The URIs are the client's text, echoed: they pass the masker like any reply (task ids
  // are acknowledged only for tasks the server made, so they carry nothing of the client's).
  if (allowed !== undefined) acknowledged.resourceSubscriptions = deps.services.mask(allowed);
  const tag = { [META_KEYS.subscriptionId]: id };
  // The acknowledgement is the first message of the subscription.
  session.notify(
    "notifications/subscriptions/acknowledged",
    { _meta: tag, notifications: acknowledged },
    id,
  );
  const filter: SubscriptionFilter = {
    ...flags,
    ...(allowed === undefined ? {} : { resourceSubscriptions: allowed }),
    ...(followed === undefined ? {} : { taskIds: followed }),
  };
  await follow(deps.subscriptions, request, filter, tag, ended);
  return modernResult(deps.serverInfo, { _meta: tag });
}

/** The resources the caller may follow: each goes through the pipeline (access, limits, audit). */
async function allowedUris(
  deps: ModernDeps,
  uris: readonly string[],
  request: MethodContext<McpSession>,
  meta: RequestMeta,
): Promise<string[]> {
  const { core } = deps;
  // Two spellings of one URI are one subscription.
  const allowed = new Set<string>();
  for (const uri of uris) {
    const parsed = parseCall(
      "resource",
      "subscriptions/listen",
      { uri },
      modernFacts(request, meta, deps.services.callMask, false),
    );
    const outcome = await core.guard(parsed, core.subscribe());
    // Followed, and acknowledged, by the canonical URI that updates are sent for.
    if (outcome.status === "ok") allowed.add(parsed.call.name);
  }
  return [...allowed];
}

/**
 * Keeps the subscription open until the hub ends it or the request is
 * cancelled; `ended` is told at once, in the same turn as the cancel.
 */
function follow(
  hub: SubscriptionHub,
  request: MethodContext<McpSession>,
  filter: SubscriptionFilter,
  tag: Record<string, unknown>,
  ended: () => void,
): Promise<void> {
  const { session, id } = request;
  return new Promise<void>((resolve) => {
    const signal = request.request.signal;
    const stop = (): void => {
      remove();
      ended();
      resolve();
    };
    const remove = hub.add({
      owner: session,
      principal: session.principal,
      filter,
      send: (method, notification) => session.notify(method, { ...notification, _meta: tag }, id),
      end: stop,
    });
    if (signal.aborted) stop();
    else signal.addEventListener("abort", stop, { once: true });
  });
}
