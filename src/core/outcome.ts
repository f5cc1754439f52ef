/**
 * Turning what a handler threw into a call outcome, shared by tools,
 * resources and prompts.
 *
 * @module
 */

import { ErrorCode, RpcError } from "../jsonrpc/errors.ts";
import type { CallOutcome, CallStatus } from "../guardrails/pipeline.ts";

/** The pipeline status a protocol error code stands for. */
export function statusForCode(code: number): Exclude<CallStatus, "ok" | "tool_error"> {
  switch (code) {
    case ErrorCode.AccessDenied:
      return "denied";
    case ErrorCode.RateLimited:
      return "rate_limited";
    case ErrorCode.InvalidParams:
    case ErrorCode.InvalidRequest:
      return "invalid";
    case ErrorCode.MethodNotFound:
      return "not_found";
    default:
      return "internal_error";
  }
}

/** An error outcome carrying `error`, its status taken from the code. */
export function errorOutcome(error: RpcError): CallOutcome {
  return { status: statusForCode(error.code), error };
}

/** The outcome of a call the client cancelled or the server abandoned at shutdown. */
export function cancelledOutcome(): CallOutcome {
  return { status: "cancelled", error: new RpcError(ErrorCode.InternalError, "Request cancelled") };
}

/**
 * The outcome for an exception from a resource reader or prompt getter:
 * `RpcError`s keep their code; anything else is -32603 with a generic
 * message and the detail on stderr.
 */
export function thrownOutcome(
  error: unknown,
  signal: AbortSignal,
  what: string,
  log: (message: string) => void,
): CallOutcome {
  if (signal.aborted) return cancelledOutcome();
  if (error instanceof RpcError) return errorOutcome(error);
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  log(`warden: ${what} failed: ${detail}`);
  return {
    status: "internal_error",
    error: new RpcError(ErrorCode.InternalError, "Internal error"),
  };
}

/** -32602 with every violation in `data.violations`. */
export function invalidParams(
  message: string,
  violations: readonly { path: string; message: string }[],
): CallOutcome {
  return {
    status: "invalid",
    error: new RpcError(ErrorCode.InvalidParams, message, { violations }),
  };
}
