/**
 * What the modern front door needs from the server, and the shape every
 * row of its method table shares: a named function given those needs, the
 * request and the request's `_meta`.
 *
 * @module
 */

import type { MethodContext } from "../../dispatcher/dispatcher.ts";
import type { JsonRpcParams } from "../../jsonrpc/messages.ts";
import type { ContextServices } from "../../core/context_base.ts";
import type { Implementation } from "../../core/lifecycle.ts";
import type { PrincipalCounts } from "../../core/quotas.ts";
import type { RequestCore } from "../../core/request_core.ts";
import type { McpSession } from "../../core/session.ts";
import type { RequestMeta } from "../modern/meta.ts";
import type { StateSealer } from "../modern/request_state.ts";
import type { SubscriptionHub } from "../modern/subscriptions.ts";
import type { TaskRunner } from "../tasks/runner.ts";

/** What the modern front door needs from the server. */
export interface ModernDeps {
  /** The request core. */
  readonly core: RequestCore;
  /** The server's identity, sent in every result's `_meta`. */
  readonly serverInfo: Readonly<Implementation>;
  /** Sent by server/discover when set. */
  readonly instructions: string | undefined;
  /** Every revision the server speaks, for server/discover. */
  readonly supportedVersions: readonly string[];
  /** What request contexts borrow. */
  readonly services: ContextServices;
  /** Seals and opens multi round-trip states. */
  readonly sealer: StateSealer;
  /** The open subscriptions. */
  readonly subscriptions: SubscriptionHub;
  /** The listen streams each principal holds open, up to its quota. */
  readonly listenStreams: PrincipalCounts;
  /** Freshness of discover and list results, in ms. */
  readonly listTtlMs: number;
  /** Freshness of resource reads, in ms, unless the item says otherwise. */
  readonly readTtlMs: number;
  /** Whether results can differ by caller beyond what the guardrails show (authentication). */
  readonly callerScoped: boolean;
  /** The most rounds of input one call may ask for. */
  readonly maxInputRounds: number;
  /** How long a sealed state stays valid, in ms. */
  readonly requestStateTtlMs: number;
  /** The clock, in ms. */
  readonly now: () => number;
  /** Runs tools as tasks (the tasks extension). */
  readonly tasks: TaskRunner;
}

/** One method of the modern table: answers a request, given the front door's needs and its `_meta`. */
export type ModernMethod = (
  deps: ModernDeps,
  params: JsonRpcParams,
  request: MethodContext<McpSession>,
  meta: RequestMeta,
) => Promise<Record<string, unknown>> | Record<string, unknown>;

/** Whether list and read results can differ by caller, so that caches must keep them apart. */
export function variesByCaller(deps: ModernDeps): boolean {
  return deps.callerScoped || deps.core.listsVaryByCaller;
}
