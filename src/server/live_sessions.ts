/**
 * The live legacy sessions of one server: every session a client can be
 * reached on (stdio and memory connections, HTTP sessions), what reaches
 * them when a list or a resource changes, and what `close()` ends.
 *
 * @module
 */

import type { McpSession } from "../core/session.ts";
import type { ListName } from "../store/change_bus.ts";

/** One live session and how to end it. */
export interface LiveSession {
  /** The protocol session. */
  readonly session: McpSession;
  /** Ends its connection (or HTTP session). */
  readonly close: () => void;
  /** Settles once it has ended. */
  readonly done: Promise<void>;
}

/** The set of live sessions, and the notifications that go to all of them. */
export class LiveSessions {
  readonly #entries = new Set<LiveSession>();

  /** Counts `entry` as live until {@linkcode LiveSessions.delete}. */
  add(entry: LiveSession): void {
    this.#entries.add(entry);
  }

  /** Counts `entry` as ended. */
  delete(entry: LiveSession): void {
    this.#entries.delete(entry);
  }

  /**
   * Counts an HTTP session as live; the function returned releases it, and
   * settles its `done`.
   */
  track(session: McpSession, close: () => void): () => void {
    // Not Promise.withResolvers(): Node 20 has none, and HTTP sessions run there too.
    let settle!: () => void;
    const entry = { session, close, done: new Promise<void>((resolve) => (settle = resolve)) };
    this.#entries.add(entry);
    return () => {
      this.#entries.delete(entry);
      settle();
    };
  }

  /** The sessions live now, a copy that later changes do not affect. */
  snapshot(): LiveSession[] {
    return [...this.#entries];
  }

  /** Tells every initialized session that `list` changed. */
  listChanged(list: ListName): void {
    const method = `notifications/${list}/list_changed`;
    for (const { session } of this.#entries) {
      if (session.initialized) session.notify(method);
    }
  }

  /** Tells every session subscribed to `uri` whose principal may see it that it changed. */
  resourceUpdated(uri: string, visible: (principal: string | undefined) => boolean): void {
    for (const { session } of this.#entries) {
      if (session.subscriptions.has(uri) && visible(session.principal)) {
        session.notify("notifications/resources/updated", { uri });
      }
    }
  }
}
