/**
 * Reading an HTTP request for the endpoint: its body within a limit, its
 * Accept header, the request ids it carries, and JSON-RPC error answers.
 *
 * @module
 */

import { isRecord } from "../../jsonrpc/messages.ts";
import type { JsonRpcId } from "../../jsonrpc/messages.ts";

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

/** Whether the Accept header takes `type` (or anything). */
export function accepts(request: Request, type: string): boolean {
  const accept = request.headers.get("accept");
  if (accept === null) return false;
  return accept.split(",").some((part) => {
    const media = part.split(";")[0]?.trim().toLowerCase();
    return media === type || media === "*/*";
  });
}

/** The body as text, or "too-large" as soon as it passes `limit` bytes (without reading the rest). */
export async function readBody(request: Request, limit: number): Promise<string | "too-large"> {
  const declared = Number(request.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > limit) return "too-large";
  if (request.body === null) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (true) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return "too-large";
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}
