/**
 * Turning what a handler threw into a call outcome, shared by tools,
 * resources and prompts.
 *
 * @module
 */

import { ErrorCode, quote, RpcError } from "../jsonrpc/errors.ts";
import type { CallOutcome } from "../call/outcome.ts";
import type { Mask } from "../call/mask.ts";
import { InputRequiredError } from "./ask_errors.ts";

/**
 * The outcome of an `RpcError` a handler threw itself. Its status is
 * "error" whatever the code: a handler throwing -32001 did not pass through
 * the access policy, and the audit log must not say it did.
 */
export function errorOutcome(error: RpcError): CallOutcome {
  return { status: "error", error };
}

/**
 * The placeholder outcome of a handler that stopped at an unanswered ask;
 * the modern front door replaces it with the `InputRequiredResult`.
 */
export function inputRequiredOutcome(): CallOutcome {
  return { status: "input_required", result: {} };
}

/**
 * The outcome of a call the client cancelled or the server abandoned at
 * shutdown. Its -32603 is sent only in the second case (the context's
 * `cancelledByClient` tells which).
 */
export function cancelledOutcome(): CallOutcome {
  return { status: "cancelled", error: new RpcError(ErrorCode.InternalError, "Request cancelled") };
}

/**
 * Tells the operator that a handler threw: one line naming what failed,
 * then the stack (the server's log drops stack lines when `logStacks` is
 * off). The log masks it, as every diagnostic.
 */
export function logThrown(log: (message: string) => void, what: string, error: unknown): void {
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  log(`warden: ${what} failed: ${detail}`);
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
  if (error instanceof InputRequiredError) return inputRequiredOutcome();
  if (error instanceof RpcError) return errorOutcome(error);
  logThrown(log, what, error);
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

/**
 * The outcome for an item that does not exist: -32601 in the legacy era (as
 * Warden's protocol contract says; -32002 is its rate limit there); the
 * modern front door answers -32602 for it, with `data.uri` for a resource.
 * `mask` (the call's) masks a name too long to be echoed whole before it is cut.
 */
export function notFound(kind: string, name: string, mask?: Mask): CallOutcome {
  return {
    status: "not_found",
    error: new RpcError(ErrorCode.MethodNotFound, `Unknown ${kind}: ${quote(name, 80, mask)}`),
  };
}
