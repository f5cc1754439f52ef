/**
 * One request through the endpoint: the Protected Resource Metadata under
 * OAuth, the path, Host and Origin checks, the CORS preflight,
 * authentication, then routing by method: POST to its era, GET and DELETE
 * to the legacy session they name.
 *
 * @module
 */

import type { AuthGrant } from "../call/context.ts";
import { isMetadataPath } from "../auth/metadata.ts";
import { auditAuthRefusal, isOtherPrincipal, OTHER_PRINCIPAL } from "./auth_refusals.ts";
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

/** A caller: who (as authentication names it), and what an OAuth access token grants. */
interface Caller {
  readonly principal: string | undefined;
  readonly grant: AuthGrant | undefined;
}

const ANONYMOUS: Caller = { principal: undefined, grant: undefined };

/** Answers one request (CORS headers and failures are the caller's). */
export function handleRequest<S extends HttpProtocolSession>(
  endpoint: Endpoint<S>,
  request: Request,
): Response | Promise<Response> {
  // Each read of these asks the runtime again: read once.
  const url = request.url;
  const method = request.method;
  const metadata = metadataAnswer(endpoint, url, method);
  if (metadata !== undefined) return metadata;
  const origin = request.headers.get("origin");
  const refused = refusal(endpoint, request, url, origin);
  if (refused !== undefined) return refused;
  if (method === "OPTIONS") {
    return new Response(null, {
      status: 204,
      headers: preflightHeaders(origin, endpoint.options.cors),
    });
  }
  if (method !== "GET" && method !== "POST" && method !== "DELETE") {
    return methodNotAllowed(endpoint.stateless ? ALLOW_POST_ONLY : ALLOW_SESSIONS);
  }
  // Without authentication there is nothing to wait for.
  if (!endpoint.authenticates) return route(endpoint, request, method, ANONYMOUS);
  return authenticated(endpoint, request, method);
}

/** Authenticates the caller, then routes; a refusal is audited. */
async function authenticated<S extends HttpProtocolSession>(
  endpoint: Endpoint<S>,
  request: Request,
  method: string,
): Promise<Response> {
  const caller = await callerOf(endpoint, request);
  if (caller instanceof Response) {
    await auditAuthRefusal(endpoint, request, caller, undefined);
    return caller;
  }
  return await route(endpoint, request, method, caller);
}

/** POST to its era, GET and DELETE to the session they name. */
function route<S extends HttpProtocolSession>(
  endpoint: Endpoint<S>,
  request: Request,
  method: string,
  caller: Caller,
): Promise<Response> {
  const version = request.headers.get("mcp-protocol-version");
  if (method === "POST") return post(endpoint, request, caller.principal, version, caller.grant);
  return sessionRequest(endpoint, request, caller.principal, version);
}

/**
 * The Protected Resource Metadata (RFC 9728) for a GET of one of its paths;
 * 404 for another path under its well-known prefix (or any, without OAuth);
 * undefined for every other path. It is public: no authentication, and any
 * origin may read it.
 */
function metadataAnswer<S extends HttpProtocolSession>(
  endpoint: Endpoint<S>,
  url: string,
  method: string,
): Response | undefined {
  // Most requests are to the endpoint: a substring test spares them a second URL parse.
  if (!url.includes("/.well-known/oauth-protected-resource")) return undefined;
  const path = requestPath(url);
  if (!isMetadataPath(path)) return undefined;
  const auth = endpoint.options.auth;
  if (auth === undefined || !endpoint.metadataPaths.includes(path)) return pathNotFound();
  const headers = { "access-control-allow-origin": "*", "cache-control": "max-age=300" };
  if (method === "OPTIONS") {
    return new Response(null, {
      status: 204,
      headers: { ...headers, "access-control-allow-methods": "GET, HEAD, OPTIONS" },
    });
  }
  if (method !== "GET" && method !== "HEAD") {
    return methodNotAllowed("GET, HEAD, OPTIONS");
  }
  return Response.json(auth.metadata, { headers });
}

/** 404 off the endpoint's path; 403 for a Host or Origin not allowed (DNS rebinding). */
function refusal<S extends HttpProtocolSession>(
  endpoint: Endpoint<S>,
  request: Request,
  url: string,
  origin: string | null,
): Response | undefined {
  const options = endpoint.options;
  if (!endpoint.onPath(url)) {
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

/**
 * The caller an access token proves (`auth`) or `authenticate` names, or
 * the refusal: the resource server's challenge, or 401 with
 * `WWW-Authenticate` when `authenticate` returns null.
 */
async function callerOf<S extends HttpProtocolSession>(
  endpoint: Endpoint<S>,
  request: Request,
): Promise<Caller | Response> {
  const options = endpoint.options;
  if (options.auth !== undefined) {
    const granted = await options.auth.authenticate(request, endpoint.host.log);
    return granted;
  }
  if (options.authenticate === undefined) return ANONYMOUS;
  const result = await options.authenticate(request);
  if (result !== null) return { principal: result, grant: undefined };
  const headers = new Headers({
    "www-authenticate": options.wwwAuthenticate ?? 'Bearer realm="mcp"',
  });
  return rpcError(401, ErrorCode.InvalidRequest, "Unauthorized", headers);
}

/**
 * GET (the session's streams) or DELETE (end the session). Both belong to
 * legacy sessions: revision 2026-07-28 and stateless mode have neither (405).
 */
async function sessionRequest<S extends HttpProtocolSession>(
  endpoint: Endpoint<S>,
  request: Request,
  principal: string | undefined,
  version: string | null,
): Promise<Response> {
  const host = endpoint.host;
  if (
    endpoint.stateless ||
    (host.modern && version !== null && !host.legacyVersions.includes(version))
  ) {
    return methodNotAllowed(ALLOW_POST_ONLY);
  }
  const found = sessionOf(endpoint, request, principal);
  if (found instanceof Response) {
    if (isOtherPrincipal(endpoint, found)) {
      await auditAuthRefusal(endpoint, request, found, principal, undefined, OTHER_PRINCIPAL);
    }
    return found;
  }
  if (request.method === "DELETE") {
    endpoint.sessions.end(found.id ?? "", "The client ended the session");
    return new Response(null, { status: 204 });
  }
  return openGetStream(request, found);
}
