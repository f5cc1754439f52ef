/**
 * The modern front door (revision 2026-07-28): each request carries its own
 * version and capabilities in `_meta`, is served with no session, and gets
 * a result with `resultType`, the server's identity and, where the revision
 * asks for them, cache hints. The work itself is the request core's.
 *
 * @module
 */

import type { MethodContext, MethodHandler } from "../../dispatcher/dispatcher.ts";
import { ErrorCode, quote, RpcError } from "../../jsonrpc/errors.ts";
import { isRecord, type JsonRpcParams } from "../../jsonrpc/messages.ts";
import type { CallKind } from "../../call/context.ts";
import type { CallNext, CallOutcome } from "../../call/outcome.ts";
import { CallFacts } from "../../core/call_facts.ts";
import type { ContextServices } from "../../core/context_base.ts";
import type { Implementation } from "../../core/lifecycle.ts";
import { parseCall, type RequestCore } from "../../core/request_core.ts";
import type { McpSession } from "../../core/session.ts";
import { type CacheHints, listHints, readHints } from "../modern/caching.ts";
import { discoverResult } from "../modern/discover.ts";
import { ModernErrorCode } from "../../jsonrpc/modern_errors.ts";
import { META_KEYS, readRequestMeta, type RequestMeta } from "../modern/meta.ts";
import { inputRequiredStep, openState, type RoundTrip } from "../modern/mrtr.ts";
import { parseFilter, type SubscriptionHub } from "../modern/subscriptions.ts";
import { InputLedger, ModernContext } from "../modern/context.ts";
import type { StateSealer } from "../modern/request_state.ts";
import {
  acknowledgeTaskIds,
  taskMethods,
  TASKS_EXTENSION,
  toolCallStep,
} from "../tasks/methods.ts";
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

type ModernHandler = (
  params: JsonRpcParams,
  request: MethodContext<McpSession>,
  meta: RequestMeta,
) => Promise<Record<string, unknown>> | Record<string, unknown>;

/**
 * The modern wire error for an error outcome, as the step that ended the
 * call decided. What it adds (the URI) passes `mask`, like every reply.
 */
function modernError(
  outcome: Extract<CallOutcome, { error: RpcError }>,
  kind: CallKind,
  name: string,
  mask: <T>(value: T) => T,
): RpcError {
  const { error } = outcome;
  switch (outcome.status) {
    case "denied":
      return new RpcError(ModernErrorCode.AccessDenied, error.message, error.data);
    case "rate_limited":
      return new RpcError(ModernErrorCode.RateLimited, error.message, error.data);
    case "not_found":
      return kind === "resource"
        ? new RpcError(ErrorCode.InvalidParams, "Resource not found", { uri: mask(name) })
        : new RpcError(ErrorCode.InvalidParams, error.message);
    default:
      // The revision forbids -32002 (resource not found in earlier revisions).
      return error.code === -32002
        ? new RpcError(ErrorCode.InvalidParams, error.message, error.data)
        : error;
  }
}

/** Builds the modern method table. */
export function modernMethods(deps: ModernDeps): Map<string, MethodHandler<McpSession>> {
  const { core } = deps;
  const methods = new Map<string, MethodHandler<McpSession>>();

  /** Every modern result: `resultType`, and the server's identity in `_meta`. */
  const finish = (
    result: Record<string, unknown>,
    hints?: CacheHints,
  ): Record<string, unknown> => {
    const meta = isRecord(result._meta) ? result._meta : {};
    const done: Record<string, unknown> = {
      ...result,
      resultType: result.resultType ?? "complete",
    };
    if (hints !== undefined) {
      done.ttlMs = hints.ttlMs;
      done.cacheScope = hints.cacheScope;
    }
    done._meta = { ...meta, [META_KEYS.serverInfo]: deps.serverInfo };
    return done;
  };
  const modern = (handler: ModernHandler): MethodHandler<McpSession> => (params, request) =>
    handler(params, request, readRequestMeta(params));
  const variesByCaller = (): boolean => deps.callerScoped || core.listsVaryByCaller;

  methods.set(
    "server/discover",
    modern(() =>
      finish(discoverResult({ ...deps, extensions: { [TASKS_EXTENSION]: {} } }), {
        ttlMs: deps.listTtlMs,
        cacheScope: "public",
      })
    ),
  );

  for (const list of ["tools", "resources", "prompts", "resourceTemplates"] as const) {
    const method = list === "resourceTemplates" ? "resources/templates/list" : `${list}/list`;
    methods.set(
      method,
      modern((params, { session }) => {
        const { result, caches } = core.list(list, params, session.principal, true);
        return finish(result, listHints(deps.listTtlMs, caches, variesByCaller()));
      }),
    );
  }

  const facts = (
    request: MethodContext<McpSession>,
    meta: RequestMeta,
    continuation: boolean,
  ): CallFacts =>
    new CallFacts(
      request.session.principal,
      {
        info: meta.clientInfo,
        capabilities: meta.clientCapabilities,
        protocolVersion: meta.protocolVersion,
      },
      request.id,
      request.request,
      meta.raw,
      "modern",
      continuation,
    );

  const guarded = (
    kind: CallKind,
    method: string,
    stepFor: (context: ModernContext) => CallNext,
  ): MethodHandler<McpSession> =>
    modern(async (params, request, meta) => {
      const { session } = request;
      const trip: RoundTrip = await openState(
        deps.sealer,
        kind,
        method,
        params,
        session.principal,
        deps.now(),
      );
      const parsed = parseCall(kind, method, params, facts(request, meta, trip.continuation));
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
      );
      const step = inputRequiredStep(stepFor(context), ledger, trip, {
        sealer: deps.sealer,
        maxRounds: deps.maxInputRounds,
        ttlMs: deps.requestStateTtlMs,
        now: deps.now,
      });
      const outcome = await core.guard({ call: parsed.call, problem }, step);
      if ("error" in outcome) {
        throw modernError(outcome, kind, parsed.call.name, deps.services.outgoing);
      }
      if (outcome.status === "input_required") {
        return finish(outcome.result);
      }
      // Results of a retry depend on inputs outside the cache key: never cacheable.
      const hints = kind === "resource"
        ? trip.retried
          ? { ttlMs: 0, cacheScope: "private" as const }
          : readHints(deps.readTtlMs, core.readCache(parsed.call.name), variesByCaller())
        : undefined;
      return finish(outcome.result, hints);
    });
  methods.set(
    "tools/call",
    guarded("tool", "tools/call", (ctx) => toolCallStep(core, deps.tasks, ctx)),
  );
  methods.set(
    "resources/read",
    guarded("resource", "resources/read", (ctx) => core.readResource(ctx)),
  );
  methods.set("prompts/get", guarded("prompt", "prompts/get", (ctx) => core.getPrompt(ctx)));

  methods.set(
    "completion/complete",
    modern(async (params, request, meta) => {
      const parsed = core.parseCompletion(params, facts(request, meta, false));
      const outcome = await core.guard(parsed, parsed.step);
      if ("error" in outcome) {
        throw modernError(outcome, parsed.call.kind, parsed.call.name, deps.services.outgoing);
      }
      return finish(outcome.result);
    }),
  );

  methods.set(
    "subscriptions/listen",
    modern(async (params, request, meta) => {
      const { session, id } = request;
      const { flags, uris, taskIds } = parseFilter(params);
      const acknowledged: Record<string, unknown> = { ...flags };
      const followed = taskIds === undefined
        ? undefined
        : await acknowledgeTaskIds(deps.tasks, taskIds, meta, session.principal);
      if (followed !== undefined) acknowledged.taskIds = followed;
      if (uris !== undefined) {
        // Each resource goes through the pipeline like any use of it: access, limits, audit.
        const allowed: string[] = [];
        for (const uri of uris) {
          const parsed = parseCall(
            "resource",
            "subscriptions/listen",
            { uri },
            facts(request, meta, false),
          );
          const outcome = await core.guard(parsed, core.subscribe());
          if (outcome.status === "ok") allowed.push(uri);
        }
        acknowledged.resourceSubscriptions = allowed;
      }
      const tag = { [META_KEYS.subscriptionId]: id };
      // The acknowledgement is the first message of the subscription.
      session.notify(
        "notifications/subscriptions/acknowledged",
        { _meta: tag, notifications: acknowledged },
        id,
      );
      await new Promise<void>((resolve) => {
        const signal = request.request.signal;
        const remove = deps.subscriptions.add({
          owner: session,
          principal: session.principal,
          filter: {
            ...flags,
            ...(uris === undefined
              ? {}
              : { resourceSubscriptions: acknowledged.resourceSubscriptions as string[] }),
            ...(followed === undefined ? {} : { taskIds: followed }),
          },
          send: (method, notification) =>
            session.notify(method, { ...notification, _meta: tag }, id),
          end: () => {
            remove();
            resolve();
          },
        });
        const stop = (): void => {
          remove();
          resolve();
        };
        if (signal.aborted) stop();
        else signal.addEventListener("abort", stop, { once: true });
      });
      return finish({ _meta: tag });
    }),
  );

  // The tasks extension: tasks/get, tasks/update, tasks/cancel.
  const tasks = taskMethods({
    core,
    runner: deps.tasks,
    facts,
    finish,
    error: (outcome, kind, name) => modernError(outcome, kind, name, deps.services.outgoing),
  });
  for (const [method, handler] of tasks) {
    methods.set(method, modern(handler));
  }

  return methods;
}

/** Methods of the legacy era that revision 2026-07-28 removed (404 over HTTP). */
export const REMOVED_METHODS: ReadonlySet<string> = new Set([
  "initialize",
  "ping",
  "logging/setLevel",
  "resources/subscribe",
  "resources/unsubscribe",
]);

/**
 * Notifications of the legacy era that revision 2026-07-28 removed: a
 * modern one is ignored (there is no session to initialize, and the
 * client's roots come with each request).
 */
export const REMOVED_NOTIFICATIONS: ReadonlySet<string> = new Set([
  "notifications/initialized",
  "notifications/roots/list_changed",
]);

/** The error for a method a modern request cannot use. */
export function methodNotFound(method: string): RpcError {
  return new RpcError(ErrorCode.MethodNotFound, `Method not found: ${quote(method)}`);
}
