/**
 * What the Streamable HTTP endpoint can be told, and what it needs from the
 * server it serves.
 *
 * @module
 */

import type { AuthGrant } from "../call/context.ts";
import type { Mask } from "../call/mask.ts";
import type { DispatchSession } from "../dispatcher/dispatcher.ts";
import type { JsonRpcId, JsonRpcMessage, JsonRpcResponse } from "../jsonrpc/messages.ts";
import type { EventStore } from "./event_store.ts";
import type { HeaderParam } from "./modern_headers.ts";
import type { CorsOptions } from "./security.ts";

/**
 * Options of the Streamable HTTP endpoint (`createServer({ http })`).
 *
 * @example An endpoint behind a proxy, for callers with an API key
 * ```ts
 * import { createServer, type HttpOptions } from "@warden/mcp";
 * const keys = new Map([["k-3f9a", "support"], ["k-77c1", "billing"]]);
 * const http: HttpOptions = {
 *   path: "/mcp",
 *   allowedHosts: ["desk.example.com"],
 *   authenticate: (request) => {
 *     const key = request.headers.get("authorization")?.replace(/^Bearer /, "");
 *     return key === undefined ? null : keys.get(key) ?? null;
 *   },
 *   maxBodyBytes: 1_048_576,
 *   sessionIdleMs: 10 * 60_000,
 * };
 * const server = createServer({ name: "desk", version: "1.0.0", http });
 * ```
 */
export interface HttpOptions {
  /**
   * The endpoint's path; requests to other paths are 404. Unset, the
   * handler answers on whatever path it is mounted at (`serveHttp()` serves
   * it at `/mcp`).
   */
  path?: string;
  /**
   * Host header values accepted (any port), against DNS rebinding; `false`
   * turns the check off (behind a proxy that checks it).
   * @default {["localhost", "127.0.0.1", "[::1]"]}
   */
  allowedHosts?: readonly string[] | false;
  /**
   * Browser origins accepted. Requests without an Origin header (non-browser
   * clients) are always accepted.
   * @default {local origins on any port}
   */
  allowedOrigins?: readonly string[];
  /** CORS for browser clients; off by default. */
  cors?: CorsOptions;
  /**
   * The largest request body accepted, in bytes (413 above it).
   * @default {4194304}
   */
  maxBodyBytes?: number;
  /**
   * The longest a POST body may take to arrive, in ms; a body that stalls
   * past it is answered 408 and its connection closed, so slow clients cannot
   * pin connections. One timer per endpoint checks every body, so the answer
   * may come up to an eighth of this (at most a second) late.
   * @default {30000}
   */
  bodyTimeoutMs?: number;
  /**
   * Authenticates each request. Return the principal (the guardrails decide
   * about it), `undefined` for an anonymous caller, or `null` to refuse with
   * 401 and a `WWW-Authenticate` header.
   */
  authenticate?: (
    request: Request,
  ) => string | null | undefined | Promise<string | null | undefined>;
  /**
   * OAuth 2.1 resource server, from `oauthResourceServer()`
   * (`@warden/mcp/http`): the endpoint then serves the Protected Resource
   * Metadata at its well-known paths, lets through only requests whose
   * access token it proves (401 or 503 otherwise, with the challenge), and
   * answers 403 `insufficient_scope` to a call whose item needs scopes the
   * token lacks. The token's principal is the session's; `authenticate`
   * must then be unset.
   */
  auth?: {
    /** The Protected Resource Metadata (RFC 9728); `resource` is the canonical resource URI. */
    readonly metadata: Readonly<Record<string, unknown>> & { readonly resource: string };
    /**
     * The principal and scopes a request's access token grants, or the
     * refusal to send. Never throws; `log` takes one line per failure of
     * the authorization server.
     */
    authenticate(
      request: Request,
      log: (message: string) => void,
    ): Promise<
      {
        readonly principal: string;
        readonly grant: {
          readonly scopes: readonly string[];
          readonly claims: Readonly<Record<string, unknown>>;
        };
      } | Response
    >;
    /** The 403 refusal of a request whose `items` need scopes not in `scopes`, or undefined. */
    authorize(
      items: readonly { readonly kind: "tool" | "resource" | "prompt"; readonly name: string }[],
      scopes: readonly string[],
    ): Response | undefined;
    /** Whether `scopes` let a caller see an item in a list. */
    visible(kind: "tool" | "resource" | "prompt", name: string, scopes: readonly string[]): boolean;
  };
  /**
   * The `WWW-Authenticate` value sent with a 401.
   * @default {'Bearer realm="mcp"'}
   */
  wwwAuthenticate?: string;
  /**
   * No sessions: every POST is handled on its own (for horizontally scaled
   * deployments). GET and DELETE are then 405, and requests to the client
   * (sampling, elicitation, roots) cannot be answered.
   * @default {false}
   */
  stateless?: boolean;
  /**
   * A session nobody used for this long is ended (404 afterwards).
   * @default {1800000} (30 minutes)
   */
  sessionIdleMs?: number;
  /**
   * The most live sessions; at the cap an idle one is ended to make room, or
   * the new session is refused with 503.
   * @default {1000}
   */
  maxSessions?: number;
  /** Where SSE events wait for resumption. @default {new MemoryEventStore()} */
  eventStore?: EventStore;
  /**
   * The reconnection delay a stream's priming event suggests, in ms.
   * @default {1000}
   */
  retryMs?: number;
  /**
   * Keep-alive comments on idle standalone streams, in ms (0: none).
   * @default {25000}
   */
  keepAliveMs?: number;
  /** The clock, in ms; for tests. @default {Date.now} */
  now?: () => number;
}

/** The protocol session an HTTP session carries: what the transport reads and sets on it. */
export interface HttpProtocolSession extends DispatchSession {
  /** The negotiated revision; set by the transport for sessionless requests. */
  protocolVersion: string | undefined;
  /**
   * What the access token of the request about to be dispatched grants; set
   * by the transport under OAuth just before it dispatches (each request
   * keeps its own).
   */
  auth: AuthGrant | undefined;
  /** Connects the session's outbound side (`related`: the request a message belongs to). */
  attach(send: (message: JsonRpcMessage, related?: JsonRpcId) => void): void;
  /** Disconnects it; pending requests to the client fail. */
  detach(): void;
  /** Lets the transport take a handler's request to end its stream early. */
  onCloseStream(handler: ((id: JsonRpcId) => void) | undefined): void;
}

/** What the endpoint needs from the server; the transport knows nothing else of it. */
export interface HttpHost<S extends HttpProtocolSession> {
  /**
   * Dispatches one parsed message (or batch) on `session`: the reply itself
   * when every handler answered synchronously, else a promise of it. Never
   * rejects.
   */
  readonly dispatcher: {
    dispatch(
      value: unknown,
      session: S,
    ):
      | JsonRpcResponse
      | JsonRpcResponse[]
      | undefined
      | Promise<
        JsonRpcResponse | JsonRpcResponse[] | undefined
      >;
  };
  /** A new protocol session for `principal`. */
  newSession(principal: string | undefined): S;
  /** Counts a session as live (list_changed, resource updates, close()); returns its release. */
  track(session: S, close: () => void): () => void;
  /** The revisions served through `initialize` and sessions. */
  readonly legacyVersions: readonly string[];
  /** Whether sessionless revision 2026-07-28 requests are served at all. */
  readonly modern: boolean;
  /** The notifications revision 2026-07-28 defines; any other is 404 over HTTP. */
  readonly modernNotifications: ReadonlySet<string>;
  /**
   * The methods the server implements in revision 2026-07-28, extensions in
   * use included; any other is 404 over HTTP.
   */
  readonly modernMethods: { has(method: string): boolean };
  /** The server's masker: what the endpoint writes of a request (a header, a version) passes it. */
  readonly mask: Mask;
  /**
   * Records a request the endpoint refused before dispatch (headers that
   * disagree with its body, a revision header not served): the audit log
   * gets its entry, with the code the client is sent. An authorization
   * refusal gives `record`: its outcome, and its facts in place of the
   * arguments. Never rejects.
   */
  refused(
    message: Readonly<Record<string, unknown>>,
    principal: string | undefined,
    error: { readonly code: number; readonly message: string },
    era: "legacy" | "modern",
    record?: {
      readonly status: "denied" | "invalid" | "internal_error";
      readonly facts: Readonly<Record<string, unknown>>;
    },
  ): Promise<void>;
  /** The parameters a tool mirrors into `Mcp-Param-*` headers; undefined for no such tool. */
  headerParams(tool: string): readonly HeaderParam[] | undefined;
  /** Diagnostics. */
  readonly log: (message: string) => void;
}
