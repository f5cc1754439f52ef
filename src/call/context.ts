/**
 * The facts of one guarded call: what is called, by whom, in which era.
 * Plain data that every guardrail decides on and both front doors build.
 *
 * @module
 */

import type { Mask } from "./mask.ts";

/**
 * The facts of one request that guardrails decide on: plain data, never the
 * handler's context. The principal is the one configured for the session or
 * the HTTP request; the client's self-description is never trusted.
 *
 * @example A guardrail that lets only known principals call tools
 * ```ts
 * import { ErrorCode, RpcError } from "@warden/mcp";
 * import type { CallContext, Guardrail } from "@warden/mcp/guardrails";
 * const staff = new Set(["support", "billing"]);
 * function isStaff(context: CallContext): boolean {
 *   return context.principal !== undefined && staff.has(context.principal);
 * }
 * const staffOnly: Guardrail = {
 *   name: "staff-only",
 *   stage: "custom",
 *   run: (call, next) =>
 *     call.kind !== "tool" || isStaff(call.context) ? next(call) : {
 *       status: "denied",
 *       error: new RpcError(ErrorCode.AccessDenied, `Access denied: ${call.name}`),
 *     },
 * };
 * ```
 */
export interface CallContext {
  /** Who is calling, as configured; undefined when anonymous. */
  readonly principal: string | undefined;
  /** The client as the request describes it: self-reported, never used for decisions. */
  readonly client: {
    /** `clientInfo` (from `initialize`, or per request in the modern era). */
    readonly info: { readonly name: string; readonly version: string } | undefined;
    /** The capabilities the client declared (on the session, or on this request). */
    readonly capabilities: Readonly<Record<string, unknown>>;
    /** The protocol revision the request is served under. */
    readonly protocolVersion: string;
  };
  /** The JSON-RPC id of the request. */
  readonly requestId: string | number;
  /** Aborts when the client cancels or the server shuts down. */
  readonly signal: AbortSignal;
  /** Whether the request was aborted (without creating a signal). */
  readonly aborted: boolean;
  /** Whether the client itself cancelled it: then no reply is sent at all. */
  readonly cancelledByClient: boolean;
  /** The request's `_meta`, as sent. */
  readonly _meta: Readonly<Record<string, unknown>> | undefined;
  /** The protocol era the request arrived in: the handshake era, or 2026-07-28. */
  readonly era: "legacy" | "modern";
  /**
   * True on a multi round-trip retry whose sealed `requestState` verified:
   * the same call continuing, which the rate limiter does not charge again.
   */
  readonly continuation: boolean;
  /**
   * The server's masker, the one everything it sends passes (the masks of
   * its guardrails composed); undefined when no guardrail masks. Guardrails
   * that write elsewhere (the audit log, telemetry) mask with it.
   */
  readonly mask: Mask | undefined;
  /**
   * What the request's OAuth access token grants (`http.auth`): its scopes,
   * and the claims the server asked `oauthResourceServer({ claims })` for.
   * Never the token itself. Undefined without OAuth.
   */
  readonly auth?: {
    /** The token's scopes. */
    readonly scopes: readonly string[];
    /** The claims the server named, as the token carries them; the rest are left out. */
    readonly claims: Readonly<Record<string, unknown>>;
  } | undefined;
}

/** What an OAuth access token grants a request: its scopes and the claims asked for. */
export type AuthGrant = NonNullable<CallContext["auth"]>;

/**
 * One guarded call: a tools/call, resources/read or prompts/get, and every
 * other request that reads or acts on a named item (completion, resource
 * subscriptions). Guardrails may pass a changed copy to `next`.
 *
 * @example A guardrail that caps the `limit` argument of any tool call
 * ```ts
 * import type { GuardedCall, Guardrail } from "@warden/mcp/guardrails";
 * function capLimit(call: GuardedCall, most: number): GuardedCall {
 *   const limit = call.arguments.limit;
 *   if (call.kind !== "tool" || typeof limit !== "number" || limit <= most) return call;
 *   return { ...call, arguments: { ...call.arguments, limit: most } };
 * }
 * const capped: Guardrail = {
 *   name: "cap-limit",
 *   stage: "custom",
 *   run: (call, next) => next(capLimit(call, 100)),
 * };
 * ```
 */
export interface GuardedCall {
  /** What kind of item is called. */
  readonly kind: "tool" | "resource" | "prompt";
  /** The JSON-RPC method. */
  readonly method: string;
  /**
   * The tool or prompt name, or the resource URI in canonical form (RFC 3986
   * §6.2.2: see `canonicalUri` in docs/guardrails.md), the form the handler,
   * the rate limiter and the audit log see too.
   */
  readonly name: string;
  /**
   * The resource URI as the client sent it, present only when it differs from
   * `name`. A guardrail that decides on names decides on both; the access
   * policy refuses a call whose two forms it would decide differently.
   */
  readonly sentName?: string;
  /** The call's arguments (empty for resources). */
  readonly arguments: Readonly<Record<string, unknown>>;
  /** The request's facts. */
  readonly context: CallContext;
}

/** What a call is about. */
export type CallKind = GuardedCall["kind"];

/** Which protocol era a request arrived in. */
export type Era = CallContext["era"];

/** The client as a request describes it. */
export type CallClient = CallContext["client"];
