/**
 * The Streamable HTTP endpoint as a web-standard fetch handler: POST for
 * client messages (answered as JSON or SSE), GET for the standalone stream
 * and resumption, DELETE to end a session. This file builds the endpoint
 * and puts CORS headers and a last-resort 500 around every answer; the
 * request paths themselves live in `routing.ts` and the files it calls.
 *
 * @module
 */

import { ErrorCode } from "../jsonrpc/errors.ts";
import { type Endpoint, openEndpoint } from "./endpoint.ts";
import type { HttpHost, HttpOptions, HttpProtocolSession } from "./options.ts";
import { rpcError } from "./responses.ts";
import { handleRequest } from "./routing.ts";
import { corsHeaders } from "./security.ts";

/**
 * Builds the fetch handler of one endpoint over `host`.
 *
 * @throws {RangeError} A body limit in `options` that is not a positive number.
 *
 * @example
 * ```ts ignore
 * const fetch = createHttpHandler(host, { path: "/mcp" });
 * ```
 */
export function createHttpHandler<S extends HttpProtocolSession>(
  host: HttpHost<S>,
  options: HttpOptions = {},
): { fetch: (request: Request) => Promise<Response>; close: (reason: unknown) => void } {
  const endpoint = openEndpoint(host, options);
  return {
    fetch(request) {
      return answer(endpoint, request);
    },
    close(reason) {
      endpoint.sessions.closeAll(String(reason));
    },
  };
}

/** Answers `request` with CORS headers; a failure becomes one log line and a 500. */
function answer<S extends HttpProtocolSession>(
  endpoint: Endpoint<S>,
  request: Request,
): Promise<Response> {
  const failed = (error: unknown): Response => {
    // One short line per failure: a request that trips it must not flood stderr.
    const detail = error instanceof Error ? error.message : String(error);
    endpoint.host.log(`warden: the HTTP endpoint failed: ${detail}`);
    return withCors(endpoint, request, rpcError(500, ErrorCode.InternalError, "Internal error"));
  };
  let answering: Response | Promise<Response>;
  try {
    answering = handleRequest(endpoint, request);
  } catch (error) {
    return Promise.resolve(failed(error));
  }
  // No async frame of its own: the answer's promise is chained once, when there is one.
  if (!(answering instanceof Promise)) {
    return Promise.resolve(withCors(endpoint, request, answering));
  }
  return answering.then((response) => withCors(endpoint, request, response), failed);
}

/** `response` with the CORS headers its request's origin gets (none without CORS). */
function withCors<S extends HttpProtocolSession>(
  endpoint: Endpoint<S>,
  request: Request,
  response: Response,
): Response {
  const cors = endpoint.options.cors;
  // Without CORS there is nothing to add: no header object is made for it.
  if (cors === undefined) return response;
  corsHeaders(request.headers.get("origin"), cors).forEach((value, key) =>
    response.headers.set(key, value)
  );
  return response;
}
