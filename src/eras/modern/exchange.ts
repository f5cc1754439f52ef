/**
 * What every modern method shares on its way in and out: the facts its
 * guardrails see, the envelope of its result (`resultType`, the server's
 * identity, cache hints) and the wire error of an outcome that ended in one.
 *
 * @module
 */

import type { MethodContext } from "../../dispatcher/dispatcher.ts";
import { RpcError } from "../../jsonrpc/errors.ts";
import { isRecord } from "../../jsonrpc/messages.ts";
import type { AuthGrant, CallKind } from "../../call/context.ts";
import { isMasked, markMasked, type Mask } from "../../call/mask.ts";
import { type CallOutcome, sentErrorCode } from "../../call/outcome.ts";
import { CallFacts } from "../../core/call_facts.ts";
import type { Implementation } from "../../core/lifecycle.ts";
import type { McpSession } from "../../core/session.ts";
import type { CacheHints } from "./caching.ts";
import { META_KEYS, type RequestMeta } from "./meta.ts";

/**
 * The facts guardrails see for a modern request: the caller as its `_meta`
 * describes it. `continuation` marks a call that carries on an earlier one
 * (a retry with input, or a tasks method), which the rate limiter need not
 * charge again. `mask` is the server's masker, as guardrails see it;
 * `grant` the request's authorization, when the caller has looked it up.
 */
export function modernFacts(
  request: MethodContext<McpSession>,
  meta: RequestMeta,
  mask: Mask | undefined,
  continuation: boolean,
  grant: AuthGrant | undefined = request.session.grantOf(request.request),
): CallFacts {
  return new CallFacts(
    request.session.principal,
    meta.client,
    request.id,
    request.request,
    meta.raw,
    "modern",
    mask,
    continuation,
    grant,
  );
}

/**
 * Every modern result: `resultType` ("complete" unless the result says
 * otherwise), the cache hints when given, and the server's identity in
 * `_meta`.
 */
export function modernResult(
  serverInfo: Readonly<Implementation>,
  result: Record<string, unknown>,
  hints?: CacheHints,
): Record<string, unknown> {
  const done: Record<string, unknown> = {
    ...result,
    resultType: result.resultType ?? "complete",
  };
  if (hints !== undefined) {
    done.ttlMs = hints.ttlMs;
    done.cacheScope = hints.cacheScope;
  }
  // Most results carry no `_meta`: then there is nothing to copy into the new one.
  done._meta = isRecord(result._meta)
    ? { ...result._meta, [META_KEYS.serverInfo]: serverInfo }
    : { [META_KEYS.serverInfo]: serverInfo };
  return done;
}

/**
 * The modern wire error for an error outcome, as the step that ended the
 * call decided. An error that passed the redaction step keeps that mark, so
 * the server's last step does not mask it twice; the URI it adds to a
 * resource not found is masked there, like every error it sends.
 */
export function modernError(
  outcome: Extract<CallOutcome, { error: RpcError }>,
  kind: CallKind,
  name: string,
): RpcError {
  const { error } = outcome;
  const code = sentErrorCode(outcome, "modern");
  if (outcome.status === "not_found") {
    return kind === "resource"
      ? new RpcError(code, "Resource not found", { uri: name })
      : keepMark(error, new RpcError(code, error.message));
  }
  return code === error.code
    ? error
    : keepMark(error, new RpcError(code, error.message, error.data));
}

/** `next`, marked masked when `previous` was. */
function keepMark(previous: RpcError, next: RpcError): RpcError {
  return isMasked(previous) ? markMasked(next) : next;
}
