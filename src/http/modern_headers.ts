/**
 * The request headers of revision 2026-07-28's Streamable HTTP binding:
 * which era a POST belongs to, and whether `MCP-Protocol-Version`,
 * `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` agree with the body. A proxy
 * may route on the headers while the server acts on the body: any
 * disagreement is refused before dispatch.
 *
 * @module
 */

import { ErrorCode, quote } from "../jsonrpc/errors.ts";
import { isRecord } from "../jsonrpc/messages.ts";
import { ModernErrorCode } from "../jsonrpc/modern_errors.ts";
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

const HEADER_MISMATCH = ModernErrorCode.HeaderMismatch;
const INVALID_PARAMS = ErrorCode.InvalidParams;
const INVALID_REQUEST = ErrorCode.InvalidRequest;

/**
 * Where `Mcp-Name` comes from, by method. A `Map`: the method is the
 * client's text, and a plain object would answer `constructor` or
 * `toString` from its prototype.
 */
export const NAME_SOURCES: ReadonlyMap<string, string> = new Map([
  ["tools/call", "name"],
  ["prompts/get", "name"],
  ["resources/read", "uri"],
  ["tasks/get", "taskId"],
  ["tasks/update", "taskId"],
  ["tasks/cancel", "taskId"],
]);

/**
 * Whether a POST is for the modern era: its body's `_meta` names a revision,
 * or its `MCP-Protocol-Version` header is not one of the legacy revisions.
 * A request on a legacy session (`Mcp-Session-Id`) never is. `version` is
 * the `MCP-Protocol-Version` header, when the caller has read it already.
 */
export function isModernPost(
  request: Request,
  body: unknown,
  legacyVersions: readonly string[],
  version: string | null = request.headers.get("mcp-protocol-version"),
): boolean {
  // `get`, not `has`: on Deno.serve `has` copies every header of the request first.
  if (request.headers.get("mcp-session-id") !== null) return false;
  if (isRecord(body) && isRecord(body.params) && isRecord(body.params._meta)) {
    if (Object.hasOwn(body.params._meta, PROTOCOL_VERSION_KEY)) return true;
  }
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

const NO_PARAMS: Readonly<Record<string, unknown>> = Object.freeze({});
const NO_HEADER_PARAMS: readonly HeaderParam[] = [];

function invalidParams(message: string): HeaderProblem {
  return { status: 400, code: INVALID_PARAMS, message };
}

/** A request carries `_meta` with its revision and client capabilities (400, -32602). */
function requiredMeta(meta: unknown): HeaderProblem | undefined {
  if (!isRecord(meta)) return invalidParams("Invalid params: _meta is required");
  if (typeof meta[PROTOCOL_VERSION_KEY] !== "string") {
    return invalidParams(`Invalid params: _meta["${PROTOCOL_VERSION_KEY}"] is required`);
  }
  if (!isRecord(meta[CAPABILITIES_KEY])) {
    return invalidParams(`Invalid params: _meta["${CAPABILITIES_KEY}"] is required`);
  }
  return undefined;
}

/** A listen request that cannot take a stream (406, -32600). */
function listenNotAcceptable(): HeaderProblem {
  // Its answer is a stream that stays open: as plain JSON the client would wait for nothing.
  return {
    status: 406,
    code: INVALID_REQUEST,
    message: "Not acceptable: subscriptions/listen answers with text/event-stream",
  };
}

/** `MCP-Protocol-Version` is present and agrees with `_meta`. */
function versionHeader(
  version: string | null,
  meta: unknown,
  mask: (text: string) => string,
): HeaderProblem | undefined {
  const bodyVersion = isRecord(meta) ? meta[PROTOCOL_VERSION_KEY] : undefined;
  if (version === null) return mismatch("the MCP-Protocol-Version header is missing");
  if (bodyVersion !== undefined && version !== bodyVersion) {
    return mismatch(
      `MCP-Protocol-Version ${quote(version, 80, mask)} does not match _meta ${
        quote(String(bodyVersion), 80, mask)
      }`,
    );
  }
  return undefined;
}

/** `Mcp-Method` (read and trimmed, or null) disagrees with the body's method. */
function methodMismatch(
  header: string,
  method: string,
  mask: (text: string) => string,
): HeaderProblem | undefined {
  if (header === method) return undefined;
  return mismatch(
    `Mcp-Method ${quote(header, 80, mask)} does not match the body's ${quote(method, 80, mask)}`,
  );
}

/** `Mcp-Name` agrees with the body's name, URI or task id, where the method has one. */
function nameHeader(
  headers: Headers,
  method: string,
  params: Readonly<Record<string, unknown>>,
  mask: (text: string) => string,
): HeaderProblem | undefined {
  const nameKey = NAME_SOURCES.get(method);
  if (nameKey === undefined) return undefined;
  const header = headers.get("mcp-name")?.trim() ?? null;
  if (header === null) return mismatch("the Mcp-Name header is missing");
  const decoded = decodeHeaderValue(header);
  if (decoded === undefined) {
    return mismatch("Mcp-Name has characters a header must not carry, or broken base64");
  }
  if (decoded !== params[nameKey]) {
    return mismatch(`Mcp-Name ${quote(decoded, 80, mask)} does not match the body's ${nameKey}`);
  }
  return undefined;
}

/** Each `Mcp-Param-*` the called tool declares agrees with its argument. */
function paramHeaders(
  headers: Headers,
  method: string,
  params: Readonly<Record<string, unknown>>,
  paramsOf: (tool: string) => readonly HeaderParam[] | undefined,
): HeaderProblem | undefined {
  if (method !== "tools/call" || typeof params.name !== "string") return undefined;
  for (const param of paramsOf(params.name) ?? NO_HEADER_PARAMS) {
    const problem = paramHeader(headers, params.arguments, param);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** One `Mcp-Param-*` header: absent only when the argument is, and equal to it. */
function paramHeader(
  headers: Headers,
  args: unknown,
  param: HeaderParam,
): HeaderProblem | undefined {
  const value = valueAt(args, param.path);
  const raw = headers.get(`mcp-param-${param.header}`)?.trim() ?? null;
  const present = value !== undefined && value !== null;
  if (raw === null) {
    return present ? mismatch(`the Mcp-Param-${param.header} header is missing`) : undefined;
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
  return undefined;
}

/** The mask of an endpoint that masks nothing. */
function asIs(text: string): string {
  return text;
}

/**
 * Checks a modern POST's headers against its body (a single JSON-RPC
 * message). Order: the required `_meta` keys (400, -32602), a listen
 * request that cannot take a stream (406, -32600), then the version header,
 * `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` (400, -32020). A notification
 * may omit `Mcp-Method` (required only on requests) but not contradict its
 * body with one; without one it is accepted with no further check (the
 * revision sets no header rules for notifications). A value quoted in a
 * message and cut short passes `mask` first; the caller masks the whole
 * message. `version` is the `MCP-Protocol-Version` header, when the caller
 * has read it already. Each header and body field is read once: this runs
 * on every modern POST.
 */
export function checkModernHeaders(
  request: Request,
  message: Record<string, unknown>,
  paramsOf: (tool: string) => readonly HeaderParam[] | undefined,
  mask: (text: string) => string = asIs,
  version: string | null = request.headers.get("mcp-protocol-version"),
): HeaderProblem | undefined {
  const params = isRecord(message.params) ? message.params : NO_PARAMS;
  const method = typeof message.method === "string" ? message.method : "";
  const asked = message.id !== undefined;
  if (asked) {
    const problem = requiredMeta(params._meta);
    if (problem !== undefined) return problem;
    if (method === "subscriptions/listen" && !accepts(request, "text/event-stream")) {
      return listenNotAcceptable();
    }
  }
  const versionProblem = versionHeader(version, params._meta, mask);
  if (versionProblem !== undefined) return versionProblem;
  const { headers } = request;
  const methodHeader = headers.get("mcp-method")?.trim() ?? null;
  if (methodHeader === null) {
    return asked ? mismatch("the Mcp-Method header is missing") : undefined;
  }
  return methodMismatch(methodHeader, method, mask) ??
    nameHeader(headers, method, params, mask) ??
    paramHeaders(headers, method, params, paramsOf);
}

/**
 * The HTTP status a modern JSON-RPC error reply travels with, as the
 * transport gives it: 400 for the header, capability and version errors,
 * 200 for every other. 404 is for a method the server does not implement
 * alone, which the endpoint answers before dispatch: a -32601 a handler
 * throws (an unknown tool, say) is not that, and clients take a 404 for a
 * session that is gone.
 */
export function statusOfModernError(code: number): number {
  if (
    code === HEADER_MISMATCH || code === ModernErrorCode.MissingRequiredClientCapability ||
    code === ModernErrorCode.UnsupportedProtocolVersion
  ) return 400;
  return 200;
}
