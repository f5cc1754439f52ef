/**
 * The legacy sessions of one Streamable HTTP endpoint: opening them under an
 * `Mcp-Session-Id`, finding them, ending them, and
 * keeping their number bounded (idle expiry, eviction of the oldest idle).
 *
 * @module
 */

import { HttpSession, type StreamSettings } from "./http_session.ts";
import type { HttpHost, HttpProtocolSession } from "./options.ts";

/** The longest the table goes between sweeps of every session, in ms. */
const SWEEP_EVERY_MS = 1000;

/** How many sessions live, and how long. */
export interface SessionLimits {
  /** A session nobody used for this long is ended, in ms. */
  readonly idleMs: number;
  /** The most live sessions. */
  readonly maxSessions: number;
  /** The clock, in ms. */
  readonly now: () => number;
}

/** An open session and what stops counting it as live. */
interface OpenSession {
  /** The session. */
  readonly http: HttpSession;
  /** Stops counting it as live. */
  readonly release: () => void;
}

/** The sessions of one endpoint, by `Mcp-Session-Id`. */
export class SessionTable<S extends HttpProtocolSession> {
  readonly #sessions = new Map<string, OpenSession>();
  readonly #host: HttpHost<S>;
  readonly #settings: StreamSettings;
  readonly #limits: SessionLimits;
  #nextSweep = Number.NEGATIVE_INFINITY;

  constructor(host: HttpHost<S>, settings: StreamSettings, limits: SessionLimits) {
    this.#host = host;
    this.#settings = settings;
    this.#limits = limits;
  }

  /** Opens a session for `principal` under a fresh id; it lives until ended or expired. */
  open(principal: string | undefined): HttpSession {
    const session = this.#host.newSession(principal);
    const id = crypto.randomUUID();
    const http = new HttpSession(id, session, this.#settings, principal);
    const release = this.#host.track(session, () => this.end(id, "The server is shutting down"));
    this.#sessions.set(id, { http, release });
    return http;
  }

  /** The live session under `id`: undefined when unknown, or expired (then it is ended). */
  get(id: string): HttpSession | undefined {
    this.#sweepSometimes();
    const entry = this.#sessions.get(id);
    if (entry === undefined) return undefined;
    if (this.#expired(entry.http, this.#limits.now())) {
      this.end(id, "The session expired");
      return undefined;
    }
    return entry.http;
  }

  /** Ends the session under `id`, if any. */
  end(id: string, reason: string): void {
    const entry = this.#sessions.get(id);
    if (entry === undefined) return;
    this.#sessions.delete(id);
    entry.http.close(() => new Error(reason));
    entry.release();
  }

  /** Ends every session. */
  closeAll(reason: string): void {
    for (const id of [...this.#sessions.keys()]) this.end(id, reason);
  }

  /**
   * Makes room for one more session: sweeps the expired, then ends the
   * least recently used idle one at the cap. False when all are busy.
   */
  makeRoom(): boolean {
    this.#sweepSometimes();
    if (this.#sessions.size < this.#limits.maxSessions) return true;
    // At the cap every expired session counts: sweep them all now.
    this.#sweep(this.#limits.now());
    if (this.#sessions.size < this.#limits.maxSessions) return true;
    let oldest: [string, HttpSession] | undefined;
    for (const [id, { http }] of this.#sessions) {
      if (!http.busy && (oldest === undefined || http.lastActive < oldest[1].lastActive)) {
        oldest = [id, http];
      }
    }
    if (oldest === undefined) return false;
    this.end(oldest[0], "The session was evicted to make room");
    return true;
  }

  #expired(http: HttpSession, now: number): boolean {
    return http.lastActive < now - this.#limits.idleMs && !http.busy;
  }

  /**
   * Sweeps the whole table at most once a second (or once per idle time, if
   * shorter): a request looks at its own session's expiry, and walking
   * every session on every request would make each one cost the table's size.
   */
  #sweepSometimes(): void {
    const now = this.#limits.now();
    if (now < this.#nextSweep) return;
    this.#nextSweep = now + Math.min(this.#limits.idleMs, SWEEP_EVERY_MS);
    this.#sweep(now);
  }

  #sweep(now: number): void {
    for (const [id, { http }] of this.#sessions) {
      if (this.#expired(http, now)) this.end(id, "The session expired");
    }
  }
}
