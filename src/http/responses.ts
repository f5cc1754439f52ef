/**
 * The endpoint's fixed answers: JSON-RPC errors carried on HTTP statuses,
 * 404 and 405 for requests it does not serve, and the headers of an SSE
 * response.
 *
 * @module
 */

/** The headers of every SSE response. */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  // Proxies such as nginx must not hold events back.
  "x-accel-buffering": "no",
};

const SSE_HEADER_ENTRIES = Object.entries(SSE_HEADERS);

/** The methods a session endpoint serves, for `Allow`. */
export const ALLOW_SESSIONS = "GET, POST, DELETE, OPTIONS";
/** The methods a sessionless endpoint (or a modern request) has, for `Allow`. */
export const ALLOW_POST_ONLY = "POST, OPTIONS";

/** An HTTP error answer carrying a JSON-RPC error with id null. */
export function rpcError(
  status: number,
  code: number,
  message: string,
  headers?: Headers,
): Response {
  const response = Response.json({ jsonrpc: "2.0", id: null, error: { code, message } }, {
    status,
  });
  headers?.forEach((value, key) => response.headers.set(key, value));
  return response;
}

/** 404 for a path the endpoint is not mounted at. */
export function pathNotFound(): Response {
  return new Response("Not found", { status: 404 });
}

/** 405 naming the methods that are allowed. */
export function methodNotAllowed(allow: string): Response {
  return new Response("Method not allowed", { status: 405, headers: { allow } });
}

/**
 * A 200 SSE response over `body`: with `headers` (which gain the SSE ones)
 * when given, else with the SSE headers alone.
 */
export function sseResponse(body: ReadableStream<Uint8Array>, headers?: Headers): Response {
  if (headers === undefined) return new Response(body, { headers: SSE_HEADERS });
  for (const [key, value] of SSE_HEADER_ENTRIES) headers.set(key, value);
  return new Response(body, { status: 200, headers });
}
