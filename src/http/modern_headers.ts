/**
 * The request headers of revision 2026-07-28's Streamable HTTP binding:
 * which era a POST belongs to, and whether `MCP-Protocol-Version`,
 * `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` agree with the body. A proxy
 * may route on the headers while the server acts on the body: any
 * disagreement is refused before dispatch.
 *
 * @module
 */

import { isRecord } from "../jsonrpc/messages.ts";
import { accepts } from "./requests.ts";

/** The `_meta` key that names a request's revision. */
export const PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
/** The `_meta` key that carries a request's client capabilities. */
export const CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities";

/** A parameter the tool mirrors into an `Mcp-Param-*` header. */
export interface HeaderParam {
  /** The name part of `Mcp-Param-{header}`. */
  readonly header: string;
  /** The `properties` path of the parameter in the arguments. */
  readonly path: readonly string[];
  /** Its type. */
  readonly type: "string" | "integer" | "boolean";
}

/** A refused request: the HTTP status and the JSON-RPC error to answer with. */
export interface HeaderProblem {
  readonly status: number;
  readonly code: number;
  readonly message: string;
}

const HEADER_MISMATCH = -32020;
const INVALID_PARAMS = -32602;
const INVALID_REQUEST = -32600;

/** Where `Mcp-Name` comes from, by method. */
const NAME_SOURCES: Readonly<Record<string, string>> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId",
};

/**
 * Whether a POST is for the modern era: its body's `_meta` names a revision,
 * or its `MCP-Protocol-Version` header is not one of the legacy revisions.
 * A request on a legacy session (`Mcp-Session-Id`) never is.
 */
export function isModernPost(
  request: Request,
  body: unknown,
  legacyVersions: readonly string[],
): boolean {
  if (request.headers.has("mcp-session-id")) return false;
  if (isRecord(body) && isRecord(body.params) && isRecord(body.params._meta)) {
    if (Object.hasOwn(body.params._meta, PROTOCOL_VERSION_KEY)) return true;
  }
  const version = request.headers.get("mcp-protocol-version");
  return version !== null && !legacyVersions.includes(version);
}

const SENTINEL_START = "=?base64?";
const SENTINEL_END = "?=";
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** What a plain header value may hold (RFC 9110): visible ASCII, space and tab. */
const PLAIN_VALUE = /^[\t\x20-\x7e]*$/;

/**
 * A header value as the client meant it: `=?base64?…?=` decoded (strict
 * base64 of UTF-8), anything else taken literally; undefined when the
 * encoding is broken or a plain value holds characters a header must not
 * (anything else has to come base64-encoded).
 */
export function decodeHeaderValue(value: string): string | undefined {
  if (!PLAIN_VALUE.test(value)) return undefined;
  if (!value.startsWith(SENTINEL_START) || !value.endsWith(SENTINEL_END)) return value;
  if (value.length < SENTINEL_START.length + SENTINEL_END.length) return value;
  const encoded = value.slice(SENTINEL_START.length, value.length - SENTINEL_END.length);
  if (!BASE64.test(encoded)) return undefined;
  try {
    const bytes = Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0));
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

function mismatch(message: string): HeaderProblem {
  return { status: 400, code: HEADER_MISMATCH, message: `Header mismatch: ${message}` };
}

function quoted(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}

function valueAt(args: unknown, path: readonly string[]): unknown {
  let node = args;
  for (const key of path) {
    if (!isRecord(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

/** A decimal number as JSON writes one. */
const DECIMAL = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

function sameValue(header: string, value: unknown, type: HeaderParam["type"]): boolean {
  switch (type) {
    case "string":
      return typeof value === "string" && header === value;
    case "boolean":
      return typeof value === "boolean" && header === String(value);
    case "integer":
      // Compared as numbers ("42.0" and 42 are the same value), but only in
      // decimal: Number() also reads "0x2A", "0b101010" and "Infinity".
      return typeof value === "number" && DECIMAL.test(header) && Number(header) === value;
  }
}

/**
 * Checks a modern POST's headers against its body (a single JSON-RPC
 * message). Order: the required `_meta` keys (400, -32602), a listen
 * request that cannot take a stream (406, -32600), then the version header,
 * `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` (400, -32020). A notification
 * may omit `Mcp-Method` (required only on requests) but not contradict its
 * body with one.
 */
export function checkModernHeaders(
  request: Request,
  message: Record<string, unknown>,
  paramsOf: (tool: string) => readonly HeaderParam[] | undefined,
): HeaderProblem | undefined {
  const headers = request.headers;
  const params = isRecord(message.params) ? message.params : {};
  const meta = params._meta;
  const isRequest = message.id !== undefined;
  if (isRequest) {
    if (!isRecord(meta)) {
      return { status: 400, code: INVALID_PARAMS, message: "Invalid params: _meta is required" };
    }
    if (typeof meta[PROTOCOL_VERSION_KEY] !== "string") {
      return {
        status: 400,
        code: INVALID_PARAMS,
        message: `Invalid params: _meta["${PROTOCOL_VERSION_KEY}"] is required`,
      };
    }
    if (!isRecord(meta[CAPABILITIES_KEY])) {
      return {
        status: 400,
        code: INVALID_PARAMS,
        message: `Invalid params: _meta["${CAPABILITIES_KEY}"] is required`,
      };
    }
  }
  if (
    message.method === "subscriptions/listen" && isRequest && !accepts(request, "text/event-stream")
  ) {
    // Its answer is a stream that stays open: as plain JSON the client would wait for nothing.
    return {
      status: 406,
      code: INVALID_REQUEST,
      message: "Not acceptable: subscriptions/listen answers with text/event-stream",
    };
  }
  const version = headers.get("mcp-protocol-version");
  const bodyVersion = isRecord(meta) ? meta[PROTOCOL_VERSION_KEY] : undefined;
  if (version === null) return mismatch("the MCP-Protocol-Version header is missing");
  if (bodyVersion !== undefined && version !== bodyVersion) {
    return mismatch(
      `MCP-Protocol-Version ${quoted(version)} does not match _meta ${quoted(String(bodyVersion))}`,
    );
  }
  const method = typeof message.method === "string" ? message.method : "";
  const methodHeader = headers.get("mcp-method")?.trim() ?? null;
  // Mcp-Method is required on requests; the revision defines no header rules for notification
  // POSTs (clients such as the TypeScript SDK v2 send notifications/cancelled without one).
  if (methodHeader === null) {
    return isRequest ? mismatch("the Mcp-Method header is missing") : undefined;
  }
  if (methodHeader !== method) {
    return mismatch(
      `Mcp-Method ${quoted(methodHeader)} does not match the body's ${quoted(method)}`,
    );
  }
  const nameKey = NAME_SOURCES[method];
  if (nameKey !== undefined) {
    const name = params[nameKey];
    const nameHeader = headers.get("mcp-name")?.trim() ?? null;
    if (nameHeader === null) return mismatch("the Mcp-Name header is missing");
    const decoded = decodeHeaderValue(nameHeader);
    if (decoded === undefined) {
      return mismatch("Mcp-Name has characters a header must not carry, or broken base64");
    }
    if (decoded !== name) {
      return mismatch(`Mcp-Name ${quoted(decoded)} does not match the body's ${nameKey}`);
    }
  }
  if (method === "tools/call" && typeof params.name === "string") {
    for (const param of paramsOf(params.name) ?? []) {
      const value = valueAt(params.arguments, param.path);
      const raw = headers.get(`mcp-param-${param.header}`)?.trim() ?? null;
      const present = value !== undefined && value !== null;
      if (raw === null) {
        if (present) return mismatch(`the Mcp-Param-${param.header} header is missing`);
        continue;
      }
      const decoded = decodeHeaderValue(raw);
      if (decoded === undefined) {
        return mismatch(
          `Mcp-Param-${param.header} has characters a header must not carry, or broken base64`,
        );
      }
      if (!present || !sameValue(decoded, value, param.type)) {
        return mismatch(`Mcp-Param-${param.header} does not match the body's argument`);
      }
    }
  }
  return undefined;
}

/** The HTTP status a modern JSON-RPC error reply travels with. */
export function statusOfModernError(code: number): number {
  if (code === -32601) return 404;
  if (code === HEADER_MISMATCH || code === -32021 || code === -32022) return 400;
  return 200;
}
