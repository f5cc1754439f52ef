/**
 * OpenTelemetry for a Warden server, through Deno's built-in OpenTelemetry
 * (`OTEL_DENO=true`): a span and metrics per guarded call, and an audit sink
 * that writes entries as log records correlated with those spans.
 * `serverSetup()` adds the call telemetry by itself when `OTEL_DENO=true`; a
 * server built by hand adds it to its guardrails.
 *
 * @example Telemetry in a server built by hand
 * ```ts
 * import { createServer } from "@warden/mcp";
 * import { callTelemetry, telemetryEnabled } from "@warden/mcp/telemetry";
 * const server = createServer({
 *   name: "desk",
 *   version: "1.0.0",
 *   guardrails: telemetryEnabled() ? [callTelemetry()] : [],
 * });
 * ```
 *
 * @module
 */

export { callTelemetry } from "./src/guardrails/telemetry/call_telemetry.ts";
export { telemetryEnabled } from "./src/runtime/telemetry_env.ts";
export { otelAuditSink } from "./src/guardrails/telemetry/otel_audit_sink.ts";
