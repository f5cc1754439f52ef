/**
 * The audit of authorization refusals: a request the endpoint answers 401,
 * 403, 400 or 503 for its credentials never reaches a front door, yet an
 * operator must see it. Each becomes an entry through the same recorder as
 * the other refusals made before dispatch: the method and name its body
 * gives, the principal when one was proven, and in place of the arguments
 * the refusal's facts (status, RFC error, reason). The token and the DPoP
 * proof are never part of them.
 *
 * @module
 */

import { refusalFacts } from "../auth/challenge.ts";
import { ErrorCode } from "../jsonrpc/errors.ts";
import { isRecord } from "../jsonrpc/messages.ts";
import type { Endpoint } from "./endpoint.ts";
import type { HttpProtocolSession } from "./options.ts";
import { BodyReader } from "./body.ts";

/**
 * How much of a refused body is read to name its method: a caller without
 * credentials must not hold a connection or memory for long on our account.
 */
const REFUSED_BODY = new BodyReader({ maxBytes: 64 * 1024, timeoutMs: 2000 });

/** Stands in for a request whose body names no message (a GET, a DELETE, bad JSON). */
const NO_MESSAGE: Readonly<Record<string, unknown>> = Object.freeze({});

/** The entry's outcome for an HTTP status. */
function statusOf(status: number): "denied" | "invalid" | "internal_error" {
  if (status === 503) return "internal_error";
  return status === 400 ? "invalid" : "denied";
}

/** The messages a body names (requests and notifications), or one stand-in. */
function messagesIn(value: unknown): readonly Readonly<Record<string, unknown>>[] {
  const messages = (Array.isArray(value) ? value : [value]).filter((message) =>
    isRecord(message) && typeof message.method === "string"
  );
  return messages.length === 0 ? [NO_MESSAGE] : messages;
}

/** The body of a refused POST as parsed JSON, read within tight bounds; undefined otherwise. */
async function refusedBody(request: Request): Promise<unknown> {
  if (request.method !== "POST" || request.bodyUsed) return undefined;
  const text = await REFUSED_BODY.read(request);
  if (typeof text !== "string") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The reason of a 403 for a legacy session opened by another principal. */
export const OTHER_PRINCIPAL = "session_of_another_principal";

/**
 * Whether `response` (from `sessionOf`) refuses a session that belongs to
 * another principal: an authorization refusal the audit records.
 */
export function isOtherPrincipal<S extends HttpProtocolSession>(
  endpoint: Endpoint<S>,
  response: Response,
): boolean {
  return endpoint.authenticates && response.status === 403;
}

/**
 * Records the authorization refusal `response` of `request`: one entry per
 * message its body names (read here when `value` is not given), or one for
 * the request. `principal` is the caller when authentication proved one;
 * `reason` names a refusal the resource server did not make. Never rejects.
 */
export async function auditAuthRefusal<S extends HttpProtocolSession>(
  endpoint: Endpoint<S>,
  request: Request,
  response: Response,
  principal: string | undefined,
  value?: unknown,
  reason?: string,
): Promise<void> {
  const facts = refusalFacts(response);
  const body = value === undefined ? await refusedBody(request).catch(() => undefined) : value;
  const record = {
    status: statusOf(facts.status),
    facts: {
      auth: {
        http_status: facts.status,
        error: facts.error,
        reason: reason ?? facts.reason,
        http_method: request.method,
      },
    },
  };
  const error = { code: ErrorCode.InvalidRequest, message: `HTTP ${facts.status}` };
  for (const message of messagesIn(body)) {
    // Era "legacy": the refusal is the transport's, before any era, and its body carries
    // -32600 in both; the legacy mapping keeps the audit's error_code equal to it.
    await endpoint.host.refused(message, principal ?? facts.principal, error, "legacy", record);
  }
}
