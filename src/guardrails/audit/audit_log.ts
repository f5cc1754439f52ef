/**
 * The audit guardrail: the outermost step of the pipeline, so it records
 * every guarded call, including those refused at any later step. An entry
 * is masked once before it reaches a sink (names, argument keys and values
 * alike): by the server's masker, the same one every reply passes, or by
 * the audit log's own redactor when the server masks nothing.
 *
 * @module
 */

import { type AuditOutcome, type AuditSink, type AuditState, nextAuditEntry } from "./audit.ts";
import type { CallOutcome, CallStatus } from "../../call/outcome.ts";
import type { GuardedCall } from "../../call/context.ts";
import type { Guardrail } from "../../call/guardrail.ts";
import { compileRedactor, type Redactor } from "../redact/engine.ts";
import { redactorMask } from "../redact/guardrail.ts";
import { ErrorCode } from "../../jsonrpc/errors.ts";

/** Options of {@linkcode auditLog}. */
export interface AuditLogOptions {
  /** Where entries go: `stderrAuditSink()`, `fileAuditSink(path)`, `callbackAuditSink(fn)`. */
  sink: AuditSink;
  /**
   * How entries are masked when the server masks nothing (no redaction
   * guardrail). With one, entries pass the server's masker instead, so they
   * hide exactly what replies hide; either way each entry is masked once,
   * and never written unmasked.
   * @default {compileRedactor()} — all presets and the default sensitive keys
   */
  redactor?: Redactor;
  /**
   * Where a sink's own failures are reported (once per distinct message).
   * @default {console.error}
   */
  onError?: (message: string) => void;
  /**
   * The wall clock for entry times, in ms since the epoch.
   * @default {Date.now}
   */
  now?: () => number;
  /**
   * The monotonic clock for durations, in ms.
   * @default {performance.now}
   */
  monotonic?: () => number;
}

const AUDIT_OUTCOME: Readonly<Record<CallStatus, AuditOutcome>> = {
  ok: "ok",
  tool_error: "tool_error",
  input_required: "input_required",
  error: "error",
  denied: "denied",
  rate_limited: "rate_limited",
  invalid: "invalid",
  // Asking for something that does not exist is the caller's mistake, like bad arguments.
  not_found: "invalid",
  internal_error: "internal_error",
  cancelled: "cancelled",
};

/**
 * Creates the audit guardrail: one entry per guarded call (sequence number,
 * time, principal, client, method, name, redacted arguments, outcome, error
 * code, duration). `flush()` drains the sink; `server.close()` calls it.
 *
 * @example Auditing to stderr
 * ```ts
 * import { createServer } from "@warden/mcp";
 * import { auditLog, stderrAuditSink } from "@warden/mcp/guardrails";
 * const server = createServer({
 *   name: "desk",
 *   version: "1.0.0",
 *   guardrails: [auditLog({ sink: stderrAuditSink() })],
 * });
 * ```
 */
export function auditLog(options: AuditLogOptions): Guardrail {
  const { sink } = options;
  if (typeof sink?.write !== "function" || typeof sink.flush !== "function") {
    throw new TypeError("Cannot create audit log: sink must be an AuditSink");
  }
  const ownMask = redactorMask(options.redactor ?? compileRedactor());
  const now = options.now ?? Date.now;
  const monotonic = options.monotonic ?? (() => performance.now());
  let state: AuditState = { seq: 0 };
  const reported = new Set<string>();
  const reportSinkFailure = (error: unknown): void => {
    const message = error instanceof Error ? error.message : String(error);
    if (reported.has(message) || reported.size > 100) return;
    reported.add(message);
    (options.onError ?? ((m: string) => console.error(m)))(`warden: audit sink failed: ${message}`);
  };

  const record = (
    call: GuardedCall,
    outcome: CallOutcome | undefined,
    started: number,
  ): void | Promise<void> => {
    const { context } = call;
    const mask = context.mask ?? ownMask;
    let status: AuditOutcome = outcome === undefined
      ? "internal_error"
      : AUDIT_OUTCOME[outcome.status];
    // A handler that finished after its cancellation still had its reply dropped.
    if (status !== "cancelled" && context.aborted) status = "cancelled";
    const code = outcome === undefined
      ? ErrorCode.InternalError
      : "error" in outcome
      ? outcome.error.code
      : null;
    const step = nextAuditEntry(state, {
      principal: context.principal ?? null,
      // nextAuditEntry copies the name and version alone.
      client: mask(context.client.info ?? null),
      method: call.method,
      name: mask(call.name),
      arguments: mask(call.arguments),
      outcome: status,
      // A client that cancelled gets no reply; a call aborted at shutdown gets -32603.
      error_code: context.cancelledByClient ? null : code,
      duration_ms: monotonic() - started,
      request_id: context.requestId,
    }, now());
    state = step.state;
    let accepted: void | Promise<void>;
    try {
      accepted = sink.write(step.entry);
    } catch (error) {
      // The call already ran: a broken sink must not turn its result into an error.
      reportSinkFailure(error);
      return;
    }
    if (accepted instanceof Promise) return accepted.catch(reportSinkFailure);
  };

  return {
    name: "audit-log",
    stage: "audit",
    async run(call, next) {
      const started = monotonic();
      let outcome: CallOutcome | undefined;
      try {
        outcome = await next(call);
        return outcome;
      } finally {
        // The outcome (and so the reply) waits until the sink has the entry:
        // a durable sink resolves once it is written and synced.
        const accepted = record(call, outcome, started);
        if (accepted !== undefined) await accepted;
      }
    },
    flush: () => sink.flush(),
  };
}
