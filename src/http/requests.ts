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
