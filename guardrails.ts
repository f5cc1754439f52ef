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

// For a custom guardrail: the contract every guarded call crosses.
export type { CallContext, GuardedCall } from "./src/call/context.ts";
export type { CallOutcome } from "./src/call/outcome.ts";
export type { Guardrail } from "./src/call/guardrail.ts";
export type { Mask } from "./src/call/mask.ts";

export { accessPolicy, type AccessPolicyOptions } from "./src/guardrails/access/access_policy.ts";
export { rateLimit } from "./src/guardrails/rate_limit/rate_limit.ts";
export { type RateLimiterOptions, type RateLimitRule } from "./src/guardrails/rate_limit/limits.ts";
export { redaction } from "./src/guardrails/redact/guardrail.ts";
export type { RedactorOptions } from "./src/guardrails/redact/engine.ts";
export type { RedactRule } from "./src/guardrails/redact/rules.ts";
export type { RedactPreset } from "./src/guardrails/redact/presets.ts";
export { loadGitleaksRules } from "./src/guardrails/redact/gitleaks.ts";
export type { AuditEntry, AuditSink } from "./src/guardrails/audit/audit.ts";
export { auditLog, type AuditLogOptions } from "./src/guardrails/audit/audit_log.ts";
export {
  callbackAuditSink,
  fileAuditSink,
  stderrAuditSink,
} from "./src/guardrails/audit/audit_sinks.ts";
export {
  createGuardrails,
  type GuardrailsConfig,
} from "./src/guardrails/policy/create_guardrails.ts";
