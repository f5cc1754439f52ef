/**
 * The Streamable HTTP endpoint as a web-standard fetch handler: POST for
 * client messages (answered as JSON or SSE), GET for the standalone stream
 * and resumption, DELETE to end a session; sessions, security checks and
 * authentication around them.
 *
 * @module
 */

import { ErrorCode } from "../jsonrpc/errors.ts";
import { MemoryEventStore } from "./event_store.ts";
import type { HttpSession } from "./http_session.ts";
import { SessionTable } from "./session_table.ts";
import type { HttpHost, HttpOptions, HttpProtocolSession } from "./options.ts";
import { isRecord, type JsonRpcResponse } from "../jsonrpc/messages.ts";
import { checkModernHeaders, isModernPost, statusOfModernError } from "./modern_headers.ts";
import {
  accepts,
  bodyLimitsOf,
  readBody,
  requestHost,
  requestIdsOf,
  requestPath,
} from "./requests.ts";
import { rpcError } from "./responses.ts";
import { corsHeaders, isAllowedHost, isAllowedOrigin, preflightHeaders } from "./security.ts";

const SSE_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  // Proxies such as nginx must not hold events back.
  "x-accel-buffering": "no",
};

/** The revision a sessionless modern request is served under, for the transport's own rules. */
const MODERN_WIRE = "2026-07-28";

/**
 * Builds the fetch handler of one endpoint over `host`.
 *
 * @example
 * ```ts ignore
 * const fetch = createHttpHandler(host, { path: "/mcp" });
 * ```
 */
export function createHttpHandler<S extends HttpProtocolSession>(
  host: HttpHost<S>,
  options: HttpOptions = {},
): { fetch: (request: Request) => Promise<Response>; close: (reason: unknown) => void } {
  const path = options.path;
  const bodyLimits = bodyLimitsOf(options);
  const now = options.now ?? Date.now;
  const stateless = options.stateless === true;
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
  // The HttpSession carries the host's session type; the host gets it back as given.
  const protocolOf = (http: HttpSession): S => http.session as S;

  async function handle(request: Request): Promise<Response> {
    if (path !== undefined && requestPath(request.url) !== path) {
      return new Response("Not found", { status: 404 });
    }
    if (
      options.allowedHosts !== false &&
      !isAllowedHost(requestHost(request), options.allowedHosts || undefined)
    ) {
      return rpcError(403, ErrorCode.InvalidRequest, "Forbidden: host not allowed");
    }
    const origin = request.headers.get("origin");
    if (!isAllowedOrigin(origin, options.allowedOrigins, options.cors)) {
      return rpcError(403, ErrorCode.InvalidRequest, "Forbidden: origin not allowed");
    }
    if (request.method === "OPTIONS") {
      return new Response(null, { status: 204, headers: preflightHeaders(origin, options.cors) });
    }
    if (!["GET", "POST", "DELETE"].includes(request.method)) {
      return new Response("Method not allowed", {
        status: 405,
        headers: { allow: stateless ? "POST, OPTIONS" : "GET, POST, DELETE, OPTIONS" },
      });
    }
    let principal: string | undefined;
    if (options.authenticate !== undefined) {
      const result = await options.authenticate(request);
      if (result === null) {
        const headers = new Headers({
          "www-authenticate": options.wwwAuthenticate ?? 'Bearer realm="mcp"',
        });
        return rpcError(401, ErrorCode.InvalidRequest, "Unauthorized", headers);
      }
      principal = result;
    }
    const version = request.headers.get("mcp-protocol-version");
    if (request.method === "POST") return await post(request, principal, version);
    // GET and DELETE belong to legacy sessions; revision 2026-07-28 has neither.
    if (
      stateless || (host.modern && version !== null && !host.legacyVersions.includes(version))
    ) {
      return new Response("Method not allowed", {
        status: 405,
        headers: { allow: "POST, OPTIONS" },
      });
    }
    const found = sessionOf(request, principal);
    if (found instanceof Response) return found;
    if (request.method === "DELETE") {
      sessions.end(found.id ?? "", "The client ended the session");
      return new Response(null, { status: 204 });
    }
    return get(request, found);
  }

  function sessionOf(request: Request, principal: string | undefined): HttpSession | Response {
    const id = request.headers.get("mcp-session-id");
    if (id === null) {
      return rpcError(400, ErrorCode.InvalidRequest, "Bad request: missing Mcp-Session-Id header");
    }
    const http = sessions.get(id);
    if (http === undefined) return rpcError(404, ErrorCode.InvalidRequest, "Session not found");
    if (options.authenticate !== undefined && http.authenticated !== principal) {
      return rpcError(
        403,
        ErrorCode.InvalidRequest,
        "Forbidden: the session belongs to another principal",
      );
    }
    http.lastActive = now();
    return http;
  }

  function get(request: Request, http: HttpSession): Response {
    if (!accepts(request, "text/event-stream")) {
      return rpcError(
        406,
        ErrorCode.InvalidRequest,
        "Not acceptable: GET needs Accept: text/event-stream",
      );
    }
    const lastEventId = request.headers.get("last-event-id");
    if (lastEventId !== null) {
      const writer = http.resume(lastEventId);
      if (writer === undefined) {
        return rpcError(404, ErrorCode.InvalidRequest, "Unknown Last-Event-ID");
      }
      return new Response(writer.body, { headers: SSE_HEADERS });
    }
    const writer = http.openStandalone();
    if (writer === undefined) {
      return rpcError(
        409,
        ErrorCode.InvalidRequest,
        "Conflict: this session already has a GET stream",
      );
    }
    return new Response(writer.body, { headers: SSE_HEADERS });
  }

  async function post(
    request: Request,
    principal: string | undefined,
    version: string | null,
  ): Promise<Response> {
    const type = request.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
    if (type !== "application/json") {
      return rpcError(
        415,
        ErrorCode.InvalidRequest,
        "Unsupported media type: send application/json",
      );
    }
    const jsonOk = accepts(request, "application/json");
    const sseOk = accepts(request, "text/event-stream");
    if (!jsonOk && !sseOk) {
      return rpcError(
        406,
        ErrorCode.InvalidRequest,
        "Not acceptable: accept application/json and text/event-stream",
      );
    }
    const text = await readBody(request, bodyLimits);
    if (text instanceof Response) return text;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return rpcError(400, ErrorCode.ParseError, "Parse error: the body is not valid JSON");
    }
    if (host.modern && isModernPost(request, value, host.legacyVersions)) {
      return await modernPost(request, principal, value, sseOk);
    }
    if (version !== null && !host.legacyVersions.includes(version)) {
      return rpcError(
        400,
        ErrorCode.InvalidRequest,
        `Bad request: unsupported protocol version ${JSON.stringify(version.slice(0, 40))}`,
      );
    }
    const messages = Array.isArray(value) ? value : [value];
    const isInitialize = !Array.isArray(value) && isRecord(value) && value.method === "initialize";
    let http: HttpSession;
    // A stateless session lives for this request (or its stream) only.
    let release: (() => void) | undefined;
    if (stateless) {
      ({ http, release } = sessions.open(principal, false));
      if (!isInitialize) http.session.protocolVersion = version ?? "2025-03-26";
    } else if (isInitialize) {
      if (!sessions.makeRoom()) {
        return rpcError(503, ErrorCode.InternalError, "Service unavailable: too many sessions");
      }
      http = sessions.open(principal, true).http;
    } else {
      const found = sessionOf(request, principal);
      if (found instanceof Response) return found;
      http = found;
    }
    const headers = new Headers();
    if (http.id !== undefined) headers.set("mcp-session-id", http.id);
    const ids = requestIdsOf(messages);
    if (ids.length === 0) {
      try {
        // Notifications and responses are accepted; anything that is not a
        // JSON-RPC message at all gets its -32600 as an HTTP error.
        const reply = await host.dispatcher.handle(value, protocolOf(http));
        if (reply === undefined) return new Response(null, { status: 202, headers });
        headers.set("content-type", "application/json");
        return new Response(JSON.stringify(reply), { status: 400, headers });
      } finally {
        release?.();
      }
    }
    return await respond(http, value, ids, sseOk, headers, release, (reply) => {
      if (isInitialize && http.id !== undefined && (reply === undefined || "error" in reply)) {
        sessions.end(http.id, "The initialize request failed");
        headers.delete("mcp-session-id");
      }
      return 200;
    });
  }

  /**
   * Dispatches `value` and answers: as plain JSON when the reply comes
   * first, as an SSE stream as soon as anything else is sent for the
   * request. `statusOf` picks the HTTP status of a plain reply.
   */
  async function respond(
    http: HttpSession,
    value: unknown,
    ids: readonly (string | number)[],
    sseOk: boolean,
    headers: Headers,
    release: (() => void) | undefined,
    statusOf: (reply: JsonRpcResponse | undefined) => number,
    keepAliveMs = 0,
  ): Promise<Response> {
    try {
      const route = sseOk ? http.openRoute(ids, keepAliveMs) : undefined;
      const replying = host.dispatcher.handle(value, protocolOf(http));
      const first = route === undefined
        ? await replying.then((reply) => ({ reply }))
        : await Promise.race([
          replying.then((reply) => ({ reply })),
          route.streamRequested.then(() => undefined),
        ]);
      if (route !== undefined && first === undefined) {
        // Something was sent for the request before its reply: stream.
        const writer = route.startStream();
        const done = release;
        release = undefined;
        replying.then((reply) =>
          route.finish(reply === undefined ? undefined : JSON.stringify(reply))
        )
          .finally(() => done?.());
        for (const [key, value] of Object.entries(SSE_HEADERS)) headers.set(key, value);
        return new Response(writer.body, { status: 200, headers });
      }
      route?.finish(undefined);
      const reply = first?.reply;
      const single = Array.isArray(reply) ? undefined : reply;
      const status = statusOf(single);
      if (reply === undefined) return new Response(null, { status: 202, headers });
      headers.set("content-type", "application/json");
      return new Response(JSON.stringify(reply), { status, headers });
    } finally {
      release?.();
    }
  }

  /**
   * A revision 2026-07-28 request: one message, no session, headers checked
   * against the body, and the binding's status codes for its errors.
   */
  async function modernPost(
    request: Request,
    principal: string | undefined,
    value: unknown,
    sseOk: boolean,
  ): Promise<Response> {
    if (!isRecord(value)) {
      return rpcError(
        400,
        ErrorCode.InvalidRequest,
        "Invalid request: revision 2026-07-28 takes one JSON-RPC message per POST",
      );
    }
    const id = typeof value.id === "string" || typeof value.id === "number" ? value.id : null;
    const problem = checkModernHeaders(request, value, (tool) => host.headerParams(tool));
    if (problem !== undefined) {
      return Response.json(
        { jsonrpc: "2.0", id, error: { code: problem.code, message: problem.message } },
        { status: problem.status },
      );
    }
    if (id === null && !host.modernNotifications.has(String(value.method))) {
      // Notifications get no reply, but over HTTP an unknown one is answered like an unknown method.
      return Response.json({
        jsonrpc: "2.0",
        id: null,
        error: { code: ErrorCode.MethodNotFound, message: "Method not found" },
      }, { status: 404 });
    }
    const { http, release } = sessions.open(principal, false);
    http.session.protocolVersion = MODERN_WIRE;
    if (id === null) {
      try {
        const reply = await host.dispatcher.handle(value, protocolOf(http));
        if (reply === undefined) return new Response(null, { status: 202 });
        return Response.json(reply, { status: 400 });
      } finally {
        release();
      }
    }
    // A subscription's stream stays open: keep-alive comments keep proxies from closing it.
    const keepAlive = value.method === "subscriptions/listen" ? settings.keepAliveMs : 0;
    return await respond(
      http,
      value,
      [id],
      sseOk,
      new Headers(),
      release,
      (reply) =>
        reply !== undefined && "error" in reply ? statusOfModernError(reply.error.code) : 200,
      keepAlive,
    );
  }

  return {
    async fetch(request) {
      const cors = corsHeaders(request.headers.get("origin"), options.cors);
      let response: Response;
      try {
        response = await handle(request);
      } catch (error) {
        // One short line per failure: a request that trips it must not flood stderr.
        const detail = error instanceof Error ? error.message : String(error);
        host.log(`warden: the HTTP endpoint failed: ${detail}`);
        response = rpcError(500, ErrorCode.InternalError, "Internal error");
      }
      cors.forEach((value, key) => response.headers.set(key, value));
      return response;
    },
    close(reason) {
      sessions.closeAll(String(reason));
    },
  };
}
