/**
 * The audit of requests refused before dispatch: a POST whose headers
 * disagree with its body (or name a revision not served) never reaches a
 * front door, yet an operator must see it. It crosses the audit-stage
 * guardrails alone (the audit log, telemetry), as an "invalid" call with
 * the code the client is sent: no access decision is made and no
 * rate-limit token is spent on a request that did nothing.
 *
 * @module
 */

import { composePipeline, type Pipeline } from "../call/compose.ts";
import type { CallContext, CallKind, Era, GuardedCall } from "../call/context.ts";
import type { Guardrail } from "../call/guardrail.ts";
import type { Mask } from "../call/mask.ts";
import type { CallOutcome } from "../call/outcome.ts";
import { RpcError } from "../jsonrpc/errors.ts";
import { isRecord } from "../jsonrpc/messages.ts";
import { canonicalUri } from "../core/canonical_uri.ts";
import { META_KEYS } from "../eras/modern/meta.ts";
import { NAME_SOURCES } from "../http/modern_headers.ts";

/** The longest method name an entry keeps of a refused request (it is the client's text). */
const MAX_METHOD = 80;

/** A signal that never aborts: a refused request has nothing in flight. */
const NEVER = new AbortController().signal;

/** What a refusal is recorded with. */
export interface RefusalDeps {
  /** The server's guardrails, in pipeline order. */
  readonly guardrails: readonly Guardrail[];
  /** The principal of a request whose endpoint authenticates nobody. */
  readonly principal: string | undefined;
  /** The server's masker as guardrails see it. */
  readonly callMask: Mask | undefined;
  /** The server's masker. */
  readonly mask: Mask;
  /** Diagnostics. */
  readonly log: (message: string) => void;
}

/**
 * How an authorization refusal is recorded: its outcome, and what the entry
 * keeps in place of the call's arguments (the refusal's facts, never the
 * token). Undefined for the other refusals ("invalid", arguments kept).
 */
export interface RefusalRecord {
  /** The entry's outcome. */
  readonly status: "denied" | "invalid" | "internal_error";
  /** The entry's `arguments`. */
  readonly facts: Readonly<Record<string, unknown>>;
}

/** The item kind a method acts on, as the audit names it. */
function kindOf(method: string, params: Readonly<Record<string, unknown>>): CallKind {
  if (method.startsWith("prompts/")) return "prompt";
  if (method.startsWith("resources/")) return "resource";
  if (method === "completion/complete" && isRecord(params.ref)) {
    return params.ref.type === "ref/prompt" ? "prompt" : "resource";
  }
  return "tool";
}

/** The facts of a refused request: the caller as its `_meta` describes it. */
function refusedContext(
  deps: RefusalDeps,
  requestId: string | number,
  principal: string | undefined,
  meta: Readonly<Record<string, unknown>> | undefined,
  era: Era,
): CallContext {
  const info = meta?.[META_KEYS.clientInfo];
  const capabilities = meta?.[META_KEYS.clientCapabilities];
  const version = meta?.[META_KEYS.protocolVersion];
  return {
    principal,
    client: {
      info: isRecord(info) && typeof info.name === "string" && typeof info.version === "string"
        ? { name: info.name, version: info.version }
        : undefined,
      capabilities: isRecord(capabilities) ? capabilities : {},
      protocolVersion: typeof version === "string" ? version : "",
    },
    requestId,
    signal: NEVER,
    aborted: false,
    cancelledByClient: false,
    _meta: meta,
    era,
    continuation: false,
    mask: deps.callMask,
  };
}

/**
 * The name an entry records: a resource's URI in the canonical form every
 * other entry uses (issue 22), or as sent when it has none; "" without one.
 */
function entryName(kind: CallKind, name: unknown): string {
  if (typeof name !== "string") return "";
  if (kind !== "resource") return name;
  const canonical = canonicalUri(name, false);
  return typeof canonical === "string" ? canonical : name;
}

/** The call a refused request would have been, as far as its body says. */
export function refusedCall(
  deps: RefusalDeps,
  message: Readonly<Record<string, unknown>>,
  principal: string | undefined,
  era: Era,
  facts?: Readonly<Record<string, unknown>>,
): GuardedCall {
  const params = isRecord(message.params) ? message.params : {};
  const method = typeof message.method === "string" ? message.method : "";
  const nameKey = NAME_SOURCES.get(method);
  const name = nameKey === undefined ? undefined : params[nameKey];
  const requestId = typeof message.id === "string" || typeof message.id === "number"
    ? message.id
    : "";
  const kind = kindOf(method, params);
  return {
    kind,
    // The audit masks the name and arguments; the method is the client's text too.
    method: deps.mask(method).slice(0, MAX_METHOD),
    name: entryName(kind, name),
    arguments: facts ?? (isRecord(params.arguments) ? params.arguments : {}),
    context: refusedContext(
      deps,
      requestId,
      // An authorization refusal names whom it proved, or nobody: the server's default principal
      // (stdio's) would attribute an anonymous 401 to the operator.
      facts === undefined ? principal ?? deps.principal : principal,
      isRecord(params._meta) ? params._meta : undefined,
      era,
    ),
  };
}

/**
 * The recorder of refusals for a server: runs each refused request through
 * its audit-stage guardrails, ending in the refusal. Never rejects.
 */
export function refusalRecorder(
  deps: RefusalDeps,
): (
  message: Readonly<Record<string, unknown>>,
  principal: string | undefined,
  error: { readonly code: number; readonly message: string },
  era: Era,
  record?: RefusalRecord,
) => Promise<void> {
  const auditing = deps.guardrails.filter((guardrail) => guardrail.stage === "audit");
  if (auditing.length === 0) return () => Promise.resolve();
  const pipeline: Pipeline = composePipeline(auditing);
  return async (message, principal, error, era, record) => {
    const outcome: CallOutcome = {
      status: record?.status ?? "invalid",
      error: new RpcError(error.code, error.message),
    };
    const call = refusedCall(deps, message, principal, era, record?.facts);
    try {
      await pipeline(call, () => Promise.resolve(outcome));
    } catch (failure) {
      const detail = failure instanceof Error ? failure.message : String(failure);
      deps.log(`warden: recording a refused request failed: ${detail}`);
    }
  };
}
