/**
 * The context every handler receives next to its arguments.
 *
 * @module
 */

import type { JsonRpcId } from "../jsonrpc/messages.ts";
import type { Implementation } from "./lifecycle.ts";

/** What the server knows about the client on this session. */
export interface ClientDescription {
  /** The client's `clientInfo`, when it sent one. */
  readonly info: Implementation | undefined;
  /** The client's declared capabilities. */
  readonly capabilities: Readonly<Record<string, unknown>>;
  /** The negotiated protocol revision. */
  readonly protocolVersion: string;
}

/**
 * The context of one request, given to tool handlers, resource readers and
 * prompt getters.
 *
 * @example Stopping work when the client cancels
 * ```ts
 * import type { RequestContext } from "@warden/mcp";
 * async function slow(ctx: RequestContext): Promise<string> {
 *   for (let i = 0; i < 100; i++) {
 *     ctx.signal.throwIfAborted();
 *     await new Promise((r) => setTimeout(r, 10));
 *   }
 *   return "done";
 * }
 * ```
 */
export interface RequestContext {
  /** Aborted on `notifications/cancelled` for this request and on shutdown. */
  readonly signal: AbortSignal;
  /** The JSON-RPC id of the request. */
  readonly requestId: JsonRpcId;
  /** The client on the other end. */
  readonly client: ClientDescription;
  /** The configured principal of this session, if any. */
  readonly principal: string | undefined;
  /** The request's `_meta`, as sent. */
  readonly _meta: Readonly<Record<string, unknown>> | undefined;
  /** `_meta.progressToken`, when the client asked for progress. */
  readonly progressToken: string | number | undefined;
}
