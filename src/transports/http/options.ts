/**
 * What the Streamable HTTP endpoint can be told, and what it needs from the
 * server it serves.
 *
 * @module
 */

import type { Dispatcher } from "../../dispatcher/dispatcher.ts";
import type { McpSession } from "../../server/session.ts";
import type { EventStore } from "./event_store.ts";
import type { CorsOptions } from "./security.ts";

/** Options of the Streamable HTTP endpoint (`createServer({ http })`). */
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
   * pin connections.
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

/** What the endpoint needs from the server. */
export interface HttpHost {
  /** The server's dispatcher. */
  readonly dispatcher: Dispatcher<McpSession>;
  /** A new protocol session for `principal`. */
  newSession(principal: string | undefined): McpSession;
  /** Counts a session as live (list_changed, resource updates, close()); returns its release. */
  track(session: McpSession, close: () => void): () => void;
  /** Diagnostics. */
  readonly log: (message: string) => void;
}
