/**
 * Protocol revisions, version negotiation and the session state the
 * `initialize` handshake fills in.
 *
 * @module
 */

import { InflightTable } from "../dispatcher/inflight.ts";
import type { DispatchSession } from "../dispatcher/dispatcher.ts";

/**
 * The MCP revisions Warden speaks, newest first.
 *
 * @example Offering the newest
 * ```ts
 * import { SUPPORTED_PROTOCOL_VERSIONS } from "@warden/mcp";
 * const newest = SUPPORTED_PROTOCOL_VERSIONS[0]; // "2025-06-18"
 * ```
 */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = Object.freeze([
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
]);

/** The newest revision: the answer to a client that offers one we don't speak. */
export const LATEST_PROTOCOL_VERSION = "2025-06-18";

/** The revision in which JSON-RPC batches exist. */
const BATCH_REVISION = "2025-03-26";

/** Name and version of a client or server, as sent in `initialize`. */
export interface Implementation {
  /** Programmatic name. */
  name: string;
  /** Version string. */
  version: string;
  /** Human-readable name. */
  title?: string;
}

/** The client's offer echoed when we speak it, else our newest; the client decides. */
export function negotiateVersion(offered: string): string {
  return SUPPORTED_PROTOCOL_VERSIONS.includes(offered) ? offered : LATEST_PROTOCOL_VERSION;
}

/** State of one client connection: what it told us at `initialize`, and what is in flight. */
export class McpSession implements DispatchSession {
  /** Requests being handled. */
  readonly inflight: InflightTable = new InflightTable();
  /** The configured principal the guardrails decide about (never taken from the client). */
  readonly principal: string | undefined;
  /** Negotiated revision; undefined before `initialize`. */
  protocolVersion: string | undefined;
  /** The client's `clientInfo`, when it sent a well-formed one. */
  clientInfo: Implementation | undefined;
  /** The client's declared capabilities. */
  clientCapabilities: Readonly<Record<string, unknown>> = {};

  constructor(principal: string | undefined) {
    this.principal = principal;
  }

  /** Batches are a 2025-03-26 feature only. */
  allowsBatches(): boolean {
    return this.protocolVersion === BATCH_REVISION;
  }
}
