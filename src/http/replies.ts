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
 * anything else is sent for the requests (only when `sseOk`).
 *
 * @param statusOf The status of a plain reply.
 */
export async function respond<S extends HttpProtocolSession>(
  endpoint: Endpoint<S>,
  http: HttpSession,
  value: unknown,
  ids: readonly JsonRpcId[],
  sseOk: boolean,
  headers: Headers,
  statusOf: ReplyStatus,
): Promise<Response> {
  const route = sseOk ? http.openRoute(ids) : undefined;
  const replying = Promise.resolve(endpoint.host.dispatcher.dispatch(value, protocolOf<S>(http)));
  const first = route === undefined
    ? await replying.then(asFirst)
    : await Promise.race([replying.then(asFirst), route.streamRequested.then(nothing)]);
  if (route !== undefined && first === undefined) {
    // Something was sent for the request before its reply: stream.
    const writer = route.startStream();
    finishOnReply(route, replying);
    return sseResponse(writer.body, headers);
  }
  route?.finish(undefined);
  return plainReply(endpoint, http, first?.reply, headers, statusOf);
}

function asFirst(reply: Reply): { reply: Reply } {
  return { reply };
}

function nothing(): undefined {
  return undefined;
}

/** Ends a streamed route with its reply. */
function finishOnReply(route: PostRoute, replying: Promise<Reply>): void {
  void replying.then((reply) =>
    route.finish(reply === undefined ? undefined : JSON.stringify(reply))
  );
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
