/**
 * A POST of the legacy era: `initialize` opens a session under a fresh
 * `Mcp-Session-Id`, every later message names it; in stateless mode each
 * POST is answered without a session (see `exchange.ts`).
 *
 * @module
 */

import type { AuthGrant } from "../call/context.ts";
import { ErrorCode, quote } from "../jsonrpc/errors.ts";
import { isRecord, type JsonRpcResponse } from "../jsonrpc/messages.ts";
import { auditAuthRefusal, isOtherPrincipal, OTHER_PRINCIPAL } from "./auth_refusals.ts";
import { type Endpoint, protocolOf, sessionOf } from "./endpoint.ts";
import type { HttpSession } from "./http_session.ts";
import type { HttpProtocolSession } from "./options.ts";
import { answerSessionless } from "./exchange.ts";
import { respond } from "./replies.ts";
import { requestIdsOf } from "./requests.ts";
import { rpcError } from "./responses.ts";

/** The revision a sessionless request without a version header is served under. */
const DEFAULT_STATELESS_VERSION = "2025-03-26";

/**
 * Answers a legacy POST whose body parsed as `value`: refuses an unknown
 * `MCP-Protocol-Version`, then finds or opens the session and dispatches.
 */
export function legacyPost<S extends HttpProtocolSession>(
  endpoint: Endpoint<S>,
  request: Request,
  principal: string | undefined,
  version: string | null,
  value: unknown,
  sseOk: boolean,
  grant: AuthGrant | undefined,
): Response | Promise<Response> {
  if (version !== null && !endpoint.host.legacyVersions.includes(version)) {
    return refuseVersion(endpoint, principal, version, value);
  }
  const isInitialize = !Array.isArray(value) && isRecord(value) && value.method === "initialize";
  if (endpoint.stateless) {
    // No session object outlives the request: the call gets a protocol session of its own.
    const session = endpoint.host.newSession(principal);
    session.auth = grant;
    if (!isInitialize) session.protocolVersion = version ?? DEFAULT_STATELESS_VERSION;
    const ids = requestIdsOf(Array.isArray(value) ? value : [value]);
    return answerSessionless(endpoint, session, {
      value,
      ids,
      sseOk,
      statusOf: ids.length === 0 ? badRequestStatus : legacyStatus,
      keepAliveMs: 0,
    });
  }
  return sessionPost(endpoint, request, principal, value, sseOk, grant, isInitialize);
}

/** 400 for a `MCP-Protocol-Version` not served, each request in the body audited. */
async function refuseVersion<S extends HttpProtocolSession>(
  endpoint: Endpoint<S>,
  principal: string | undefined,
  version: string,
  value: unknown,
): Promise<Response> {
  // Masked before it is cut short, so a cut cannot hide a secret from the mask.
  const message = `Bad request: unsupported protocol version ${
    quote(endpoint.host.mask(version), 40)
  }`;
  for (const refused of requestsIn(value)) {
    await endpoint.host.refused(refused, principal, {
      code: ErrorCode.InvalidRequest,
      message,
    }, "legacy");
  }
  return rpcError(400, ErrorCode.InvalidRequest, message);
}

/** A POST on a kept session: `initialize` opens one, anything else names one. */
async function sessionPost<S extends HttpProtocolSession>(
  endpoint: Endpoint<S>,
  request: Request,
  principal: string | undefined,
  value: unknown,
  sseOk: boolean,
  grant: AuthGrant | undefined,
  isInitialize: boolean,
): Promise<Response> {
  if (isInitialize) {
    if (!endpoint.sessions.makeRoom()) {
      return rpcError(503, ErrorCode.InternalError, "Service unavailable: too many sessions");
    }
    const http = endpoint.sessions.open(principal);
    http.session.auth = grant;
    return await dispatchOn(endpoint, http, value, sseOk, true);
  }
  const found = sessionOf(endpoint, request, principal);
  if (found instanceof Response) {
    if (isOtherPrincipal(endpoint, found)) {
      await auditAuthRefusal(endpoint, request, found, principal, value, OTHER_PRINCIPAL);
    }
    return found;
  }
  // The session lists what its latest token allows (a step-up widens it, a narrower token narrows it).
  found.session.auth = grant;
  return await dispatchOn(endpoint, found, value, sseOk, false);
}

/** The requests (messages with an id) among a POST body, for the audit of a refusal. */
function requestsIn(value: unknown): Record<string, unknown>[] {
  const messages = Array.isArray(value) ? value : [value];
  return messages.filter((message): message is Record<string, unknown> =>
    isRecord(message) && typeof message.method === "string" &&
    (typeof message.id === "string" || typeof message.id === "number")
  );
}

/** Dispatches `value` on `http`: acknowledged when it holds no request, else answered. */
async function dispatchOn<S extends HttpProtocolSession>(
  endpoint: Endpoint<S>,
  http: HttpSession,
  value: unknown,
  sseOk: boolean,
  isInitialize: boolean,
): Promise<Response> {
  const headers = new Headers({ "mcp-session-id": http.id });
  const ids = requestIdsOf(Array.isArray(value) ? value : [value]);
  if (ids.length === 0) return await acknowledge(endpoint, http, value, headers);
  const statusOf = isInitialize ? initializeStatus : legacyStatus;
  return await respond(endpoint, http, value, ids, sseOk, headers, statusOf);
}

/**
 * Notifications and responses are accepted with 202; anything that is not
 * a JSON-RPC message at all gets its -32600 as a 400.
 */
async function acknowledge<S extends HttpProtocolSession>(
  endpoint: Endpoint<S>,
  http: HttpSession,
  value: unknown,
  headers: Headers,
): Promise<Response> {
  const reply = await endpoint.host.dispatcher.dispatch(value, protocolOf<S>(http));
  if (reply === undefined) return new Response(null, { status: 202, headers });
  headers.set("content-type", "application/json");
  return new Response(JSON.stringify(reply), { status: 400, headers });
}

/** A legacy reply is always 200, errors included. */
function legacyStatus(): number {
  return 200;
}

/** A body of notifications and responses only is answered only when it is no message at all. */
function badRequestStatus(): number {
  return 400;
}

/** 200, but a failed `initialize` leaves no session behind (and names none). */
function initializeStatus<S extends HttpProtocolSession>(
  endpoint: Endpoint<S>,
  reply: JsonRpcResponse | undefined,
  http: HttpSession,
  headers: Headers,
): number {
  if (reply === undefined || "error" in reply) {
    endpoint.sessions.end(http.id, "The initialize request failed");
    headers.delete("mcp-session-id");
  }
  return 200;
}
