/**
 * Warden: build Model Context Protocol servers that are safe to hand to an AI
 * client. One `createServer()`, plain JSON Schema literals with inferred
 * argument types, Web Streams transports, and guardrails (access policy, rate
 * limiter, redactor, audit log) built in.
 *
 * @example A complete stdio server
 * ```ts
 * import { createServer, defineTool, StdioTransport } from "@warden/mcp";
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
 * if (import.meta.main) await server.connect(new StdioTransport());
 * ```
 *
 * @module
 */

export { createServer } from "./src/server/create_server.ts";
export type {
  ClientSession,
  ConnectOptions,
  ItemHandle,
  ItemType,
  Server,
  ServerOptions,
} from "./src/server/types.ts";
export { isLoggingLevel, LOGGING_LEVELS, type LoggingLevel } from "./src/core/logging.ts";
export {
  InputRequiredError,
  MissingCapabilityError,
  type Root,
  type SamplingMessage,
  type SamplingRequest,
  type SamplingResult,
  type UrlElicitation,
} from "./src/core/client_asks.ts";
export { ClientRequestError } from "./src/eras/legacy/session.ts";
export type { CacheScope, ItemCache } from "./src/core/cache.ts";
export type { CacheOptions } from "./src/eras/modern/caching.ts";
export { ModernErrorCode } from "./src/eras/modern/errors.ts";
export type { StateSecret } from "./src/eras/modern/request_state.ts";
export type {
  ElicitContent,
  ElicitField,
  ElicitResult,
  ElicitSchema,
} from "./src/core/elicitation_forms.ts";
export type { ResourceTemplateDefinition } from "./src/core/templates.ts";
export {
  type Completer,
  type CompletionContext,
  MAX_COMPLETION_VALUES,
} from "./src/core/completion.ts";
export { compileUriTemplate, type UriTemplate } from "./src/core/uri_template.ts";
export {
  defineTool,
  type ToolAnnotations,
  type ToolDefinition,
  type ToolReturn,
} from "./src/core/tools.ts";
export type { ResourceContext, ResourceDefinition } from "./src/core/resources.ts";
export {
  definePrompt,
  type PromptArgs,
  type PromptArgument,
  type PromptDefinition,
  type PromptReturn,
} from "./src/core/prompts.ts";
export type {
  ClientDescription,
  ClientRequestOptions,
  ElicitUrlOptions,
  RequestContext,
} from "./src/core/context.ts";
export type {
  AudioContent,
  ContentAnnotations,
  ContentBlock,
  EmbeddedResource,
  ImageContent,
  PromptMessage,
  ResourceContents,
  ResourceLink,
  TextContent,
  ToolResult,
} from "./src/core/content.ts";
export {
  type Icon,
  type Implementation,
  LATEST_PROTOCOL_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSIONS,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "./src/core/lifecycle.ts";

export { ErrorCode, type ErrorCodeValue, RpcError } from "./src/jsonrpc/errors.ts";
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

export type { Transport } from "./src/transports/transport.ts";
export { StdioTransport, type StdioTransportOptions } from "./src/transports/stdio.ts";
export { createMemoryPair, MemoryTransport } from "./src/transports/memory.ts";
export {
  type DroppedLine,
  type DropReason,
  LineSplitter,
  type LineSplitterOptions,
} from "./src/transports/line_splitter.ts";

export {
  type CompileOptions,
  compileSchema,
  type SchemaViolation,
  type Validator,
} from "./src/schema/compile.ts";
export type {
  Infer,
  InferArgs,
  JsonSchema,
  JsonSchemaMap,
  JsonSchemaObject,
  JsonTypeName,
  JsonValue,
  ObjectSchema,
} from "./src/schema/types.ts";

export type {
  CallClient,
  CallContext,
  CallKind,
  CallNext,
  CallOutcome,
  CallStatus,
  Era,
  GuardedCall,
  Guardrail,
  GuardrailHost,
  GuardrailStage,
  ListedItem,
} from "./src/guardrails/pipeline.ts";

export {
  type AccessDecision,
  type AccessPolicy,
  accessPolicy,
  type AccessPolicyDeps,
  type AccessPolicyOptions,
  type AccessRules,
  compileAccessPolicy,
  decideAccess,
  type ItemKind,
  type PrincipalRules,
} from "./src/guardrails/access_policy.ts";
export { compileGlob } from "./src/guardrails/glob.ts";
export {
  bucketKeys,
  compileRateLimits,
  createRateLimiter,
  decideRateLimit,
  rateLimit,
  type RateLimitCall,
  type RateLimitDecision,
  type RateLimiterDeps,
  type RateLimiterOptions,
  type RateLimitOutcome,
  type RateLimitRefusal,
  type RateLimitRule,
  type RateLimits,
  type RateLimitScope,
} from "./src/guardrails/rate_limit.ts";
export {
  type BucketLimit,
  type TakeResult,
  takeTokens,
  type TokenBucket,
} from "./src/guardrails/token_bucket.ts";
export {
  type BucketStore,
  MemoryBucketStore,
  type MemoryBucketStoreOptions,
} from "./src/guardrails/bucket_store.ts";
export {
  compileRedactor,
  redactContent,
  type Redactor,
  type RedactorOptions,
  redactText,
  redactValue,
} from "./src/guardrails/redact.ts";
export {
  DEFAULT_REDACT_KEYS,
  REDACT_PRESETS,
  type RedactPreset,
} from "./src/guardrails/redact_presets.ts";
export { redaction, type RedactionGuardrail } from "./src/guardrails/redaction.ts";
export {
  type AuditEntry,
  type AuditInput,
  type AuditOutcome,
  type AuditSink,
  type AuditState,
  type AuditStep,
  nextAuditEntry,
} from "./src/guardrails/audit.ts";
export { auditLog, type AuditLogOptions } from "./src/guardrails/audit_log.ts";
export {
  type AuditTarget,
  checkGuardrailsConfig,
  createGuardrails,
  type GuardrailsConfig,
  type GuardrailsDeps,
} from "./src/guardrails/guardrails.ts";
export { loadPolicyFile, parsePolicy } from "./src/config/policy_file.ts";
export {
  type FlagsResult,
  parseListenAddress,
  parseServerFlags,
  type ServerFlags,
  type ServerIdentity,
  type ServerSetup,
  serverSetup,
  setupFromFlags,
  usage,
} from "./src/config/flags.ts";
export { serveStdio, type ServeStdioOptions } from "./src/server/serve_stdio.ts";
export {
  type AuditSinkOptions,
  callbackAuditSink,
  fileAuditSink,
  type FileAuditSinkOptions,
  stderrAuditSink,
  type StderrAuditSinkOptions,
} from "./src/guardrails/audit_sinks.ts";
export type { HttpOptions } from "./src/transports/http/options.ts";
export type { CorsOptions } from "./src/transports/http/security.ts";
export {
  type EventStore,
  MemoryEventStore,
  type MemoryEventStoreOptions,
  type ReplayedEvents,
} from "./src/transports/http/event_store.ts";
export {
  type HttpListener,
  serveHttp,
  type ServeHttpOptions,
} from "./src/transports/http/serve_http.ts";

// Shared state between instances (issue 17).
export {
  type BucketTake,
  type BucketTakeResult,
  type SetOptions,
  type SharedStore,
  StoreUnavailableError,
} from "./src/store/shared_store.ts";
export { MemoryStore, type MemoryStoreOptions } from "./src/store/memory_store.ts";
export { RedisStore, type RedisStoreOptions } from "./src/store/redis_store.ts";
export { KvStore, type KvStoreOptions } from "./src/store/kv_store.ts";
export { checkStoreUrl, openStore, type OpenStoreOptions } from "./src/store/open_store.ts";
export { rotateStateKey } from "./src/store/sealing_keys.ts";
export type { StoreOutagePolicy } from "./src/guardrails/shared_rate_limit.ts";
export { callTelemetry, telemetryEnabled } from "./src/telemetry/call_telemetry.ts";
export { otelAuditSink, type OtelAuditSinkOptions } from "./src/telemetry/otel_audit_sink.ts";
