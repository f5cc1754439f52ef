/**
 * JSON-RPC 2.0 message types and the one function that sorts an incoming
 * JSON value into request, notification, response or invalid.
 *
 * @module
 */

/**
 * A response: a result, or an error whose `id` is null when the request's
 * id could not be read. Ids are strings or numbers (MCP forbids null in
 * requests); `error.code` is one of `ErrorCode` or `ModernErrorCode`.
 *
 * @example Reading the reply of an embedded call
 * ```ts
 * import { createServer, ErrorCode, type JsonRpcResponse } from "@warden/mcp";
 * const server = createServer({ name: "desk", version: "1.0.0" });
 * const reply = await server.handle({
 *   jsonrpc: "2.0",
 *   id: 7,
 *   method: "tools/call",
 *   params: { name: "no_such_tool", arguments: {} },
 * });
 * function failure(response: JsonRpcResponse): string | undefined {
 *   if (response.error === undefined) return undefined;
 *   const known = response.error.code === ErrorCode.InvalidParams ? " (bad params)" : "";
 *   return `${response.error.message}${known}`;
 * }
 * if (reply !== undefined && !Array.isArray(reply)) console.error(failure(reply));
 * ```
 */
export type JsonRpcResponse =
  | { jsonrpc: "2.0"; id: string | number; result: Record<string, unknown>; error?: never }
  | {
    jsonrpc: "2.0";
    id: string | number | null;
    error: { code: number; message: string; data?: unknown };
    result?: never;
  };

/**
 * Any single JSON-RPC 2.0 message: a request (answered by exactly one
 * response with its id), a notification (no id, never answered), or a
 * response. MCP's `params` are always an object.
 *
 * @example Messages a test or an embedding host sends to `server.handle()`
 * ```ts
 * import { createServer, type JsonRpcMessage } from "@warden/mcp";
 * const server = createServer({ name: "desk", version: "1.0.0" });
 * const call: JsonRpcMessage = {
 *   jsonrpc: "2.0",
 *   id: "call-1",
 *   method: "tools/call",
 *   params: { name: "find_order", arguments: { id: "ORD-42" } },
 * };
 * const cancel: JsonRpcMessage = {
 *   jsonrpc: "2.0",
 *   method: "notifications/cancelled",
 *   params: { requestId: "call-1", reason: "The user gave up" },
 * };
 * const reply = await server.handle(call);
 * await server.handle(cancel); // a notification: resolves to undefined
 * ```
 */
export type JsonRpcMessage =
  | { jsonrpc: "2.0"; id: string | number; method: string; params?: Record<string, unknown> }
  | { jsonrpc: "2.0"; method: string; params?: Record<string, unknown> }
  | JsonRpcResponse;

/** A request id. */
export type JsonRpcId = string | number;

/** Parameters of a request or notification. */
export type JsonRpcParams = Record<string, unknown>;

/** A request: expects exactly one response with the same id. */
export type JsonRpcRequest = Extract<JsonRpcMessage, { id: string | number; method: string }>;

/** A notification: a request without an id, never answered. */
export type JsonRpcNotification = Exclude<JsonRpcMessage, { id: unknown }>;

/** A successful response. */
export type JsonRpcSuccess = Extract<JsonRpcResponse, { result: Record<string, unknown> }>;

/** An error response. */
export type JsonRpcFailure = Extract<JsonRpcResponse, { error: { code: number } }>;

/** The `error` member of an error response. */
export type JsonRpcErrorObject = JsonRpcFailure["error"];

/** What {@linkcode classifyMessage} found a JSON value to be. */
export type Classified =
  | { kind: "request"; message: JsonRpcRequest }
  | { kind: "notification"; message: JsonRpcNotification }
  | { kind: "response"; message: JsonRpcResponse }
  | { kind: "invalid"; id: JsonRpcId | null; reason: string };

/** Whether `value` is a JSON object (not null, not an array): the check every layer needs. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is JsonRpcId {
  return typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

/**
 * Sorts one parsed JSON value (not a batch) into a JSON-RPC message kind.
 * Never throws: anything malformed comes back as `invalid` with the id to
 * answer (null when no usable id was present) and the reason.
 *
 * @example
 * ```ts ignore
 * classifyMessage({ jsonrpc: "2.0", id: 1, method: "ping" }).kind; // "request"
 * ```
 */
export function classifyMessage(value: unknown): Classified {
  if (!isRecord(value)) {
    return { kind: "invalid", id: null, reason: "Invalid request: expected a JSON object" };
  }
  const hasId = Object.hasOwn(value, "id");
  const rawId = value.id;
  const id = isId(rawId) ? rawId : null;
  if (value.jsonrpc !== "2.0") {
    return { kind: "invalid", id, reason: 'Invalid request: jsonrpc must be "2.0"' };
  }
  if (hasId && id === null) {
    return { kind: "invalid", id: null, reason: "Invalid request: id must be a string or number" };
  }
  const method = value.method;
  if (method === undefined && id !== null) {
    const { result, error } = value;
    if (isRecord(result)) return { kind: "response", message: { jsonrpc: "2.0", id, result } };
    if (isRecord(error) && typeof error.code === "number") {
      const detail: JsonRpcErrorObject = {
        code: error.code,
        message: typeof error.message === "string" ? error.message : "",
      };
      if (Object.hasOwn(error, "data")) detail.data = error.data;
      return { kind: "response", message: { jsonrpc: "2.0", id, error: detail } };
    }
  }
  if (typeof method !== "string") {
    return {
      kind: "invalid",
      id,
      reason: method === undefined
        ? "Invalid request: missing method"
        : "Invalid request: method must be a string",
    };
  }
  const params = value.params;
  if (id === null) {
    // Notifications are never answered, valid or not, so bad params are dropped, not refused.
    return {
      kind: "notification",
      message: isRecord(params) ? { jsonrpc: "2.0", method, params } : { jsonrpc: "2.0", method },
    };
  }
  if (params !== undefined && !isRecord(params)) {
    return { kind: "invalid", id, reason: "Invalid request: params must be an object" };
  }
  return {
    kind: "request",
    message: params === undefined
      ? { jsonrpc: "2.0", id, method }
      : { jsonrpc: "2.0", id, method, params },
  };
}
