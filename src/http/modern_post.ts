/**
 * A POST of revision 2026-07-28: one message, no session, its headers
 * checked against its body, and the binding's status codes for its errors.
 *
 * @module
 */

import type { AuthGrant } from "../call/context.ts";
import { ErrorCode } from "../jsonrpc/errors.ts";
import { isRecord, type JsonRpcResponse } from "../jsonrpc/messages.ts";
import { type Endpoint, protocolOf } from "./endpoint.ts";
import type { HttpSession } from "./http_session.ts";
import { checkModernHeaders, statusOfModernError } from "./modern_headers.ts";
import type { HttpProtocolSession } from "./options.ts";
import { respond } from "./replies.ts";
import { rpcError } from "./responses.ts";

/** The revision a sessionless modern request is served under, for the transport's own rules. */
const MODERN_WIRE = "2026-07-28";

/** Answers a modern POST whose body parsed as `value`. */
export async function modernPost<S extends HttpProtocolSession>(
  endpoint: Endpoint<S>,
  request: Request,
  principal: string | undefined,
  value: unknown,
  sseOk: boolean,
  grant: AuthGrant | undefined,
): Promise<Response> {
  if (!isRecord(value)) {
    return rpcError(
      400,
      ErrorCode.InvalidRequest,
      "Invalid request: revision 2026-07-28 takes one JSON-RPC message per POST",
    );
  }
  const id = typeof value.id === "string" || typeof value.id === "number" ? value.id : null;
  const problem = checkModernHeaders(request, value, endpoint.headerParams);
  if (problem !== undefined) {
    return Response.json(
      { jsonrpc: "2.0", id, error: { code: problem.code, message: problem.message } },
      { status: problem.status },
    );
  }
  if (id === null && !endpoint.host.modernNotifications.has(String(value.method))) {
    // Notifications get no reply, but over HTTP an unknown one is answered like an unknown method.
    return rpcError(404, ErrorCode.MethodNotFound, "Method not found");
  }
  const { http, release } = endpoint.sessions.open(principal, false);
  http.session.protocolVersion = MODERN_WIRE;
  http.session.auth = grant;
  if (id === null) return await notify(endpoint, http, value, release);
  // A subscription's stream stays open: keep-alive comments keep proxies from closing it.
  const keepAlive = value.method === "subscriptions/listen" ? endpoint.keepAliveMs : 0;
  return await respond(
    endpoint,
    http,
    value,
    [id],
    sseOk,
    new Headers(),
    release,
    modernStatus,
    keepAlive,
  );
}

/** Dispatches a known notification: 202, or 400 with the error it earned. */
async function notify<S extends HttpProtocolSession>(
  endpoint: Endpoint<S>,
  http: HttpSession,
  value: Record<string, unknown>,
  release: () => void,
): Promise<Response> {
  try {
    const reply = await endpoint.host.dispatcher.handle(value, protocolOf<S>(http));
    if (reply === undefined) return new Response(null, { status: 202 });
    return Response.json(reply, { status: 400 });
  } finally {
    release();
  }
}

/** An error reply travels with the binding's status for its code; a result with 200. */
function modernStatus<S extends HttpProtocolSession>(
  _endpoint: Endpoint<S>,
  reply: JsonRpcResponse | undefined,
): number {
  return reply?.error === undefined ? 200 : statusOfModernError(reply.error.code);
}
