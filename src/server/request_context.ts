/**
 * Builds the context a handler receives: request facts plus the ways back to
 * the client (log, progress, sampling, elicitation, roots), all bound to the
 * request so that aborting it also cancels what it asked of the client.
 *
 * @module
 */

import type { InflightRequest } from "../dispatcher/inflight.ts";
import type { JsonRpcId, JsonRpcParams } from "../jsonrpc/messages.ts";
import { elicit, elicitUrl, listRoots, sample } from "./client_requests.ts";
import type { ClientRequestOptions, RequestContext } from "./context.ts";
import { UNNEGOTIATED_PROTOCOL_VERSION } from "./lifecycle.ts";
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

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function severity(level: LoggingLevel): number {
  return LOGGING_LEVELS.indexOf(level);
}

/** Builds the context for one request; the abort signal is made only if someone asks. */
export function createRequestContext(
  id: JsonRpcId,
  params: JsonRpcParams,
  session: McpSession,
  request: InflightRequest,
  services: ContextServices,
): RequestContext {
  const meta = isRecord(params._meta) ? params._meta : undefined;
  const token = meta?.progressToken;
  const progressToken = typeof token === "string" || typeof token === "number" ? token : undefined;
  let lastProgress = -Infinity;
  const outbound = (options: ClientRequestOptions = {}): OutboundRequestOptions => {
    const signal = options.signal === undefined
      ? request.signal
      : AbortSignal.any([request.signal, options.signal]);
    const result: OutboundRequestOptions = { signal, related: id };
    if (options.timeoutMs !== undefined) result.timeoutMs = options.timeoutMs;
    return result;
  };
  return {
    get signal() {
      return request.signal;
    },
    requestId: id,
    client: {
      info: session.clientInfo,
      capabilities: session.clientCapabilities,
      protocolVersion: session.protocolVersion ?? UNNEGOTIATED_PROTOCOL_VERSION,
    },
    principal: session.principal,
    _meta: meta,
    progressToken,
    log(level, data, logger) {
      if (severity(level) < 0) throw new RangeError(`Unknown logging level: ${String(level)}`);
      if (severity(level) < severity(session.logLevel)) return;
      const message: Record<string, unknown> = { level, data: services.outgoing(data) };
      if (logger !== undefined) message.logger = logger;
      session.notify("notifications/message", message, id);
    },
    progress(progress, total, message) {
      if (!Number.isFinite(progress) || progress <= lastProgress) {
        throw new RangeError(
          `Progress must increase: got ${progress} after ${
            lastProgress === -Infinity ? "nothing" : lastProgress
          }`,
        );
      }
      lastProgress = progress;
      if (progressToken === undefined) return;
      const notification: Record<string, unknown> = { progressToken, progress };
      if (total !== undefined) notification.total = total;
      if (message !== undefined) notification.message = services.outgoing(message);
      session.notify("notifications/progress", notification, id);
    },
    sample(samplingRequest, options) {
      // Everything the client's model reads passes the redactor.
      const masked = services.outgoing(samplingRequest);
      return sample(session, masked, outbound(options));
    },
    elicit(message, requestedSchema, options) {
      return elicit(session, services.outgoing(message), requestedSchema, outbound(options));
    },
    elicitUrl(message, url, options = {}) {
      const { elicitationId, ...rest } = options;
      // The URL is left as it is: masking any part of it would break the link.
      const request = elicitationId === undefined ? { url } : { url, elicitationId };
      return elicitUrl(session, services.outgoing(message), request, outbound(rest));
    },
    roots(options) {
      return listRoots(session, outbound(options));
    },
    closeStream() {
      session.closeStream(id);
    },
  };
}
