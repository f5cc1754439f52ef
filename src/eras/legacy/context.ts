/**
 * The handler context on a legacy session: request facts plus the ways back
 * to the client (log, progress, sampling, elicitation, roots), all bound to
 * the request so that aborting it also cancels what it asked of the client.
 *
 * @module
 */

import { isRecord } from "../../jsonrpc/messages.ts";
import type { MethodContext } from "../../dispatcher/dispatcher.ts";
import type { InflightRequest } from "../../dispatcher/inflight.ts";
import type { JsonRpcId, JsonRpcParams } from "../../jsonrpc/messages.ts";
import type {
  Root,
  SamplingRequest,
  SamplingResult,
  UrlElicitation,
} from "../../core/client_asks.ts";
import type {
  ClientDescription,
  ClientRequestOptions,
  ElicitUrlOptions,
  RequestContext,
} from "../../core/context.ts";
import { CallFacts } from "../../core/call_facts.ts";
import { ContextBase, type ContextServices } from "../../core/context_base.ts";
import type { Mask } from "../../call/mask.ts";
import type { ElicitResult, ElicitSchema } from "../../core/elicitation_forms.ts";
import { UNNEGOTIATED_PROTOCOL_VERSION } from "../../core/lifecycle.ts";
import type { LoggingLevel } from "../../core/logging.ts";
import { withClientRequests } from "./ask_client.ts";
import type { McpSession, OutboundRequestOptions } from "../../core/session.ts";

export type { ContextServices };

/** The context of one request on a legacy session. */
export class HandlerContext extends ContextBase implements RequestContext {
  /** The grant of the token this request came with (its own, whatever came after it). */
  readonly auth: McpSession["auth"];
  readonly #session: McpSession;
  #client: ClientDescription | undefined;

  constructor(
    id: JsonRpcId,
    meta: Readonly<Record<string, unknown>> | undefined,
    session: McpSession,
    request: InflightRequest,
    services: ContextServices,
  ) {
    super(
      id,
      session.principal,
      meta,
      request,
      services,
      (method, params, related) => session.notify(method, params, related),
    );
    this.#session = session;
    this.auth = session.grantOf(request);
  }

  get client(): ClientDescription {
    // Made once per request, when first asked: the session's description does not change under it.
    if (this.#client !== undefined) return this.#client;
    const session = this.#session;
    this.#client = {
      info: session.clientInfo,
      capabilities: session.clientCapabilities,
      protocolVersion: session.protocolVersion ?? UNNEGOTIATED_PROTOCOL_VERSION,
    };
    return this.#client;
  }

  protected minimumLevel(): LoggingLevel {
    return this.#session.logLevel;
  }

  protected copy(): HandlerContext {
    return new HandlerContext(
      this.requestId,
      this._meta,
      this.#session,
      this.request,
      this.services,
    );
  }

  sample(request: SamplingRequest, options?: ClientRequestOptions): Promise<SamplingResult> {
    // Everything the client's model reads passes the redactor.
    const masked = this.services.mask(request);
    const outbound = this.#outbound(options);
    return withClientRequests((asks) => asks.sample(this.#session, masked, outbound));
  }

  elicit<const S extends ElicitSchema>(
    message: string,
    requestedSchema: S,
    options?: ClientRequestOptions,
  ): Promise<ElicitResult<S>> {
    const masked = this.services.mask(message);
    const outbound = this.#outbound(options);
    return withClientRequests((asks) =>
      asks.elicit(this.#session, masked, requestedSchema, outbound)
    );
  }

  elicitUrl(
    message: string,
    url: string | ((elicitationId: string) => string),
    options: ElicitUrlOptions = {},
  ): Promise<UrlElicitation> {
    const { elicitationId, ...rest } = options;
    // The URL is left as it is: masking any part of it would break the link.
    const request = elicitationId === undefined ? { url } : { url, elicitationId };
    const masked = this.services.mask(message);
    const outbound = this.#outbound(rest);
    return withClientRequests((asks) => asks.elicitUrl(this.#session, masked, request, outbound));
  }

  roots(options?: ClientRequestOptions): Promise<Root[]> {
    const outbound = this.#outbound(options);
    return withClientRequests((asks) => asks.listRoots(this.#session, outbound));
  }

  closeStream(): void {
    this.#session.closeStream(this.requestId);
  }

  #outbound(options: ClientRequestOptions = {}): OutboundRequestOptions {
    const signal = options.signal === undefined
      ? this.request.signal
      : AbortSignal.any([this.request.signal, options.signal]);
    const result: OutboundRequestOptions = { signal, related: this.requestId };
    if (options.timeoutMs !== undefined) result.timeoutMs = options.timeoutMs;
    return result;
  }
}

/** Builds the context for one request. */
export function createRequestContext(
  id: JsonRpcId,
  params: JsonRpcParams,
  session: McpSession,
  request: InflightRequest,
  services: ContextServices,
): HandlerContext {
  return new HandlerContext(
    id,
    isRecord(params._meta) ? params._meta : undefined,
    session,
    request,
    services,
  );
}

/**
 * The facts guardrails see for a request on a legacy session: what its
 * handler context knows (principal, client, `_meta`, the grant), with `mask`.
 */
export function legacyFacts(
  context: HandlerContext,
  { id, request }: MethodContext<McpSession>,
  mask: Mask | undefined,
): CallFacts {
  return new CallFacts(
    context.principal,
    context.client,
    id,
    request,
    context._meta,
    "legacy",
    mask,
    false,
    context.auth,
  );
}
