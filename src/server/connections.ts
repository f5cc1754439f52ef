/**
 * How clients reach one server: a connection over a transport (stdio, a
 * memory pair), each a live session until it ends, and the Streamable HTTP
 * endpoint, loaded on first use. Both are refused once the server closes.
 *
 * @module
 */

import { runConnection } from "../dispatcher/connection.ts";
import type { Dispatcher } from "../dispatcher/dispatcher.ts";
import { LEGACY_PROTOCOL_VERSIONS } from "../core/lifecycle.ts";
import { McpSession } from "../core/session.ts";
import type { SubscriptionHub } from "../eras/modern/subscriptions.ts";
import type { createHttpHandler } from "../http/handler.ts";
import type { HttpHost, HttpOptions } from "../http/options.ts";
import type { Transport } from "../transports/transport.ts";
import type { LiveSessions } from "./live_sessions.ts";
import type { RefusalDeps } from "./refusals.ts";
import type { ResolvedOptions } from "./options.ts";
import type { ConnectOptions } from "./types.ts";

/** The client notifications revision 2026-07-28 keeps (the rest were removed with sessions). */
const MODERN_NOTIFICATIONS: ReadonlySet<string> = new Set(["notifications/cancelled"]);

type HttpHandler = ReturnType<typeof createHttpHandler>;

/** What connections and the HTTP endpoint are served with. */
export interface ConnectionsDeps {
  /** Routes every message to its era. */
  readonly dispatcher: Dispatcher<McpSession>;
  /** The live sessions a connection or HTTP session joins. */
  readonly live: LiveSessions;
  /** The modern era's subscriptions (a connection's end ends its own). */
  readonly subscriptions: SubscriptionHub;
  /**
   * The server's settings: the principal of a session that names none, how
   * long it waits for the client's answers, its grace period, its eras.
   */
  readonly resolved: ResolvedOptions;
  /** The HTTP endpoint's options. */
  readonly http: HttpOptions | undefined;
  /** The parameters a tool mirrors into `Mcp-Param-*` headers. */
  readonly headerParams: HttpHost<McpSession>["headerParams"];
  /** Whether the server implements `method` in revision 2026-07-28 now (extensions in use count). */
  readonly modernMethods: HttpHost<McpSession>["modernMethods"];
  /** Diagnostics. */
  readonly log: (message: string) => void;
  /** What the endpoint's refusals are masked and audited with. */
  readonly refusals: RefusalDeps;
}

/** The ways into one server. */
export class Connections {
  readonly #deps: ConnectionsDeps;
  #closed = false;
  #http: Promise<HttpHandler> | undefined;
  #handler: HttpHandler | undefined;

  constructor(deps: ConnectionsDeps) {
    this.#deps = deps;
  }

  /** How long in-flight calls may finish once a session or listener shuts down. */
  get shutdownGraceMs(): number {
    return this.#deps.resolved.shutdownGraceMs;
  }

  /** A new protocol session, for `principal` or the server's. */
  newSession(principal: string | undefined): McpSession {
    const { resolved } = this.#deps;
    return new McpSession(principal ?? resolved.principal, resolved.requestTimeoutMs);
  }

  /** Refuses every later connection and HTTP request. */
  close(): void {
    this.#closed = true;
  }

  /** Answers one HTTP request (503 once closed). */
  fetch(request: Request): Promise<Response> {
    if (this.#closed) return Promise.resolve(new Response("Service unavailable", { status: 503 }));
    // Once loaded, a request goes straight to the endpoint, with no await on the way.
    if (this.#handler !== undefined) return this.#handler.fetch(request);
    // Loaded on first use: a stdio server never pays for the HTTP code at start-up.
    this.#http ??= this.#openHttp().then((handler) => (this.#handler = handler));
    return this.#http.then((handler) => handler.fetch(request));
  }

  /** The HTTP endpoint over this server, with the code only it needs. */
  async #openHttp(): Promise<HttpHandler> {
    const [{ createHttpHandler }, { refusalRecorder }] = await Promise.all([
      import("../http/handler.ts"),
      import("./refusals.ts"),
    ]);
    const deps = this.#deps;
    return createHttpHandler({
      dispatcher: deps.dispatcher,
      newSession: (principal) => this.newSession(principal),
      track: (session, close) => deps.live.track(session, close),
      log: deps.log,
      legacyVersions: LEGACY_PROTOCOL_VERSIONS,
      modern: deps.resolved.modern,
      modernNotifications: MODERN_NOTIFICATIONS,
      modernMethods: deps.modernMethods,
      mask: deps.refusals.mask,
      refused: refusalRecorder(deps.refusals),
      headerParams: deps.headerParams,
    }, deps.http);
  }

  /** Serves one session over `transport`; resolves when it has ended. */
  async connect(transport: Transport, options: ConnectOptions = {}): Promise<void> {
    if (this.#closed) {
      // Release the transport (and the console redirect a stdio transport holds).
      await transport.writable.abort(new Error("The server is closed")).catch(() => {});
      throw new Error("Cannot connect: the server is closed");
    }
    const { dispatcher, live, subscriptions } = this.#deps;
    const session = this.newSession(options.principal);
    const stop = new AbortController();
    const done = runConnection(transport, dispatcher, session, {
      log: this.#deps.log,
      shutdownGraceMs: this.#deps.resolved.shutdownGraceMs,
      signal: stop.signal,
      onOpen: (send) => session.attach(send),
      onInputEnd: () => subscriptions.endFor(session),
    });
    const entry = { session, close: () => stop.abort(), done };
    live.add(entry);
    try {
      await done;
    } finally {
      session.detach();
      live.delete(entry);
    }
  }
}
