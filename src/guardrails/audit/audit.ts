/**
 * The audit log's entry shape, its pure core and the sink interface.
 *
 * {@linkcode nextAuditEntry} turns what the pipeline knows about one finished
 * call into an entry, with the sequence state and the clock passed in and out;
 * sinks (see `audit_sinks.ts`) write entries at the edge.
 *
 * @module
 */

/**
 * One audit log entry: one per call, refused or not. Written as one JSON
 * object per line with the fields in this order.
 *
 * @example An entry as a sink receives it
 * ```ts
 * import type { AuditEntry } from "@warden/mcp/guardrails";
 * const entry: AuditEntry = {
 *   seq: 1, time: "2025-06-18T09:30:00.000Z", principal: "alice",
 *   client: { name: "inspector", version: "0.9.0" }, method: "tools/call",
 *   name: "get_order", arguments: { id: "ORD-1" }, outcome: "ok",
 *   error_code: null, duration_ms: 12.5, request_id: 7,
 * };
 * ```
 */
export interface AuditEntry {
  /**
   * Position in this log, from 1, with no gaps. Through the stderr and file
   * sinks, its position in the audit chain: a chain's genesis line is 0, and
   * a file's sequence runs on across restarts (see docs/audit.md).
   */
  seq: number;
  /** When the call finished, ISO 8601 in UTC with milliseconds. */
  time: string;
  /** Who called, as the access policy knows them; null when anonymous. */
  principal: string | null;
  /** The client's `clientInfo` from `initialize`; null before it. */
  client: { name: string; version: string } | null;
  /** The JSON-RPC method, e.g. `tools/call`. */
  method: string;
  /** The tool or prompt name or the resource URI; null for other methods. */
  name: string | null;
  /** The call's arguments, already redacted. */
  arguments: unknown;
  /**
   * How the call ended, as the step that ended it decided. `tool_error` is
   * a call that was made and failed (an `isError` result); `input_required`
   * an interim round of a multi round-trip request (revision 2026-07-28);
   * `error` a protocol error the handler threw itself; the others from
   * `denied` on are calls that could not be made or finish.
   */
  outcome:
    | "ok"
    | "tool_error"
    | "input_required"
    | "error"
    | "denied"
    | "rate_limited"
    | "quota_exceeded"
    | "invalid"
    | "internal_error"
    | "cancelled";
  /** The JSON-RPC error code sent back, or null when none was. */
  error_code: number | null;
  /** Time spent on the call in milliseconds, to the microsecond. */
  duration_ms: number;
  /** The request's id; null for a notification. */
  request_id: string | number | null;
  /**
   * What the redaction guardrail noticed beyond masking: `split_secrets`
   * counts secrets found split across two adjacent fields or content
   * blocks of the result (masked in both). Absent when there was none.
   */
  redaction?: { split_secrets: number };
}

/** What the pipeline supplies for an entry; the core adds `seq` and `time`. */
export type AuditInput = Omit<AuditEntry, "seq" | "time">;

/** The audit core's state between calls: the last sequence number used, 0 at start. */
export interface AuditState {
  /** The `seq` of the previous entry; start from `{ seq: 0 }`. */
  readonly seq: number;
}

/** An entry and the state to pass to the next call. */
export interface AuditStep {
  /** The finished entry, ready for the sinks. */
  readonly entry: AuditEntry;
  /** The state after this entry. */
  readonly state: AuditState;
}

/**
 * Where audit entries go. `write` never throws and never blocks on I/O: a
 * sink queues or hands the entry off, and reports its own failures (once per
 * distinct message) instead of throwing. `flush` resolves once everything
 * written before the call has reached its destination or failed; it is safe to
 * call at any time, concurrently, and after `close`. `close` flushes and
 * releases the sink; it is idempotent, and later writes are reported, not
 * thrown.
 *
 * @example A sink that keeps entries in memory
 * ```ts
 * import type { AuditEntry, AuditSink } from "@warden/mcp/guardrails";
 * const entries: AuditEntry[] = [];
 * const memory: AuditSink = {
 *   write: (entry) => void entries.push(entry),
 *   flush: () => Promise.resolve(),
 *   close: () => Promise.resolve(),
 * };
 * ```
 */
export interface AuditSink {
  /**
   * Accepts one entry; never throws. A sink that stores entries durably may
   * return a promise that settles once the entry is stored (it never
   * rejects): the audit log waits for it before the call is answered.
   */
  write(entry: AuditEntry): void | Promise<void>;
  /** Resolves when everything written so far is delivered (or reported as failed). */
  flush(): Promise<void>;
  /** Flushes, then releases the sink. */
  close(): Promise<void>;
}

/**
 * Builds the next audit entry: `seq` is the state's plus one, `time` is `now`
 * (epoch milliseconds) in ISO 8601, and `duration_ms` is rounded to whole
 * microseconds (a negative or non-finite duration, from a clock that stepped
 * back, becomes 0). Fields are copied in {@linkcode AuditEntry} order, so
 * nothing the caller added by mistake reaches the log.
 *
 * @param state The state from the previous step, `{ seq: 0 }` at first.
 * @param input What the pipeline knows about the call.
 * @param now The current time in epoch milliseconds.
 * @returns The entry and the next state; `state` itself is not changed.
 * @throws {RangeError} `state.seq` is not a non-negative integer or `now` is not a valid time.
 *
 * @example Usage
 * ```ts
 * import { nextAuditEntry } from "./audit.ts";
 * const { entry, state } = nextAuditEntry({ seq: 0 }, {
 *   principal: null, client: null, method: "tools/call", name: "get_order",
 *   arguments: { id: "ORD-1" }, outcome: "ok", error_code: null,
 *   duration_ms: 1.23456, request_id: 1,
 * }, Date.UTC(2025, 5, 18));
 * console.assert(entry.seq === 1 && state.seq === 1 && entry.duration_ms === 1.235);
 * ```
 */
export function nextAuditEntry(state: AuditState, input: AuditInput, now: number): AuditStep {
  if (!Number.isSafeInteger(state.seq) || state.seq < 0) {
    throw new RangeError(
      `Invalid audit state: seq must be a non-negative integer, got ${state.seq}`,
    );
  }
  // The range a Date can hold; beyond it `new Date(now)` is invalid.
  if (!(Math.abs(now) <= MAX_TIME)) throw new RangeError(`Invalid audit time: ${now}`);
  const duration = input.duration_ms;
  const seq = state.seq + 1;
  const entry: AuditEntry = {
    seq,
    time: isoTime(now),
    principal: input.principal,
    client: input.client === null
      ? null
      : { name: input.client.name, version: input.client.version },
    method: input.method,
    name: input.name,
    arguments: input.arguments,
    outcome: input.outcome,
    error_code: input.error_code,
    duration_ms: Number.isFinite(duration) && duration > 0 ? Math.round(duration * 1000) / 1000 : 0,
    request_id: input.request_id,
  };
  if (input.redaction !== undefined) {
    entry.redaction = { split_secrets: input.redaction.split_secrets };
  }
  return { entry, state: { seq } };
}

const MAX_TIME = 8.64e15;
// Formatting a Date costs far more than the rest of an entry, and calls come
// many to a millisecond: keep the last time's text, and the last second's
// text up to the milliseconds.
let lastTime = Number.NaN;
let lastText = "";
let lastSecond = Number.NaN;
let lastSecondPrefix = "";

/** `new Date(now).toISOString()`, for a `now` inside the range of a Date. */
function isoTime(now: number): string {
  // A Date drops the fraction of a millisecond, towards zero.
  const time = Math.trunc(now);
  if (time === lastTime) return lastText;
  const second = Math.floor(time / 1000);
  const millis = time - second * 1000;
  let text: string;
  if (second === lastSecond) {
    text = `${lastSecondPrefix}${millis < 10 ? "00" : millis < 100 ? "0" : ""}${millis}Z`;
  } else {
    text = new Date(time).toISOString();
    // Years outside 0000-9999 are written with six digits and a sign: not cached by second.
    const plain = text.length === 24;
    lastSecond = plain ? second : Number.NaN;
    lastSecondPrefix = plain ? text.slice(0, 20) : "";
  }
  lastTime = time;
  lastText = text;
  return text;
}

/** How a call ended, as its audit entry says. */
export type AuditOutcome = AuditEntry["outcome"];
