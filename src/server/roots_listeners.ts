/**
 * The `onRootsListChanged` listeners of one server, and the view of a
 * legacy session they are given: what the client said about itself, its
 * principal, and a way to ask it for its roots.
 *
 * @module
 */

import { UNNEGOTIATED_PROTOCOL_VERSION } from "../core/lifecycle.ts";
import type { McpSession } from "../core/session.ts";
import { withClientRequests } from "../eras/legacy/ask_client.ts";
import type { ClientSession } from "./types.ts";

type RootsListener = (session: ClientSession) => void;

/** A legacy session as roots listeners see it. */
function clientSession(session: McpSession): ClientSession {
  return {
    client: {
      info: session.clientInfo,
      capabilities: session.clientCapabilities,
      protocolVersion: session.protocolVersion ?? UNNEGOTIATED_PROTOCOL_VERSION,
    },
    principal: session.principal,
    roots: (rootOptions = {}) => {
      const request: { timeoutMs?: number; signal?: AbortSignal } = {};
      if (rootOptions.timeoutMs !== undefined) request.timeoutMs = rootOptions.timeoutMs;
      if (rootOptions.signal !== undefined) request.signal = rootOptions.signal;
      return withClientRequests((asks) => asks.listRoots(session, request));
    },
  };
}

/** The listeners told when a client says its roots changed. */
export class RootsListeners {
  readonly #listeners = new Set<RootsListener>();
  readonly #log: (message: string) => void;

  constructor(log: (message: string) => void) {
    this.#log = log;
  }

  /** Adds `listener`; the function returned removes it (true if it was still there). */
  add(listener: RootsListener): () => boolean {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Tells every listener that `session`'s roots changed; a listener that throws is logged. */
  rootsChanged(session: McpSession): void {
    for (const listener of this.#listeners) {
      try {
        listener(clientSession(session));
      } catch (error) {
        this.#log(`warden: a roots listener failed: ${String(error)}`);
      }
    }
  }
}
