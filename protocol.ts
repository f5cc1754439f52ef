/**
 * MCP on the wire: JSON-RPC message types, the protocol revisions Warden
 * speaks, every content block type, URI templates, logging levels and the
 * other protocol-level names a server rarely needs directly.
 *
 * @example Which revisions a server speaks
 * ```ts
 * import { SUPPORTED_PROTOCOL_VERSIONS } from "@warden/mcp/protocol";
 * console.assert(SUPPORTED_PROTOCOL_VERSIONS.includes("2026-07-28"));
 * ```
 *
 * @module
 */

export type { ErrorCodeValue } from "./src/jsonrpc/errors.ts";
export type {
  JsonRpcErrorObject,
  JsonRpcFailure,
  JsonRpcId,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcParams,
  JsonRpcRequest,
  JsonRpcResponse,
  JsonRpcSuccess,
} from "./src/jsonrpc/messages.ts";
export {
  LATEST_PROTOCOL_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSIONS,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "./src/core/lifecycle.ts";
export type {
  AudioContent,
  ContentAnnotations,
  EmbeddedResource,
  ImageContent,
  ResourceLink,
  TextContent,
} from "./src/core/content.ts";
export { compileUriTemplate, type UriTemplate } from "./src/core/uri_template.ts";
export { MAX_COMPLETION_VALUES } from "./src/core/completion.ts";
export { isLoggingLevel, LOGGING_LEVELS } from "./src/core/logging.ts";
export type { ElicitContent, ElicitField } from "./src/core/elicitation_forms.ts";
export type { SamplingMessage } from "./src/core/client_asks.ts";
export type { CacheScope } from "./src/core/cache.ts";
export type { StateSecret } from "./src/store/sealing_keys.ts";
