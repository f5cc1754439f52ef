/**
 * Builds the context a handler receives: request facts plus the ways back to
 * the client (log, progress, sampling, elicitation, roots), all bound to the
 * request so that aborting it also cancels what it asked of the client.
 *
 * @module
 */

import { isRecord } from "../../jsonrpc/messages.ts";
import type { InflightRequest } from "../../dispatcher/inflight.ts";
import type { JsonRpcId, JsonRpcParams } from "../../jsonrpc/messages.ts";
import { elicit, elicitUrl, listRoots, sample } from "./client_requests.ts";
import type { Root, SamplingRequest, SamplingResult, UrlElicitation } from "./client_requests.ts";
import type { ElicitResult, ElicitSchema } from "../../core/elicitation_forms.ts";
import type {
  ClientDescription,
  ClientRequestOptions,
  ElicitUrlOptions,
  RequestContext,
} from "../../core/context.ts";
import type { ResourceContext } from "../../core/resources.ts";
import { UNNEGOTIATED_PROTOCOL_VERSION } from "../../core/lifecycle.ts";
import {
  LOGGING_LEVELS,
  type LoggingLevel,
  type McpSession,
  type OutboundRequestOptions,
} from "./session.ts";

/** What the server lends every context. */
export interface ContextServices {
  /** Masks data leaving the server outside a call's result (log data, progress messages). */
  readonly outgoing: <T>(value: T) => T;
}

function severity(level: LoggingLevel): number {
  return LOGGING_LEVELS.indexOf(level);
}

/**
 * The context of one request. A class so that a call allocates one object,
 * not a dozen closures; the abort signal is made only if someone asks.
 */
export class HandlerContext implements RequestContext {
  readonly requestId: JsonRpcId;
  readonly principal: string | undefined;
  readonly _meta: Readonly<Record<string, unknown>> | undefined;
  readonly progressToken: string | number | undefined;
  readonly #session: McpSession;
  readonly #request: InflightRequest;
  readonly #services: ContextServices;
  #lastProgress = -Infinity;

  constructor(
    id: JsonRpcId,
    meta: Readonly<Record<string, unknown>> | undefined,
    session: McpSession,
    request: InflightRequest,
    services: ContextServices,
  ) {
    this.requestId = id;
    this.principal = session.principal;
    this._meta = meta;
    const token = meta?.progressToken;
    this.progressToken = typeof token === "string" || typeof token === "number" ? token : undefined;
    this.#session = session;
    this.#request = request;
    this.#services = services;
  }

  get signal(): AbortSignal {
    return this.#request.signal;
  }

  get aborted(): boolean {
    return this.#request.aborted;
  }

  get client(): ClientDescription {
    const session = this.#session;
    return {
      info: session.clientInfo,
      capabilities: session.clientCapabilities,
      protocolVersion: session.protocolVersion ?? UNNEGOTIATED_PROTOCOL_VERSION,
    };
  }

  /** The same request's context for reading `uri`. */
  forResource(uri: string): ResourceContext {
    const context = new HandlerContext(
      this.requestId,
      this._meta,
      this.#session,
      this.#request,
      this.#services,
    );
    context.#lastProgress = this.#lastProgress;
    return Object.assign(context, { uri });
  }

  log(level: LoggingLevel, data: unknown, logger?: string): void {
    if (severity(level) < 0) throw new RangeError(`Unknown logging level: ${String(level)}`);
    if (severity(level) < severity(this.#session.logLevel)) return;
    const message: Record<string, unknown> = { level, data: this.#services.outgoing(data) };
    if (logger !== undefined) message.logger = logger;
    this.#session.notify("notifications/message", message, this.requestId);
  }

  progress(progress: number, total?: number, message?: string): void {
    if (!Number.isFinite(progress) || progress <= this.#lastProgress) {
      throw new RangeError(
        `Progress must increase: got ${progress} after ${
          this.#lastProgress === -Infinity ? "nothing" : this.#lastProgress
        }`,
      );
    }
    this.#lastProgress = progress;
    if (this.progressToken === undefined) return;
    const notification: Record<string, unknown> = { progressToken: this.progressToken, progress };
    if (total !== undefined) notification.total = total;
    if (message !== undefined) notification.message = this.#services.outgoing(message);
    this.#session.notify("notifications/progress", notification, this.requestId);
  }

  sample(request: SamplingRequest, options?: ClientRequestOptions): Promise<SamplingResult> {
    // Everything the client's model reads passes the redactor.
    return sample(this.#session, this.#services.outgoing(request), this.#outbound(options));
  }

  elicit<const S extends ElicitSchema>(
    message: string,
    requestedSchema: S,
    options?: ClientRequestOptions,
  ): Promise<ElicitResult<S>> {
    return elicit(
      this.#session,
      this.#services.outgoing(message),
      requestedSchema,
      this.#outbound(options),
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
    return elicitUrl(
      this.#session,
      this.#services.outgoing(message),
      request,
      this.#outbound(rest),
    );
  }

  roots(options?: ClientRequestOptions): Promise<Root[]> {
    return listRoots(this.#session, this.#outbound(options));
  }

  closeStream(): void {
    this.#session.closeStream(this.requestId);
  }

  #outbound(options: ClientRequestOptions = {}): OutboundRequestOptions {
    const signal = options.signal === undefined
      ? this.#request.signal
      : AbortSignal.any([this.#request.signal, options.signal]);
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
