/**
 * Reading an HTTP request for the endpoint: its body within a limit, its
 * Accept header, its host and path, and the request ids it carries.
 *
 * @module
 */

import { ErrorCode } from "../jsonrpc/errors.ts";
import { isRecord } from "../jsonrpc/messages.ts";
import { textOfChunks } from "../runtime/chunks.ts";
import type { JsonRpcId } from "../jsonrpc/messages.ts";
import { rpcError } from "./responses.ts";

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

/** Limits on reading a request body. */
export interface BodyLimits {
  /** The most bytes accepted (413 above it). */
  maxBytes: number;
  /** The longest a body may take to arrive, in ms (408 after it). */
  timeoutMs: number;
}

/**
 * The body limits `options` ask for, checked.
 *
 * @throws {RangeError} A limit that is not a positive number.
 */
export function bodyLimitsOf(
  options: { maxBodyBytes?: number; bodyTimeoutMs?: number },
): BodyLimits {
  const maxBytes = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const timeoutMs = options.bodyTimeoutMs ?? 30_000;
  for (const [name, value] of [["maxBodyBytes", maxBytes], ["bodyTimeoutMs", timeoutMs]] as const) {
    if (!(typeof value === "number" && value > 0)) {
      throw new RangeError(`Invalid http.${name}: expected a positive number, got ${value}`);
    }
  }
  return { maxBytes, timeoutMs };
}

/**
 * The body as text, or the error answer when it passes `limits.maxBytes`
 * (413, without reading the rest) or does not arrive in full within
 * `limits.timeoutMs` (408). Either error closes the connection, so a slow or
 * oversized body cannot keep it.
 */
export async function readBody(request: Request, limits: BodyLimits): Promise<string | Response> {
  const tooLarge = (): Response =>
    closing(rpcError(
      413,
      ErrorCode.InvalidRequest,
      `Payload too large: the limit is ${limits.maxBytes} bytes`,
    ));
  const declared = Number(request.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > limits.maxBytes) return tooLarge();
  if (request.body === null) return "";
  const reader = request.body.getReader();
  // One timer per body, not one per chunk: cancelling the reader ends a read that is waiting.
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    reader.cancel().catch(() => {});
  }, limits.timeoutMs);
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (true) {
      const next = await reader.read();
      if (next.done) break;
      size += next.value.byteLength;
      if (size > limits.maxBytes) {
        await reader.cancel().catch(() => {});
        return tooLarge();
      }
      chunks.push(next.value);
    }
  } finally {
    clearTimeout(timer);
  }
  if (timedOut) {
    return closing(rpcError(
      408,
      ErrorCode.InvalidRequest,
      `Request timeout: the body did not arrive within ${limits.timeoutMs} ms`,
    ));
  }
  return textOfChunks(chunks, size);
}

/** `response` with `Connection: close`, so the server drops the connection after it. */
function closing(response: Response): Response {
  response.headers.set("connection", "close");
  return response;
}
