/**
 * How a front door reads a guarded call from a request's params: its name
 * (a resource's URI put in canonical form where it enters) and arguments,
 * with what is malformed kept as the call's problem so the audit still sees it.
 *
 * @module
 */

import { invalidParamsError, type RpcError } from "../jsonrpc/errors.ts";
import { isRecord, type JsonRpcParams } from "../jsonrpc/messages.ts";
import type { CallContext, CallKind, GuardedCall } from "../call/context.ts";
import { canonicalUri } from "./canonical_uri.ts";

/** The parts of a guarded request a front door parsed. */
export interface ParsedCall {
  /** The call as guardrails see it. */
  readonly call: GuardedCall;
  /** Why the request is malformed; the pipeline still runs, so the audit sees it. */
  readonly problem: RpcError | undefined;
}

/**
 * Reads a guarded call's name and arguments from `params`. A resource URI is
 * put in canonical form here, where it enters, so that every guardrail and
 * the handler see one name; one that has no canonical form is a problem
 * (-32602 in both eras), and the call keeps the URI as sent for the audit.
 */
export function parseCall(
  kind: CallKind,
  method: string,
  params: JsonRpcParams,
  context: CallContext,
): ParsedCall {
  const nameKey = kind === "resource" ? "uri" : "name";
  const name = params[nameKey];
  const args = kind === "resource" ? {} : params.arguments ?? {};
  const call: GuardedCall = {
    kind,
    method,
    name: typeof name === "string" ? name : "",
    arguments: isRecord(args) ? args : {},
    context,
  };
  if (typeof name !== "string") {
    return { call, problem: invalidParamsError(`${nameKey} must be a string`) };
  }
  if (!isRecord(args)) return { call, problem: invalidParamsError("arguments must be an object") };
  return kind === "resource" ? withCanonicalUri(call, name, false) : { call, problem: undefined };
}

/** `call` named by the canonical form of `uri`, or with the reason it has none as its problem. */
export function withCanonicalUri(call: GuardedCall, uri: string, template: boolean): ParsedCall {
  const canonical = canonicalUri(uri, template);
  if (typeof canonical !== "string") {
    return { call, problem: invalidParamsError(`uri ${canonical.refused}`) };
  }
  if (canonical === uri) return { call, problem: undefined };
  return { call: { ...call, name: canonical, sentName: uri }, problem: undefined };
}
