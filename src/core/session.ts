/**
 * One client connection's state, and its way back to the client: server →
 * client notifications and requests with their own id space, correlation of
 * replies, timeouts and cancellation.
 *
 * @module
 */

import type { AuthGrant } from "../call/context.ts";
import { type InflightRequest, InflightTable } from "../dispatcher/inflight.ts";
import type { DispatchSession } from "../dispatcher/dispatcher.ts";
import type { JsonRpcId, JsonRpcMessage, JsonRpcResponse } from "../jsonrpc/messages.ts";
import type { Implementation } from "./lifecycle.ts";
import type { LoggingLevel } from "./logging.ts";

/** Options of one server → client request. */
export interface OutboundRequestOptions {
  /** Aborting it cancels the request (the client is sent `notifications/cancelled`). */
  signal?: AbortSignal;
  /** The client request this one is made on behalf of. */
  related?: JsonRpcId;
  /** How long to wait for the reply. */
  timeoutMs?: number;
}

/** Writes one message to the client; `related` is the client request it belongs to. */
export type SendFunction = (message: JsonRpcMessage, related?: JsonRpcId) => void;

/**
 * The client answered a server → client request with an error. It is not an
 * `RpcError` on purpose: thrown on from a tool it becomes an `isError`
 * result, so the client's own code (say -32601) never poses as the answer
 * to the tools/call itself.
 *
 * @example Telling a refusal from other failures
 * ```ts
 * import { ClientRequestError } from "@warden/mcp";
 * const error = new ClientRequestError("sampling/createMessage", -32601, "Method not found");
 * console.assert(error.code === -32601);
 * ```
 */
export class ClientRequestError extends Error {
  /** The JSON-RPC code the client answered with. */
  readonly code: number;
  /** The error's `data`, if any. */
  readonly data: unknown;
  /** The method the server had asked for. */
  readonly method: string;

  /**
   * Creates the error for one refused request.
   *
   * @param method The request the client refused.
   * @param code The client's error code.
   * @param message The client's error message.
   * @param data The client's error data.
   */
  constructor(method: string, code: number, message: string, data?: unknown) {
    super(`The client refused ${method}: ${message}`);
    this.name = "ClientRequestError";
    this.method = method;
    this.code = code;
    this.data = data;
  }
}

interface Pending {
  readonly method: string;
  readonly resolve: (result: Record<string, unknown>) => void;
  readonly reject: (error: unknown) => void;
  readonly cleanup: () => void;
}

/**
 * A session's in-flight table that tags each request, as the dispatcher
 * begins it, with the grant it was dispatched under: the request keeps its
 * own token's grant whatever later requests on the session bring.
 */
class GrantedInflight extends InflightTable {
  readonly #grants = new WeakMap<InflightRequest, AuthGrant>();
  readonly #current: () => AuthGrant | undefined;

  constructor(current: () => AuthGrant | undefined) {
    super();
    this.#current = current;
  }

  override create(): InflightRequest {
    const request = super.create();
    const grant = this.#current();
    // Only under OAuth: without a grant, nothing is kept per request.
    if (grant !== undefined) this.#grants.set(request, grant);
    return request;
  }

  grantOf(request: InflightRequest): AuthGrant | undefined {
    return this.#grants.get(request);
  }
}

/** State of one client connection. */
export class McpSession implements DispatchSession {
  readonly #inflight: GrantedInflight = new GrantedInflight(() => this.auth);
  /** Requests from the client being handled. */
  readonly inflight: InflightTable = this.#inflight;
  /** The configured principal the guardrails decide about (never taken from the client). */
  readonly principal: string | undefined;
  /** Negotiated revision; undefined before `initialize`. */
  protocolVersion: string | undefined;
  /** The client's `clientInfo`, when it sent a well-formed one. */
  clientInfo: Implementation | undefined;
  /** The client's declared capabilities. */
  clientCapabilities: Readonly<Record<string, unknown>> = {};
  /** Whether the client sent `notifications/initialized`; unsolicited notifications wait for it. */
  initialized = false;
  /** The minimum level of `notifications/message` the client wants. */
  logLevel: LoggingLevel = "info";
  /**
   * What the access token of the HTTP request being dispatched grants: set
   * by the transport just before it dispatches, and taken by each request
   * as it begins. Read a request's grant with `grantOf`, never this field,
   * which the session's next request changes. Undefined without OAuth.
   */
  auth: AuthGrant | undefined = undefined;
  /** Resource URIs the client subscribed to. */
  readonly subscriptions: Set<string> = new Set();
  readonly #defaultTimeoutMs: number;
  #send: SendFunction | undefined;
  #closeStream: ((id: JsonRpcId) => void) | undefined;
  #nextId = 1;
  readonly #pending = new Map<number, Pending>();

  /**
   * @param principal The session's principal.
   * @param defaultTimeoutMs How long server → client requests wait by default.
   */
  constructor(principal: string | undefined, defaultTimeoutMs = 60_000) {
    this.principal = principal;
    this.#defaultTimeoutMs = defaultTimeoutMs;
  }

  /** The grant `request` was dispatched under (its own token's); undefined without OAuth. */
  grantOf(request: InflightRequest): AuthGrant | undefined {
    return this.#inflight.grantOf(request);
  }

  /** Batches are a 2025-03-26 feature only. */
  allowsBatches(): boolean {
    return this.protocolVersion === "2025-03-26";
  }

  /** Whether the session can reach the client (it is connected to a transport). */
  get connected(): boolean {
    return this.#send !== undefined;
  }

  /** Connects the session's outbound side to a transport writer. */
  attach(send: SendFunction): void {
    this.#send = send;
  }

  /** Disconnects; pending requests to the client fail. */
  detach(): void {
    this.#send = undefined;
    // Most sessions end with nothing pending: no error (and its stack) to build then.
    if (this.#pending.size === 0) return;
    const closed = new Error("The session closed before the client replied");
    for (const pending of this.#pending.values()) {
      pending.cleanup();
      pending.reject(closed);
    }
    this.#pending.clear();
  }

  /**
   * Asks the transport to end the response stream of client request `id`
   * early (see `RequestContext.closeStream`); transports without streams
   * leave it unset.
   */
  closeStream(id: JsonRpcId): void {
    this.#closeStream?.(id);
  }

  /** Lets a streaming transport take `closeStream` requests. */
  onCloseStream(handler: ((id: JsonRpcId) => void) | undefined): void {
    this.#closeStream = handler;
  }

  /** Whether the client declared a capability (e.g. "sampling"). */
  hasCapability(name: string): boolean {
    const value = Object.hasOwn(this.clientCapabilities, name)
      ? this.clientCapabilities[name]
      : undefined;
    return typeof value === "object" && value !== null;
  }

  /**
   * Sends a notification; dropped when the session has no transport.
   * `related` names the client request it belongs to, for transports that
   * route by request (HTTP streams).
   */
  notify(method: string, params?: Record<string, unknown>, related?: JsonRpcId): void {
    this.#send?.(
      params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params },
      related,
    );
  }

  /**
   * Sends a request to the client and resolves to its result. Rejects with
   * `ClientRequestError` when the client answers with an error, and with an `Error` on
   * timeout, abort or disconnect; in the first two cases the client is told
   * with `notifications/cancelled`.
   */
  request(
    method: string,
    params: Record<string, unknown>,
    options: OutboundRequestOptions = {},
  ): Promise<Record<string, unknown>> {
    const send = this.#send;
    if (send === undefined) {
      return Promise.reject(new Error(`Cannot send ${method}: the session has no transport`));
    }
    const { signal } = options;
    if (signal?.aborted === true) return Promise.reject(signal.reason);
    const id = this.#nextId++;
    const timeoutMs = options.timeoutMs ?? this.#defaultTimeoutMs;
    return new Promise((resolve, reject) => {
      const cancel = (reason: string, error: unknown) => {
        if (!this.#pending.has(id)) return;
        this.#pending.get(id)?.cleanup();
        this.#pending.delete(id);
        this.notify("notifications/cancelled", { requestId: id, reason }, options.related);
        reject(error);
      };
      const timer = setTimeout(
        () =>
          cancel(
            "timeout",
            new Error(`The client did not answer ${method} within ${timeoutMs} ms`),
          ),
        timeoutMs,
      );
      const onAbort = () => cancel("The request was cancelled", signal?.reason);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#pending.set(id, {
        method,
        resolve,
        reject,
        cleanup: () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
        },
      });
      send({ jsonrpc: "2.0", id, method, params }, options.related);
    });
  }

  /** Routes the client's reply to the request it answers; unknown ids are ignored. */
  onResponse(response: JsonRpcResponse): void {
    if (typeof response.id !== "number") return;
    const pending = this.#pending.get(response.id);
    if (pending === undefined) return;
    this.#pending.delete(response.id);
    pending.cleanup();
    // Tested on the member itself: it narrows under any compiler options.
    if (response.error === undefined) {
      pending.resolve(response.result);
    } else {
      const { code, message, data } = response.error;
      pending.reject(new ClientRequestError(pending.method, code, message, data));
    }
  }
}
