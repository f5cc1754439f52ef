/**
 * One request through the endpoint: the path, Host and Origin checks, the
 * CORS preflight, authentication, then routing by method: POST to its era,
 * GET and DELETE to the legacy session they name.
 *
 * @module
 */

import { ErrorCode } from "../jsonrpc/errors.ts";
import { type Endpoint, sessionOf } from "./endpoint.ts";
import type { HttpProtocolSession } from "./options.ts";
import { post } from "./post.ts";
import { openGetStream } from "./replies.ts";
import { requestHost, requestPath } from "./requests.ts";
import {
  ALLOW_POST_ONLY,
  ALLOW_SESSIONS,
  methodNotAllowed,
  pathNotFound,
  rpcError,
} from "./responses.ts";
import { isAllowedHost, isAllowedOrigin, preflightHeaders } from "./security.ts";

/** Answers one request (CORS headers and failures are the caller's). */
export async function handleRequest<S extends HttpProtocolSession>(
  endpoint: Endpoint<S>,
  request: Request,
): Promise<Response> {
  const origin = request.headers.get("origin");
  const refused = refusal(endpoint, request, origin);
  if (refused !== undefined) return refused;
  if (request.method === "OPTIONS") {
    return new Response(null, {
      status: 204,
      headers: preflightHeaders(origin, endpoint.options.cors),
    });
  }
  if (request.method !== "GET" && request.method !== "POST" && request.method !== "DELETE") {
    return methodNotAllowed(endpoint.stateless ? ALLOW_POST_ONLY : ALLOW_SESSIONS);
  }
  // Without authentication there is nothing to wait for.
  const principal = endpoint.options.authenticate === undefined
    ? undefined
    : await principalOf(endpoint, request);
  if (principal instanceof Response) return principal;
  const version = request.headers.get("mcp-protocol-version");
  if (request.method === "POST") return await post(endpoint, request, principal, version);
  return sessionRequest(endpoint, request, principal, version);
}

/** 404 off the endpoint's path; 403 for a Host or Origin not allowed (DNS rebinding). */
function refusal<S extends HttpProtocolSession>(
  endpoint: Endpoint<S>,
  request: Request,
  origin: string | null,
): Response | undefined {
  const options = endpoint.options;
  if (endpoint.path !== undefined && requestPath(request.url) !== endpoint.path) {
    return pathNotFound();
  }
  if (
    options.allowedHosts !== false &&
    !isAllowedHost(requestHost(request), options.allowedHosts || undefined)
  ) {
    return rpcError(403, ErrorCode.InvalidRequest, "Forbidden: host not allowed");
  }
  if (!isAllowedOrigin(origin, options.allowedOrigins, options.cors)) {
    return rpcError(403, ErrorCode.InvalidRequest, "Forbidden: origin not allowed");
  }
  return undefined;
}

/** The principal `authenticate` names, or 401 with `WWW-Authenticate` when it refuses. */
async function principalOf<S extends HttpProtocolSession>(
  endpoint: Endpoint<S>,
  request: Request,
): Promise<string | undefined | Response> {
  const options = endpoint.options;
  if (options.authenticate === undefined) return undefined;
  const result = await options.authenticate(request);
  if (result !== null) return result;
  const headers = new Headers({
    "www-authenticate": options.wwwAuthenticate ?? 'Bearer realm="mcp"',
  });
  return rpcError(401, ErrorCode.InvalidRequest, "Unauthorized", headers);
}

/**
 * GET (the session's streams) or DELETE (end the session). Both belong to
 * legacy sessions: revision 2026-07-28 and stateless mode have neither (405).
 */
function sessionRequest<S extends HttpProtocolSession>(
  endpoint: Endpoint<S>,
  request: Request,
  principal: string | undefined,
  version: string | null,
): Response {
  const host = endpoint.host;
  if (
    endpoint.stateless ||
    (host.modern && version !== null && !host.legacyVersions.includes(version))
  ) {
    return methodNotAllowed(ALLOW_POST_ONLY);
  }
  const found = sessionOf(endpoint, request, principal);
  if (found instanceof Response) return found;
  if (request.method === "DELETE") {
    endpoint.sessions.end(found.id ?? "", "The client ended the session");
    return new Response(null, { status: 204 });
  }
  return openGetStream(request, found);
}
