/**
 * Warden: build Model Context Protocol servers that are safe to hand to an AI
 * client. One `createServer()`, plain JSON Schema literals with inferred
 * argument types, Web Streams transports, and guardrails (access policy, rate
 * limiter, redactor, audit log) built in.
 *
 * @example A complete stdio server
 * ```ts
 * import { createServer, defineTool, serveStdio } from "@warden/mcp";
 *
 * const server = createServer({
 *   name: "weather",
 *   version: "1.0.0",
 *   tools: [defineTool({
 *     name: "forecast",
 *     description: "Tomorrow's weather for a city",
 *     inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
 *     handler: ({ city }) => `Sunny in ${city}`,
 *   })],
 * });
 * if (import.meta.main) await serveStdio(server);
 * ```
 *
 * @module
 */

// What building and serving a server needs. Guardrails, stores, telemetry,
// the HTTP endpoint's parts, testing transports, the setup from flags and
// schemas have their own entry points (see deno.json "exports"), so a server
// that imports only this one loads no npm package.

export { createServer } from "./src/server/create_server.ts";
export type {
  ClientSession,
  ItemHandle,
  Server,
  ServerOptions,
  ToolList,
} from "./src/server/types.ts";
export {
  defineTool,
  type ToolAnnotations,
  type ToolDefinition,
  type ToolReturn,
} from "./src/core/tools.ts";
export {
  definePrompt,
  type PromptArgument,
  type PromptDefinition,
  type PromptReturn,
} from "./src/core/prompts.ts";
export type { ResourceContext, ResourceDefinition } from "./src/core/resources.ts";
export type { ResourceTemplateDefinition } from "./src/core/templates.ts";
export type { Completer } from "./src/core/completion.ts";
export type { ItemCache } from "./src/core/cache.ts";
export type { CacheOptions } from "./src/eras/modern/caching.ts";
export type {
  ClientDescription,
  ClientRequestOptions,
  ElicitUrlOptions,
  RequestContext,
} from "./src/core/context.ts";
export type { LoggingLevel } from "./src/core/logging.ts";
export type {
  ElicitContent,
  ElicitField,
  ElicitResult,
  ElicitSchema,
} from "./src/core/elicitation_forms.ts";
export { InputRequiredError, MissingCapabilityError } from "./src/core/ask_errors.ts";
export type {
  Root,
  SamplingMessage,
  SamplingRequest,
  SamplingResult,
  UrlElicitation,
} from "./src/core/client_asks.ts";
export type {
  ContentAnnotations,
  ContentBlock,
  PromptMessage,
  ResourceContents,
  ToolResult,
} from "./src/core/content.ts";
export type { Icon, Implementation } from "./src/core/lifecycle.ts";
export type { ObjectSchema } from "./src/schema/types.ts";
export { ErrorCode, RpcError } from "./src/jsonrpc/errors.ts";
export { ModernErrorCode } from "./src/jsonrpc/modern_errors.ts";
export { ClientRequestError } from "./src/core/session.ts";
export type { JsonRpcMessage, JsonRpcResponse } from "./src/jsonrpc/messages.ts";
export type { Transport } from "./src/transports/transport.ts";
export { serveStdio } from "./src/server/serve_stdio.ts";
export type { StdioTransportOptions } from "./src/transports/stdio.ts";
export type { HttpOptions } from "./src/http/options.ts";
export { serveHttp, type ServeHttpOptions } from "./src/server/serve_http.ts";
