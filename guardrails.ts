/**
 * Warden's guardrails: the four built-in ones (access policy, rate limiter,
 * redactor, audit log) with their sinks and stores, the pure decision cores
 * they are built on, `createGuardrails()` for a whole policy, and the types
 * a custom guardrail implements.
 *
 * @example Guardrails from one policy object
 * ```ts
 * import { createServer } from "@warden/mcp";
 * import { createGuardrails } from "@warden/mcp/guardrails";
 *
 * const server = createServer({
 *   name: "desk",
 *   version: "1.0.0",
 *   guardrails: createGuardrails({
 *     access: { tools: { deny: ["cancel_*"] } },
 *     rateLimit: { rules: [{ scope: "tool", capacity: 5, refillPerSecond: 1 }] },
 *     redact: true,
 *     audit: "stderr",
 *   }),
 * });
 * ```
 *
 * @module
 */

export type { CallClient, CallContext, CallKind, Era, GuardedCall } from "./src/call/context.ts";
export type { CallNext, CallOutcome, CallStatus } from "./src/call/outcome.ts";
export type { Guardrail, GuardrailHost, GuardrailStage, ListedItem } from "./src/call/guardrail.ts";

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
} from "./src/guardrails/access/access_policy.ts";
export { compileGlob } from "./src/guardrails/access/glob.ts";
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
} from "./src/guardrails/rate_limit/rate_limit.ts";
export {
  type BucketLimit,
  type TakeResult,
  takeTokens,
  type TokenBucket,
} from "./src/store/token_bucket.ts";
export {
  type BucketStore,
  MemoryBucketStore,
  type MemoryBucketStoreOptions,
} from "./src/store/bucket_store.ts";
export {
  compileRedactor,
  type Redactor,
  type RedactorOptions,
  redactText,
} from "./src/guardrails/redact/engine.ts";
export { redactContent, redactValue } from "./src/guardrails/redact/value.ts";
export type { RedactRule, RuleAllowlist } from "./src/guardrails/redact/rules.ts";
export { loadGitleaksRules, parseGitleaksRules } from "./src/guardrails/redact/gitleaks.ts";
export {
  DEFAULT_REDACT_KEYS,
  REDACT_PRESETS,
  type RedactPreset,
} from "./src/guardrails/redact/presets.ts";
export { redaction, type RedactionGuardrail } from "./src/guardrails/redact/guardrail.ts";
export {
  type AuditEntry,
  type AuditInput,
  type AuditOutcome,
  type AuditSink,
  type AuditState,
  type AuditStep,
  nextAuditEntry,
} from "./src/guardrails/audit/audit.ts";
export { auditLog, type AuditLogOptions } from "./src/guardrails/audit/audit_log.ts";
export {
  type AuditTarget,
  checkGuardrailsConfig,
  createGuardrails,
  type GuardrailsConfig,
  type GuardrailsDeps,
} from "./src/guardrails/policy/create_guardrails.ts";
export {
  type AuditSinkOptions,
  callbackAuditSink,
  fileAuditSink,
  type FileAuditSinkOptions,
  stderrAuditSink,
  type StderrAuditSinkOptions,
} from "./src/guardrails/audit/audit_sinks.ts";
export { callTelemetry, telemetryEnabled } from "./src/guardrails/telemetry/call_telemetry.ts";
export {
  otelAuditSink,
  type OtelAuditSinkOptions,
} from "./src/guardrails/telemetry/otel_audit_sink.ts";
