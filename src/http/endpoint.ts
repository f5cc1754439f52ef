/**
 * What one Streamable HTTP endpoint keeps across requests: its options
 * resolved once, its session table, and finding the legacy session a
 * request names. Every request path reads the endpoint from here.
 *
 * @module
 */

import { metadataPaths } from "../auth/metadata.ts";
import { bodyLimitsOf, BodyReader } from "./body.ts";
import { ErrorCode } from "../jsonrpc/errors.ts";
import { MemoryEventStore } from "./event_store.ts";
import type { HttpSession } from "./http_session.ts";
import type { HeaderParam } from "./modern_headers.ts";
import type { HttpHost, HttpOptions, HttpProtocolSession } from "./options.ts";
import { pathMatcher } from "./requests.ts";
import { rpcError } from "./responses.ts";
import { SessionTable } from "./session_table.ts";

/** One endpoint's state; made once by {@linkcode openEndpoint}, read by every request. */
export interface Endpoint<S extends HttpProtocolSession> {
  /** The server behind the endpoint. */
  readonly host: HttpHost<S>;
  /** The options as given; security and authentication fields are read per request. */
  readonly options: HttpOptions;
  /** The path served, or undefined for any. */
  readonly path: string | undefined;
  /** Whether a request URL is on the path served. */
  readonly onPath: (url: string) => boolean;
  /** Reads a POST body within the endpoint's limits. */
  readonly body: BodyReader;
  /** The clock, in ms. */
  readonly now: () => number;
  /** Whether every POST is handled without a session. */
  readonly stateless: boolean;
  /** Keep-alive interval of long-lived streams, in ms. */
  readonly keepAliveMs: number;
  /** The live sessions. */
  readonly sessions: SessionTable<S>;
  /** The host's `headerParams`, bound once for the modern header checks. */
  readonly headerParams: (tool: string) => readonly HeaderParam[] | undefined;
  /** The paths the Protected Resource Metadata is served at; empty without OAuth. */
  readonly metadataPaths: readonly string[];
  /** Whether requests carry a principal that sessions are bound to. */
  readonly authenticates: boolean;
}

/**
 * Resolves `options` for an endpoint over `host`.
 *
 * @throws {RangeError} A body limit that is not a positive number.
 * @throws {TypeError} Both `authenticate` and `auth` given.
 */
export function openEndpoint<S extends HttpProtocolSession>(
  host: HttpHost<S>,
  options: HttpOptions,
): Endpoint<S> {
  const bodyLimits = bodyLimitsOf(options);
  if (options.auth !== undefined && options.authenticate !== undefined) {
    throw new TypeError("Invalid HTTP options: give either auth or authenticate, not both");
  }
  const now = options.now ?? Date.now;
  const settings = {
    store: options.eventStore ?? new MemoryEventStore(),
    retryMs: options.retryMs ?? 1000,
    keepAliveMs: options.keepAliveMs ?? 25_000,
    log: host.log,
    now,
  };
  const sessions = new SessionTable(host, settings, {
    idleMs: options.sessionIdleMs ?? 30 * 60 * 1000,
    maxSessions: options.maxSessions ?? 1000,
    now,
  });
  return {
    host,
    options,
    path: options.path,
    onPath: options.path === undefined ? () => true : pathMatcher(options.path),
    body: new BodyReader(bodyLimits),
    now,
    stateless: options.stateless === true,
    keepAliveMs: settings.keepAliveMs,
    sessions,
    headerParams: (tool) => host.headerParams(tool),
    metadataPaths: options.auth === undefined ? [] : metadataPaths(options.auth.metadata.resource),
    authenticates: options.auth !== undefined || options.authenticate !== undefined,
  };
}

/** The protocol session an HTTP session carries, as the host made it. */
export function protocolOf<S extends HttpProtocolSession>(http: HttpSession): S {
  // The table opened it from host.newSession(), so it is the host's own type.
  return http.session as S;
}

/**
 * The legacy session a request names in `Mcp-Session-Id`, marked active; or
 * the error answer: 400 without the header, 404 for an unknown session, 403
 * when it belongs to another principal.
 */
export function sessionOf<S extends HttpProtocolSession>(
  endpoint: Endpoint<S>,
  request: Request,
  principal: string | undefined,
): HttpSession | Response {
  const id = request.headers.get("mcp-session-id");
  if (id === null) {
    return rpcError(400, ErrorCode.InvalidRequest, "Bad request: missing Mcp-Session-Id header");
  }
  const http = endpoint.sessions.get(id);
  if (http === undefined) return rpcError(404, ErrorCode.InvalidRequest, "Session not found");
  if (endpoint.authenticates && http.authenticated !== principal) {
    return rpcError(
      403,
      ErrorCode.InvalidRequest,
      "Forbidden: the session belongs to another principal",
    );
  }
  http.lastActive = endpoint.now();
  return http;
}
