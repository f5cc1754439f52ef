/**
 * The audit guardrail: the outermost step of the pipeline, so it records
 * every guarded call, including those refused at any later step. An entry
 * is masked once before it reaches a sink (names, argument keys and values
 * alike): by the server's masker, the same one every reply passes, or by
 * the audit log's own redactor when the server masks nothing. Through the
 * built-in stderr and file sinks, entries are written as a hash chain (see
 * `chain_writer.ts`), bounded in size, with a checkpoint at each flush.
 *
 * @module
 */

import {
  type AuditEntry,
  type AuditInput,
  type AuditOutcome,
  type AuditSink,
  type AuditState,
  nextAuditEntry,
} from "./audit.ts";
import {
  type CallOutcome,
  type CallStatus,
  isPending,
  type MaybeOutcome,
  sentErrorCode,
} from "../../call/outcome.ts";
import type { CallContext, GuardedCall } from "../../call/context.ts";
import type { Guardrail } from "../../call/guardrail.ts";
import type { Mask } from "../../call/mask.ts";
import { compileRedactor, type Redactor, type RedactorOptions } from "../redact/engine.ts";
import { maskedTexts, redactorMask, splitSecrets } from "../redact/guardrail.ts";
import { readingMasks } from "../redact/memo.ts";
import { ErrorCode } from "../../jsonrpc/errors.ts";
import { lineSinkOf } from "./audit_sinks.ts";
import { ChainWriter } from "./chain_writer.ts";
import { checkMaxLineBytes } from "./audit_line.ts";
import { keyBytes } from "./chain.ts";

/**
 * Options of {@linkcode auditLog}.
 *
 * @example Denied calls to an alert channel, sink failures to the server's log
 * ```ts
 * import { auditLog, type AuditLogOptions, callbackAuditSink } from "@warden/mcp/guardrails";
 * const options: AuditLogOptions = {
 *   sink: callbackAuditSink((entry) => {
 *     if (entry.outcome === "denied") console.error(`ALERT ${entry.principal} ${entry.name}`);
 *   }),
 *   redact: { keys: ["customer_pin"] },
 *   onError: (message) => console.error(`audit: ${message}`),
 * };
 * const audit = auditLog(options);
 * ```
 */
export interface AuditLogOptions {
  /** Where entries go: `stderrAuditSink()`, `fileAuditSink(path)`, `callbackAuditSink(fn)`. */
  sink: AuditSink;
  /**
   * How entries are masked when the server masks nothing (no redaction
   * guardrail). With one, entries pass the server's masker instead, so they
   * hide exactly what replies hide; either way each entry is masked once,
   * and never written unmasked.
   * @default {{}} — all presets and the default sensitive keys
   */
  redact?: RedactorOptions;
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
  /**
   * The key of the audit chain (at least 16 bytes; a string is taken as
   * UTF-8). With it, each line's `hash` is an HMAC-SHA-256 under the key, so
   * only a holder of the key can write a chain that verifies; without it, a
   * plain SHA-256 chain, which shows accidental damage and edits by anyone
   * who does not recompute every later hash. Applies to the stderr and file
   * sinks, which write the chain.
   * @default {undefined} (plain SHA-256)
   */
  key?: Uint8Array | string;
  /**
   * The bound of one audit line in bytes of UTF-8 (16384 to 4194304). A
   * longer entry is cut (its arguments first) and marked `truncated`, with
   * the size and SHA-256 digest of the whole entry.
   * @default {65536}
   */
  maxLineBytes?: number;
}

const AUDIT_OUTCOME: Readonly<Record<CallStatus, AuditOutcome>> = {
  ok: "ok",
  tool_error: "tool_error",
  input_required: "input_required",
  error: "error",
  denied: "denied",
  rate_limited: "rate_limited",
  quota_exceeded: "quota_exceeded",
  invalid: "invalid",
  // Asking for something that does not exist is the caller's mistake, like bad arguments.
  not_found: "invalid",
  internal_error: "internal_error",
  cancelled: "cancelled",
};

/** How a call is recorded: as its outcome says, but "cancelled" once it was aborted. */
function auditOutcomeOf(context: CallContext, outcome: CallOutcome | undefined): AuditOutcome {
  const status = outcome === undefined ? "internal_error" : AUDIT_OUTCOME[outcome.status];
  // A handler that finished after its cancellation still had its reply dropped.
  return status !== "cancelled" && context.aborted ? "cancelled" : status;
}

/**
 * The error code the client was sent: none for a result, or for a client
 * that cancelled (it gets no reply); -32603 for a call that threw or was
 * aborted at shutdown; else the code of the reply in the call's era (the
 * front door builds it with the same `sentErrorCode`).
 */
function errorCodeOf(context: CallContext, outcome: CallOutcome | undefined): number | null {
  if (context.cancelledByClient) return null;
  if (outcome === undefined) return ErrorCode.InternalError;
  return "error" in outcome ? sentErrorCode(outcome, context.era) : null;
}

/** What an entry says about one finished call, masked once by `mask`. */
function auditInput(
  call: GuardedCall,
  outcome: CallOutcome | undefined,
  mask: Mask,
  started: number,
  monotonic: () => number,
): AuditInput {
  const { context } = call;
  const split = outcome === undefined ? undefined : splitSecrets.get(outcome);
  // A large text the redaction step masked in the result (an echo's input) is not scanned again.
  const masked = outcome === undefined ? undefined : maskedTexts.get(outcome);
  const input: AuditInput = {
    principal: context.principal ?? null,
    // nextAuditEntry copies the name and version alone.
    client: mask(context.client.info ?? null),
    method: call.method,
    name: mask(call.name),
    arguments: masked === undefined
      ? mask(call.arguments)
      : readingMasks(masked, mask, call.arguments),
    outcome: auditOutcomeOf(context, outcome),
    error_code: errorCodeOf(context, outcome),
    // After the masking: the duration covers the masking of large arguments too.
    duration_ms: monotonic() - started,
    request_id: context.requestId,
  };
  // Added when there is one: spreading an empty object into every entry costs more than the rest.
  if (split !== undefined) input.redaction = { split_secrets: split };
  return input;
}

/** Reports a sink's failures through `onError`, once per distinct message (about 100 at most). */
function sinkFailureReporter(onError: (message: string) => void): (error: unknown) => void {
  const reported = new Set<string>();
  return (error) => {
    const message = error instanceof Error ? error.message : String(error);
    if (reported.has(message) || reported.size > 100) return;
    reported.add(message);
    onError(`warden: audit sink failed: ${message}`);
  };
}

/** The audit log's state: the sink, the sequence, the clocks and the fallback mask. */
class AuditRecorder {
  /** The monotonic clock durations are measured with. */
  readonly monotonic: () => number;
  readonly #sink: AuditSink;
  readonly #ownMask: Mask;
  readonly #now: () => number;
  readonly #report: (error: unknown) => void;
  /** The chain, for a sink that writes lines (stderr, file); else entries go to `write`. */
  readonly #chain: ChainWriter | undefined;
  #state: AuditState = { seq: 0 };

  constructor(options: AuditLogOptions, redactor: Redactor) {
    this.#sink = options.sink;
    this.#ownMask = redactorMask(redactor);
    this.#now = options.now ?? Date.now;
    this.monotonic = options.monotonic ?? (() => performance.now());
    this.#report = sinkFailureReporter(options.onError ?? ((m: string) => console.error(m)));
    const lines = lineSinkOf(options.sink);
    this.#chain = lines === undefined ? undefined : new ChainWriter(lines, {
      key: options.key === undefined ? undefined : keyBytes(options.key),
      maxLineBytes: checkMaxLineBytes(options.maxLineBytes),
      now: this.#now,
    });
  }

  /**
   * Writes the entry of a call that started at `started` (by
   * `monotonic`) and has finished; a promise when the sink stores it
   * durably. The server's masker masks it when there is one, else the audit
   * log's own redactor: once either way.
   */
  record(
    call: GuardedCall,
    outcome: CallOutcome | undefined,
    started: number,
  ): void | Promise<void> {
    const mask = call.context.mask ?? this.#ownMask;
    const input = auditInput(call, outcome, mask, started, this.monotonic);
    const step = nextAuditEntry(this.#state, input, this.#now());
    this.#state = step.state;
    return this.#write(step.entry);
  }

  /** Seals the chain with a checkpoint (at shutdown: `server.close()` flushes), then drains the sink. */
  async flush(): Promise<void> {
    try {
      await this.#chain?.checkpoint();
    } catch (error) {
      this.#report(error);
    }
    return this.#sink.flush();
  }

  #write(entry: AuditEntry): void | Promise<void> {
    let accepted: void | Promise<void>;
    try {
      accepted = this.#chain === undefined ? this.#sink.write(entry) : this.#chain.write(entry);
    } catch (error) {
      // The call already ran: a broken sink must not turn its result into an error.
      this.#report(error);
      return;
    }
    if (accepted instanceof Promise) return accepted.catch(this.#report);
  }
}

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
  checkSink(options);
  return auditLogWith(options, compileRedactor(options.redact ?? {}));
}

function checkSink({ sink, key, maxLineBytes }: AuditLogOptions): void {
  if (typeof sink?.write !== "function" || typeof sink.flush !== "function") {
    throw new TypeError("Cannot create audit log: sink must be an AuditSink");
  }
  if (key !== undefined) keyBytes(key);
  checkMaxLineBytes(maxLineBytes);
}

/**
 * `outcome` once its entry is recorded: the outcome (and so the reply) waits
 * until the sink has the entry, as a durable sink resolves once it is
 * written and synced; at once when the sink took it synchronously.
 */
function recorded(
  recorder: AuditRecorder,
  call: GuardedCall,
  outcome: CallOutcome,
  started: number,
): MaybeOutcome {
  const accepted = recorder.record(call, outcome, started);
  return accepted === undefined ? outcome : accepted.then(() => outcome);
}

/** `then()` once the entry is accepted (`accepted` resolved), or at once when nothing is awaited. */
function afterEntry(accepted: void | Promise<void>, then: () => CallOutcome): MaybeOutcome {
  return accepted === undefined ? then() : accepted.then(then);
}

/**
 * {@linkcode auditLog} over an already compiled redactor, for
 * `createGuardrails()`, which compiles the policy's rules once for the
 * redaction step and the audit log alike.
 */
export function auditLogWith(options: AuditLogOptions, redactor: Redactor): Guardrail {
  checkSink(options);
  const recorder = new AuditRecorder(options, redactor);
  return {
    name: "audit-log",
    stage: "audit",
    // Not async: a call answered synchronously, to a sink that takes its entry
    // synchronously, is answered without a promise.
    run(call, next) {
      const started = recorder.monotonic();
      let outcome: MaybeOutcome;
      try {
        outcome = next(call);
      } catch (error) {
        return afterEntry(recorder.record(call, undefined, started), () => {
          throw error;
        });
      }
      if (!isPending(outcome)) return recorded(recorder, call, outcome, started);
      return outcome.then(
        (settled) => recorded(recorder, call, settled, started),
        (error: unknown) =>
          afterEntry(recorder.record(call, undefined, started), () => {
            throw error;
          }),
      );
    },
    flush: () => recorder.flush(),
  };
}
