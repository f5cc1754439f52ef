/**
 * The audit tests' sample call: one `tools/call` by alice, as the audit
 * guardrail would record it, with any field overridden.
 *
 * @module
 */

import type { AuditInput } from "../../src/guardrails/audit/audit.ts";

/** A successful `get_order` call by alice; `overrides` replace fields. */
export function auditInput(overrides: Partial<AuditInput> = {}): AuditInput {
  return {
    principal: "alice",
    client: { name: "inspector", version: "0.9.0" },
    method: "tools/call",
    name: "get_order",
    arguments: { id: "ORD-1" },
    outcome: "ok",
    error_code: null,
    duration_ms: 12.5,
    request_id: 7,
    ...overrides,
  };
}
