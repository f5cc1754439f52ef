/**
 * The legacy era's way to ask the client: each ask is sent as a server →
 * client request on the session and its answer checked on return.
 *
 * @module
 */

import {
  type ClientAsk,
  elicitAsk,
  type Root,
  rootsAsk,
  samplingAsk,
  type SamplingRequest,
  type SamplingResult,
  urlElicitAsk,
  type UrlElicitation,
  type UrlElicitationRequest,
} from "../../core/client_asks.ts";
import type { ElicitResult, ElicitSchema } from "../../core/elicitation_forms.ts";
import { UNNEGOTIATED_PROTOCOL_VERSION } from "../../core/lifecycle.ts";
import type { McpSession, OutboundRequestOptions } from "../../core/session.ts";

async function send<T>(
  session: McpSession,
  ask: ClientAsk<T>,
  options: OutboundRequestOptions,
): Promise<T> {
  return ask.parse(await session.request(ask.method, ask.params, options));
}

function versionOf(session: McpSession): string {
  return session.protocolVersion ?? UNNEGOTIATED_PROTOCOL_VERSION;
}

/** Sends `sampling/createMessage` and checks the shape of the answer. */
export async function sample(
  session: McpSession,
  request: SamplingRequest,
  options: OutboundRequestOptions,
): Promise<SamplingResult> {
  return await send(session, samplingAsk(session.clientCapabilities, request), options);
}

/** Sends `elicitation/create` for a form and validates an accepted answer against it. */
export async function elicit<S extends ElicitSchema>(
  session: McpSession,
  message: string,
  requestedSchema: S,
  options: OutboundRequestOptions,
): Promise<ElicitResult<S>> {
  const ask = elicitAsk(session.clientCapabilities, versionOf(session), message, requestedSchema);
  return await send(session, ask, options);
}

/** Sends a URL-mode `elicitation/create` (revision 2025-11-25). */
export async function elicitUrl(
  session: McpSession,
  message: string,
  request: UrlElicitationRequest,
  options: OutboundRequestOptions,
): Promise<UrlElicitation> {
  const ask = urlElicitAsk(session.clientCapabilities, versionOf(session), message, request, true);
  const action = await send(session, ask, options);
  const { elicitationId } = ask;
  let completed = false;
  return {
    action,
    elicitationId,
    complete() {
      if (completed) return;
      completed = true;
      // Not tied to the call that asked: the flow usually ends after it has returned.
      session.notify("notifications/elicitation/complete", { elicitationId });
    },
  };
}

/** Sends `roots/list` and checks the answer. */
export async function listRoots(
  session: McpSession,
  options: OutboundRequestOptions,
): Promise<Root[]> {
  return await send(session, rootsAsk(session.clientCapabilities), options);
}
