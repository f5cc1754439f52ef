/**
 * How the endpoint answers: a POST's requests as plain JSON when the reply
 * comes first, as an SSE stream as soon as anything else is sent for them;
 * a session's GET as its standalone stream or a resumed one.
 *
 * @module
 */

import { ErrorCode } from "../jsonrpc/errors.ts";
import type { JsonRpcId, JsonRpcResponse } from "../jsonrpc/messages.ts";
import { type Endpoint, protocolOf } from "./endpoint.ts";
import type { HttpSession, PostRoute } from "./http_session.ts";
import type { HttpProtocolSession } from "./options.ts";
import { accepts } from "./requests.ts";
import { rpcError, sseResponse } from "./responses.ts";

/** What the dispatcher answers a message (or batch) with. */
type Reply = JsonRpcResponse | JsonRpcResponse[] | undefined;

/**
 * Picks the HTTP status of a plain reply (`reply` is undefined for a batch
 * or no reply); it may also adjust the session and `headers` first.
 */
export type ReplyStatus = <S extends HttpProtocolSession>(
  endpoint: Endpoint<S>,
  reply: JsonRpcResponse | undefined,
  http: HttpSession,
  headers: Headers,
) => number;

/**
 * Dispatches `value` (carrying the requests `ids`) on `http` and answers:
 * as plain JSON when the reply comes first, as an SSE stream as soon as
 * anything else is sent for the requests (only when `sseOk`). A reply that
 * is there at once needs no promise of its own.
 *
 * @param statusOf The status of a plain reply.
 */
export function respond<S extends HttpProtocolSession>(
  endpoint: Endpoint<S>,
  http: HttpSession,
  value: unknown,
  ids: readonly JsonRpcId[],
  sseOk: boolean,
  headers: Headers,
  statusOf: ReplyStatus,
): Response | Promise<Response> {
  const route = sseOk ? http.openRoute(ids) : undefined;
  const replying = endpoint.host.dispatcher.dispatch(value, protocolOf<S>(http));
  const answer = (reply: Reply): Response => {
    if (route !== undefined && route.streamWanted) {
      // Something was sent for the request before its reply: all of it travels as a stream.
      const writer = route.startStream();
      finish(route, reply);
      return sseResponse(writer.body, headers);
    }
    route?.finish(undefined);
    return plainReply(endpoint, http, reply, headers, statusOf);
  };
  if (!isThenable(replying)) return answer(replying);
  if (route === undefined) return replying.then(answer);
  return new Promise((resolve) => {
    const stream = (): void => {
      const writer = route.startStream();
      void replying.then((reply) => finish(route, reply));
      resolve(sseResponse(writer.body, headers));
    };
    if (route.streamWanted) {
      stream();
      return;
    }
    route.onStreamRequested = stream;
    // The dispatcher never rejects: every failure is a reply.
    void replying.then((reply) => {
      if (route.streamWanted) return;
      route.onStreamRequested = undefined;
      resolve(answer(reply));
    });
  });
}

function isThenable<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | undefined)?.then === "function";
}

/** Ends a streamed route with its reply. */
function finish(route: PostRoute, reply: Reply): void {
  route.finish(reply === undefined ? undefined : JSON.stringify(reply));
}

/** The reply as JSON with the status `statusOf` picks, or 202 when there is none. */
function plainReply<S extends HttpProtocolSession>(
  endpoint: Endpoint<S>,
  http: HttpSession,
  reply: Reply,
  headers: Headers,
  statusOf: ReplyStatus,
): Response {
  const single = Array.isArray(reply) ? undefined : reply;
  const status = statusOf(endpoint, single, http, headers);
  if (reply === undefined) return new Response(null, { status: 202, headers });
  headers.set("content-type", "application/json");
  return new Response(JSON.stringify(reply), { status, headers });
}

/**
 * A session's GET: with `Last-Event-ID` the stream it resumes (404 when
 * unknown), else its standalone stream (409 when one is open already).
 */
export function openGetStream(request: Request, http: HttpSession): Response {
  if (!accepts(request, "text/event-stream")) {
    return rpcError(
      406,
      ErrorCode.InvalidRequest,
      "Not acceptable: GET needs Accept: text/event-stream",
    );
  }
  const lastEventId = request.headers.get("last-event-id");
  if (lastEventId !== null) {
    const writer = http.resume(lastEventId);
    if (writer === undefined) {
      return rpcError(404, ErrorCode.InvalidRequest, "Unknown Last-Event-ID");
    }
    return sseResponse(writer.body);
  }
  const writer = http.openStandalone();
  if (writer === undefined) {
    return rpcError(
      409,
      ErrorCode.InvalidRequest,
      "Conflict: this session already has a GET stream",
    );
  }
  return sseResponse(writer.body);
}
