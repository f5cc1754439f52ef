/**
 * Reading an HTTP request for the endpoint: its Accept header, its host and
 * path, and the request ids it carries (its body: `body.ts`).
 *
 * @module
 */

import { isRecord } from "../jsonrpc/messages.ts";
import type { JsonRpcId } from "../jsonrpc/messages.ts";

/** The ids of the requests among `messages` (notifications and responses have none). */
export function requestIdsOf(messages: readonly unknown[]): JsonRpcId[] {
  const ids: JsonRpcId[] = [];
  for (const message of messages) {
    if (
      isRecord(message) && typeof message.method === "string" &&
      (typeof message.id === "string" || typeof message.id === "number")
    ) ids.push(message.id);
  }
  return ids;
}

/** Whether the Accept header takes `type` (or anything). */
export function accepts(request: Request, type: string): boolean {
  const accept = request.headers.get("accept");
  if (accept === null) return false;
  return accept.split(",").some((part) => {
    const media = part.split(";")[0]?.trim().toLowerCase();
    return media === type || media === "*/*";
  });
}

/** What a POST's Accept header takes: plain JSON, an SSE stream. */
export interface Accepted {
  readonly json: boolean;
  readonly sse: boolean;
}

/** Accept headers already read: a client sends the same one with every request. */
const acceptedCache = new Map<string, Accepted>();
const ACCEPTED_CACHE_SIZE = 64;

/** What an Accept header takes of the two types a POST is answered with. */
export function acceptedOf(accept: string | null): Accepted {
  if (accept === null) return { json: false, sse: false };
  let accepted = acceptedCache.get(accept);
  if (accepted !== undefined) return accepted;
  let json = false;
  let sse = false;
  for (const part of accept.split(",")) {
    const media = part.split(";")[0]?.trim().toLowerCase();
    if (media === "*/*") json = sse = true;
    else if (media === "application/json") json = true;
    else if (media === "text/event-stream") sse = true;
  }
  accepted = { json, sse };
  // Bounded: a client cycling through headers must not grow it.
  if (acceptedCache.size >= ACCEPTED_CACHE_SIZE) acceptedCache.clear();
  acceptedCache.set(accept, accepted);
  return accepted;
}

/**
 * The path of a request URL, without its query. It never throws: the URL of
 * a request with a malformed Host header (`a b`, `[::1]x`) may not parse, and
 * then the path is read from the text after the authority.
 *
 * @example
 * ```ts ignore
 * requestPath("http://a b/mcp?x=1"); // "/mcp"
 * ```
 */
export function requestPath(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    const scheme = url.indexOf("://");
    const start = url.indexOf("/", scheme === -1 ? 0 : scheme + 3);
    if (start === -1) return "/";
    const end = url.slice(start).search(/[?#]/);
    return end === -1 ? url.slice(start) : url.slice(start, start + end);
  }
}

/**
 * A test of whether a request URL's path is `path`, as {@linkcode requestPath}
 * would say, without parsing the URL when its path is written exactly as
 * `path` (the common case); any other spelling is parsed, so `/a/../mcp`
 * still matches `/mcp`.
 *
 * @example
 * ```ts ignore
 * pathMatcher("/mcp")("http://localhost:8080/mcp?x=1"); // true
 * ```
 */
export function pathMatcher(path: string): (url: string) => boolean {
  // A path the URL parser would rewrite is never compared as written.
  if (requestPath(`http://localhost${path}`) !== path) {
    return (url) => requestPath(url) === path;
  }
  return (url) => {
    const scheme = url.indexOf("://");
    const start = url.indexOf("/", scheme === -1 ? 0 : scheme + 3);
    if (start !== -1 && plainAuthority(url, scheme + 3, start) && url.startsWith(path, start)) {
      const next = url.charCodeAt(start + path.length);
      // The path ends there: at the end, or at a query or fragment.
      if (Number.isNaN(next) || next === 0x3f || next === 0x23) return true;
    }
    return requestPath(url) === path;
  };
}

/** Whether `url[from, to)` holds none of the characters that end an authority early. */
function plainAuthority(url: string, from: number, to: number): boolean {
  for (let index = from; index < to; index++) {
    const code = url.charCodeAt(index);
    // "?", "#" and "\\" (a "/" to the URL parser) would end it before the first "/".
    if (code === 0x3f || code === 0x23 || code === 0x5c) return false;
  }
  return true;
}

/**
 * The host a request names: its Host header, else the URL's authority (for
 * HTTP/2, which carries it there). Never throws, never parses the URL.
 *
 * @example
 * ```ts ignore
 * requestHost(new Request("http://localhost:8080/mcp")); // "localhost:8080"
 * ```
 */
export function requestHost(request: Pick<Request, "url" | "headers">): string | null {
  const header = request.headers.get("host");
  if (header !== null) return header;
  const url = request.url;
  const scheme = url.indexOf("://");
  if (scheme === -1) return null;
  const rest = url.slice(scheme + 3);
  const end = rest.search(/[/?#]/);
  const authority = end === -1 ? rest : rest.slice(0, end);
  // Credentials before "@" are not part of the host.
  return authority.slice(authority.lastIndexOf("@") + 1);
}
