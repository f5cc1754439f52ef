/**
 * A POST of revision 2026-07-28: one message, no session, its headers
 * checked against its body, and the binding's status codes for its errors.
 *
 * @module
 */

import type { AuthGrant } from "../call/context.ts";
import { ErrorCode, quote } from "../jsonrpc/errors.ts";
import {
  classifyMessage,
  isRecord,
  type JsonRpcId,
  type JsonRpcResponse,
} from "../jsonrpc/messages.ts";
import type { Endpoint } from "./endpoint.ts";
import { answerSessionless } from "./exchange.ts";
import { checkModernHeaders, statusOfModernError } from "./modern_headers.ts";
import type { HttpProtocolSession } from "./options.ts";
import { rpcError } from "./responses.ts";

/** The revision a sessionless modern request is served under, for the transport's own rules. */
const MODERN_WIRE = "2026-07-28";

/**
 * Answers a modern POST whose body parsed as `value`; `version` is its
 * `MCP-Protocol-Version` header, as the router read it.
 */
export function modernPost<S extends HttpProtocolSession>(
  endpoint: Endpoint<S>,
  request: Request,
  principal: string | undefined,
  value: unknown,
  sseOk: boolean,
  grant: AuthGrant | undefined,
  version: string | null,
): Response | Promise<Response> {
  if (!isRecord(value)) {
    return rpcError(
      400,
      ErrorCode.InvalidRequest,
      "Invalid request: revision 2026-07-28 takes one JSON-RPC message per POST",
    );
  }
  const classified = classifyMessage(value);
  if (classified.kind === "invalid") {
    // As on stdio: -32600 for an envelope that is no message (an id of {}, [] or true).
    return refusal(400, classified.id, ErrorCode.InvalidRequest, classified.reason);
  }
  if (classified.kind === "response") {
    // Input requests travel inside results in this revision: a client has nothing to answer.
    return refusal(
      400,
      null,
      ErrorCode.InvalidRequest,
      "Invalid request: revision 2026-07-28 takes no responses from the client",
    );
  }
  const id = classified.kind === "request" ? classified.message.id : null;
  const problem = checkModernHeaders(
    request,
    value,
    endpoint.headerParams,
    endpoint.host.mask,
    version,
  );
  if (problem !== undefined) {
    const message = endpoint.host.mask(problem.message);
    if (id === null) return refusal(problem.status, id, problem.code, message);
    return endpoint.host.refused(value, principal, { code: problem.code, message }, "modern")
      .then(() => refusal(problem.status, id, problem.code, message));
  }
  const method = String(value.method);
  if (
    id === null
      ? !endpoint.host.modernNotifications.has(method)
      : !endpoint.host.modernMethods.has(method)
  ) {
    // The one 404: a method (or notification) the server does not implement in this revision.
    const name = quote(endpoint.host.mask(method));
    return refusal(404, id, ErrorCode.MethodNotFound, `Method not found: ${name}`);
  }
  // No session object outlives the request: the call gets a protocol session of its own.
  const session = endpoint.host.newSession(principal);
  session.protocolVersion = MODERN_WIRE;
  session.auth = grant;
  return answerSessionless(endpoint, session, {
    value,
    ids: id === null ? [] : [id],
    sseOk,
    statusOf: id === null ? notificationStatus : modernStatus,
    // A subscription's stream stays open: keep-alive comments keep proxies from closing it.
    keepAliveMs: value.method === "subscriptions/listen" ? endpoint.keepAliveMs : 0,
  });
}

/** An error answer before dispatch, carrying the request's id when it had a usable one. */
function refusal(
  status: number,
  id: JsonRpcId | null,
  code: number,
  message: string,
): Response {
  return Response.json({ jsonrpc: "2.0", id, error: { code, message } }, { status });
}

/** A known notification is accepted (202); one that earned an error is a 400. */
function notificationStatus(): number {
  return 400;
}

/** An error reply travels with the binding's status for its code; a result with 200. */
function modernStatus(reply: JsonRpcResponse | undefined): number {
  return reply?.error === undefined ? 200 : statusOfModernError(reply.error.code);
}
