/**
 * The JSON-RPC dispatcher: a method table, concurrency-safe request
 * tracking, cancellation, batches, and the rule that every failure becomes a
 * well-formed reply. It knows JSON-RPC, not MCP: the server layer fills the
 * method table.
 *
 * @module
 */

import { ErrorCode, quote, RpcError } from "../jsonrpc/errors.ts";
import { isMasked, type Mask } from "../call/mask.ts";
import {
  classifyMessage,
  type JsonRpcFailure,
  type JsonRpcId,
  type JsonRpcNotification,
  type JsonRpcParams,
  type JsonRpcResponse,
} from "../jsonrpc/messages.ts";
import type { InflightRequest, InflightTable } from "./inflight.ts";

/** What the dispatcher needs from a session. */
export interface DispatchSession {
  /** The session's in-flight requests. */
  readonly inflight: InflightTable;
  /** Whether a JSON array of messages is accepted (revision 2025-03-26 only). */
  allowsBatches(): boolean;
  /** Called with replies to requests this side sent (server → client). */
  onResponse?(response: JsonRpcResponse): void;
}

/** Everything a method handler learns about its request. */
export interface MethodContext<S extends DispatchSession> {
  /** The request id. */
  readonly id: JsonRpcId;
  /** The session it arrived on. */
  readonly session: S;
  /** The in-flight entry: its signal aborts on cancellation or shutdown. */
  readonly request: InflightRequest;
}

/** Answers one request; throw `RpcError` for a protocol error. */
export type MethodHandler<S extends DispatchSession> = (
  params: JsonRpcParams,
  context: MethodContext<S>,
) => Promise<Record<string, unknown>> | Record<string, unknown>;

/** Reacts to one notification; its errors are logged, never answered. */
export type NotificationHandler<S extends DispatchSession> = (
  params: JsonRpcParams,
  session: S,
) => void;

/** What a dispatcher is built from. */
export interface DispatcherOptions<S extends DispatchSession> {
  /** Request handlers by method name. */
  methods: ReadonlyMap<string, MethodHandler<S>>;
  /** Notification handlers by method name; unknown notifications are ignored. */
  notifications: ReadonlyMap<string, NotificationHandler<S>>;
  /** Where diagnostics go (stderr in practice). */
  log: (message: string) => void;
  /**
   * The server's masker, the last step of every reply: it masks each error's
   * message and data (unless a masking step did already) and each result's
   * `_meta`, which no other step does. Absent when nothing masks.
   */
  mask?: Mask | undefined;
}

const EMPTY_PARAMS: JsonRpcParams = Object.freeze({});

function failure(
  id: JsonRpcId | null,
  code: number,
  message: string,
  data?: unknown,
): JsonRpcFailure {
  return data === undefined
    ? { jsonrpc: "2.0", id, error: { code, message } }
    : { jsonrpc: "2.0", id, error: { code, message, data } };
}

/**
 * The reply to an exception thrown while answering `method`; an `RpcError`'s
 * message and data pass `mask` unless a masking step marked it already.
 */
export function errorReply(
  id: JsonRpcId | null,
  error: unknown,
  method: string,
  log: (message: string) => void,
  mask?: Mask,
): JsonRpcFailure {
  if (error instanceof RpcError) {
    if (mask === undefined || isMasked(error)) {
      return failure(id, error.code, error.message, error.data);
    }
    const data = error.data === undefined ? undefined : mask(error.data);
    return failure(id, error.code, mask(error.message), data);
  }
  // Internals stay on stderr: the client learns only that it was our fault.
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  log(`warden: internal error in ${quote(method)}: ${detail}`);
  return failure(id, ErrorCode.InternalError, "Internal error");
}

/** What a message gets back: a reply, replies to a batch, or nothing. */
export type DispatchReply = JsonRpcResponse | JsonRpcResponse[] | undefined;

/** True for a promise or any other thenable a handler may return. */
function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof value === "object" && value !== null && "then" in value &&
    typeof value.then === "function";
}

function noneThenable<T>(values: readonly (T | PromiseLike<T>)[]): values is readonly T[] {
  return !values.some(isThenable);
}

/**
 * Routes parsed JSON values to handlers. Requests run concurrently: nothing
 * waits for an earlier one. A handler that answers synchronously is answered
 * synchronously ({@linkcode Dispatcher.dispatch}), so a session can reply to
 * a whole chunk of such requests without a promise per message.
 */
export class Dispatcher<S extends DispatchSession> {
  readonly #methods: ReadonlyMap<string, MethodHandler<S>>;
  readonly #notifications: ReadonlyMap<string, NotificationHandler<S>>;
  readonly #log: (message: string) => void;
  readonly #mask: Mask | undefined;

  constructor(options: DispatcherOptions<S>) {
    this.#methods = options.methods;
    this.#notifications = options.notifications;
    this.#log = options.log;
    this.#mask = options.mask;
  }

  /**
   * Handles one parsed message or batch. Resolves to the reply to send, or
   * undefined when none is due (notifications, responses, cancelled calls).
   * Never rejects.
   */
  handle(value: unknown, session: S): Promise<DispatchReply> {
    return Promise.resolve(this.dispatch(value, session));
  }

  /**
   * Like {@linkcode Dispatcher.handle}, but returns the reply itself when
   * every handler involved answered synchronously, and a promise (that never
   * rejects) only when one returned a promise.
   */
  dispatch(value: unknown, session: S): DispatchReply | Promise<DispatchReply> {
    if (!Array.isArray(value)) return this.#handleOne(value, session);
    if (!session.allowsBatches()) {
      return failure(
        null,
        ErrorCode.InvalidRequest,
        "Invalid request: batches are not supported in this protocol version",
      );
    }
    if (value.length === 0) {
      return failure(null, ErrorCode.InvalidRequest, "Invalid request: empty batch");
    }
    const replies = value.map((item) =>
      Array.isArray(item)
        ? failure(null, ErrorCode.InvalidRequest, "Invalid request: nested batch")
        : this.#handleOne(item, session)
    );
    const collect = (settled: readonly (JsonRpcResponse | undefined)[]): DispatchReply => {
      const sent = settled.filter((reply) => reply !== undefined);
      return sent.length === 0 ? undefined : sent;
    };
    return noneThenable(replies) ? collect(replies) : Promise.all(replies).then(collect);
  }

  #handleOne(
    value: unknown,
    session: S,
  ): JsonRpcResponse | undefined | Promise<JsonRpcResponse | undefined> {
    const classified = classifyMessage(value);
    switch (classified.kind) {
      case "invalid":
        // The reasons are fixed texts: nothing of the message is echoed.
        return failure(classified.id, ErrorCode.InvalidRequest, classified.reason);
      case "notification":
        this.#notify(classified.message, session);
        return undefined;
      case "response":
        session.onResponse?.(classified.message);
        return undefined;
    }
    const { id, method } = classified.message;
    const handler = this.#methods.get(method);
    if (handler === undefined) {
      // Masked before it is cut short, so a cut cannot hide a secret from the mask.
      const name = this.#mask === undefined ? method : this.#mask(method);
      return failure(id, ErrorCode.MethodNotFound, `Method not found: ${quote(name)}`);
    }
    const { inflight } = session;
    if (inflight.has(id)) {
      return failure(id, ErrorCode.InvalidRequest, "Invalid request: id is already in use");
    }
    // Entered in the table only if it waits: a request answered synchronously cannot be
    // cancelled while it runs, and entering and removing it would cost more than its answer.
    const request = inflight.create();
    const mark = inflight.mark;
    let result: ReturnType<MethodHandler<S>>;
    try {
      result = handler(classified.message.params ?? EMPTY_PARAMS, { id, session, request });
    } catch (error) {
      return this.#failed(id, method, request, session, error);
    }
    if (!isThenable(result)) return this.#answered(id, request, session, result);
    inflight.track(id, request, mark);
    return result.then(
      (value) => this.#answered(id, request, session, value),
      (error: unknown) => this.#failed(id, method, request, session, error),
    );
  }

  #answered(
    id: JsonRpcId,
    request: InflightRequest,
    session: S,
    result: Record<string, unknown>,
  ): JsonRpcResponse | undefined {
    session.inflight.end(id, request);
    if (request.cancelledByClient) return undefined;
    const meta = result._meta;
    // No step masks a result's `_meta` (results are masked by kind, leaving protocol fields).
    // A mask returns what it was given when nothing needs masking: then the result is sent as is.
    const masked = this.#mask === undefined || meta === undefined ? meta : this.#mask(meta);
    if (masked === meta) return { jsonrpc: "2.0", id, result };
    return { jsonrpc: "2.0", id, result: { ...result, _meta: masked } };
  }

  #failed(
    id: JsonRpcId,
    method: string,
    request: InflightRequest,
    session: S,
    error: unknown,
  ): JsonRpcResponse | undefined {
    session.inflight.end(id, request);
    if (request.cancelledByClient) return undefined;
    return errorReply(id, error, method, this.#log, this.#mask);
  }

  #notify(message: JsonRpcNotification, session: S): void {
    const handler = this.#notifications.get(message.method);
    if (handler === undefined) return;
    try {
      handler(message.params ?? EMPTY_PARAMS, session);
    } catch (error) {
      const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
      this.#log(`warden: notification ${quote(message.method)} failed: ${detail}`);
    }
  }
}
