/**
 * One sessionless POST (stateless mode, or revision 2026-07-28) from its
 * parsed body to its answer, without an `HttpSession`, a session table
 * entry, a stream or a timer unless the call needs one: the protocol session
 * lives for the request only, what is sent for the request before its reply
 * turns the answer into an SSE stream, and anything else has nowhere to go
 * (a sessionless client has no GET stream) and is dropped.
 *
 * @module
 */

import type { JsonRpcId, JsonRpcMessage, JsonRpcResponse } from "../jsonrpc/messages.ts";
import type { Endpoint } from "./endpoint.ts";
import type { HttpProtocolSession } from "./options.ts";
import { sseResponse } from "./responses.ts";
import { eventData, SseWriter } from "./sse.ts";

/** What the dispatcher answers a message (or batch) with. */
export type Reply = JsonRpcResponse | JsonRpcResponse[] | undefined;

/** The HTTP status of a plain reply (`reply` undefined for a batch). */
export type SessionlessStatus = (reply: JsonRpcResponse | undefined) => number;

/** How one sessionless request is answered. */
export interface SessionlessRequest {
  /** The parsed body. */
  readonly value: unknown;
  /** The ids of the requests in it; empty for notifications only. */
  readonly ids: readonly JsonRpcId[];
  /** Whether the client accepts an SSE stream. */
  readonly sseOk: boolean;
  /** The status of a plain reply. */
  readonly statusOf: SessionlessStatus;
  /** Keep-alive comments on the stream, in ms; 0 for none. */
  readonly keepAliveMs: number;
}

function isThenable<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | undefined)?.then === "function";
}

/**
 * The way back of one request: undecided until the reply or the first
 * message for the request, then plain JSON or a stream.
 */
class Exchange {
  #early: string[] | undefined;
  #writer: SseWriter | undefined;
  #done = false;
  /** Called once, when the first message for the request arrives before its reply. */
  onFirst: (() => void) | undefined;

  constructor(
    readonly session: HttpProtocolSession,
    readonly ids: readonly JsonRpcId[],
    readonly sseOk: boolean,
  ) {}

  /** Whether the answer has become (or must become) a stream. */
  get streaming(): boolean {
    return this.#early !== undefined || this.#writer !== undefined;
  }

  /** The session's outbound side: only messages for this request's ids have a way to go. */
  send(message: JsonRpcMessage, related: JsonRpcId | undefined): void {
    if (this.#done || !this.sseOk || related === undefined || !this.ids.includes(related)) return;
    const data = eventData(message);
    if (this.#writer !== undefined) {
      this.#writer.send({ data });
      return;
    }
    const first = this.#early === undefined;
    (this.#early ??= []).push(data);
    if (first) this.onFirst?.();
  }

  /** Turns the answer into a stream: what waited is sent first. */
  startStream(keepAliveMs: number): SseWriter {
    const writer = new SseWriter(() => {
      // Nothing to resume on without a session: a stream the client closes is the request cancelled.
      if (this.#done) return;
      for (const id of this.ids) {
        this.session.inflight.cancel(id, new Error("The client closed the response stream"));
      }
    }, keepAliveMs);
    this.#writer = writer;
    for (const data of this.#early ?? []) writer.send({ data });
    this.#early = undefined;
    return writer;
  }

  /** Sends the final reply on the stream (none for a cancelled request) and ends it. */
  finish(reply: Reply): void {
    this.#done = true;
    if (reply !== undefined) this.#writer?.send({ data: JSON.stringify(reply) });
    this.#writer?.close();
  }
}

/**
 * Dispatches `request` on a protocol session of its own and answers it: as
 * plain JSON when the reply comes first (without a promise when every
 * handler answered synchronously), as an SSE stream when a message for the
 * request comes first. The session counts as live (so `close()` aborts it)
 * only while the call is asynchronous.
 */
export function answerSessionless<S extends HttpProtocolSession>(
  endpoint: Endpoint<S>,
  session: S,
  request: SessionlessRequest,
): Response | Promise<Response> {
  const exchange = new Exchange(session, request.ids, request.sseOk);
  session.attach((message, related) => exchange.send(message, related));
  let replying: Reply | Promise<Reply>;
  try {
    replying = endpoint.host.dispatcher.dispatch(request.value, session);
  } catch (error) {
    session.detach();
    throw error;
  }
  if (!isThenable(replying)) {
    if (!exchange.streaming) {
      session.detach();
      return plainReply(replying, request.statusOf);
    }
    // Messages went out before a synchronous reply: they and the reply travel as a stream.
    const writer = exchange.startStream(0);
    exchange.finish(replying);
    session.detach();
    return sseResponse(writer.body, new Headers());
  }
  return answerLater(endpoint, session, exchange, replying, request);
}

/** The asynchronous half: the session is live until the reply (or its stream) is done. */
function answerLater<S extends HttpProtocolSession>(
  endpoint: Endpoint<S>,
  session: S,
  exchange: Exchange,
  replying: Promise<Reply>,
  request: SessionlessRequest,
): Promise<Response> {
  const release = endpoint.host.track(session, () => {
    if (session.inflight.size > 0) {
      session.inflight.abortAll(new Error("The server is shutting down"));
    }
  });
  const end = (): void => {
    session.detach();
    release();
  };
  return new Promise<Response>((resolve) => {
    const stream = (): void => {
      const writer = exchange.startStream(request.keepAliveMs);
      resolve(sseResponse(writer.body, new Headers()));
    };
    if (exchange.streaming) stream();
    else exchange.onFirst = stream;
    // The dispatcher never rejects: every failure is a reply.
    void replying.then((reply) => {
      exchange.onFirst = undefined;
      if (exchange.streaming) {
        exchange.finish(reply);
      } else {
        resolve(plainReply(reply, request.statusOf));
      }
      end();
    });
  });
}

/** The reply as JSON with the status `statusOf` picks, or 202 when there is none. */
function plainReply(reply: Reply, statusOf: SessionlessStatus): Response {
  if (reply === undefined) return new Response(null, { status: 202 });
  const status = statusOf(Array.isArray(reply) ? undefined : reply);
  return new Response(JSON.stringify(reply), {
    status,
    headers: { "content-type": "application/json" },
  });
}
