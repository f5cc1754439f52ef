/**
 * Revision 2026-07-28's per-request metadata: the reserved `_meta` keys,
 * the revisions served statelessly, the era test, and the check every
 * modern request passes before anything is dispatched.
 *
 * @module
 */

import { isRecord, type JsonRpcParams } from "../../jsonrpc/messages.ts";
import { invalidParamsError, RpcError } from "../../jsonrpc/errors.ts";
import type { ClientDescription } from "../../core/context.ts";
import { type Implementation, MODERN_PROTOCOL_VERSIONS } from "../../core/lifecycle.ts";
import { isLoggingLevel, type LoggingLevel } from "../../core/logging.ts";
import { ModernErrorCode } from "../../jsonrpc/modern_errors.ts";

/** The `_meta` keys revision 2026-07-28 reserves. */
export const META_KEYS = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
} as const;

/**
 * Whether a request belongs to the modern era: its `_meta` names a protocol
 * version. Decided per request; nothing is inferred from earlier ones.
 */
export function isModernRequest(params: JsonRpcParams | undefined): boolean {
  const meta = params?._meta;
  return isRecord(meta) && Object.hasOwn(meta, META_KEYS.protocolVersion);
}

/** What a modern request says about itself. */
export interface RequestMeta {
  /** The revision the request is made under. */
  readonly protocolVersion: string;
  /** The client's self-description, when sent and well-formed. */
  readonly clientInfo: Implementation | undefined;
  /** The capabilities the client declared on this request. */
  readonly clientCapabilities: Readonly<Record<string, unknown>>;
  /** The least severe log message the client wants; undefined for none. */
  readonly logLevel: LoggingLevel | undefined;
  /** The whole `_meta`. */
  readonly raw: Readonly<Record<string, unknown>>;
  /**
   * The three fields above as guardrails and the handler see the client:
   * built once per request, shared by its call facts and its context.
   */
  readonly client: ClientDescription;
}

/** The -32022 error for a revision not served per request. */
export function unsupportedVersion(requested: string): RpcError {
  return new RpcError(
    ModernErrorCode.UnsupportedProtocolVersion,
    `Unsupported protocol version: ${JSON.stringify(requested.slice(0, 40))}`,
    { supported: [...MODERN_PROTOCOL_VERSIONS], requested },
  );
}

/**
 * Reads and checks a modern request's `_meta`.
 *
 * @throws {RpcError} -32022 for a revision not served per request, -32602
 * for a missing or malformed required key
 */
export function readRequestMeta(params: JsonRpcParams): RequestMeta {
  const raw = params._meta;
  if (!isRecord(raw)) throw invalidParamsError("_meta is required");
  const version = raw[META_KEYS.protocolVersion];
  if (typeof version !== "string") {
    throw invalidParamsError(`_meta["${META_KEYS.protocolVersion}"] must be a string`);
  }
  if (!MODERN_PROTOCOL_VERSIONS.includes(version)) throw unsupportedVersion(version);
  const capabilities = raw[META_KEYS.clientCapabilities];
  if (!isRecord(capabilities)) {
    throw invalidParamsError(
      `_meta["${META_KEYS.clientCapabilities}"] is required and must be an object`,
    );
  }
  const level = raw[META_KEYS.logLevel];
  if (level !== undefined && !isLoggingLevel(level)) {
    throw invalidParamsError(`_meta["${META_KEYS.logLevel}"] is not a logging level`);
  }
  const info = raw[META_KEYS.clientInfo];
  const clientInfo = isRecord(info) && typeof info.name === "string" &&
      typeof info.version === "string"
    ? { name: info.name, version: info.version }
    : undefined;
  return {
    protocolVersion: version,
    clientInfo,
    clientCapabilities: capabilities,
    logLevel: level,
    raw,
    client: { info: clientInfo, capabilities, protocolVersion: version },
  };
}
