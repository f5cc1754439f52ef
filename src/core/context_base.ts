/**
 * What the handler contexts of both eras share: the request's facts, and
 * log and progress notifications tied to the request. Each era adds how it
 * asks the client and where the log level comes from.
 *
 * @module
 */

import type { Mask } from "../call/mask.ts";
import type { InflightRequest } from "../dispatcher/inflight.ts";
import type { JsonRpcId } from "../jsonrpc/messages.ts";
import { isLoggingLevel, type LoggingLevel, passesLevel } from "./logging.ts";

/** What the server lends every context: its one masker. */
export interface ContextServices {
  /**
   * Masks what leaves the server outside a call's result (log data, progress
   * messages, requests to the client, task notices); keeps the value as it
   * is when no guardrail masks.
   */
  readonly mask: Mask;
  /** The same masker as guardrails see it (`CallContext.mask`): undefined when none masks. */
  readonly callMask: Mask | undefined;
}

/** Sends one notification about the request with the given id. */
export type RequestNotifier = (
  method: string,
  params: Record<string, unknown>,
  related: JsonRpcId,
) => void;

/**
 * The shared half of a handler context. A class so that a call allocates
 * one object, not a dozen closures; the abort signal is made only if read.
 */
export abstract class ContextBase {
  readonly requestId: JsonRpcId;
  readonly principal: string | undefined;
  readonly _meta: Readonly<Record<string, unknown>> | undefined;
  readonly progressToken: string | number | undefined;
  protected readonly request: InflightRequest;
  protected readonly services: ContextServices;
  /** Sends a notification about this request. */
  protected readonly notifier: RequestNotifier;
  #lastProgress = -Infinity;

  constructor(
    id: JsonRpcId,
    principal: string | undefined,
    meta: Readonly<Record<string, unknown>> | undefined,
    request: InflightRequest,
    services: ContextServices,
    notify: RequestNotifier,
  ) {
    this.requestId = id;
    this.principal = principal;
    this._meta = meta;
    const token = meta?.progressToken;
    this.progressToken = typeof token === "string" || typeof token === "number" ? token : undefined;
    this.request = request;
    this.services = services;
    this.notifier = notify;
  }

  get signal(): AbortSignal {
    return this.request.signal;
  }

  get aborted(): boolean {
    return this.request.aborted;
  }

  /** The least severe level the client wants now; undefined for no log messages at all. */
  protected abstract minimumLevel(): LoggingLevel | undefined;

  /** A fresh context of the same request (the era decides what it carries). */
  protected abstract copy(): ContextBase;

  /**
   * The same request's context for reading `uri`: a copy that also knows the
   * URI and continues this context's progress.
   */
  forResource(uri: string): this & { readonly uri: string } {
    const context = this.copy();
    context.#lastProgress = this.#lastProgress;
    return Object.assign(context as this, { uri });
  }

  log(level: LoggingLevel, data: unknown, logger?: string): void {
    if (!isLoggingLevel(level)) throw new RangeError(`Unknown logging level: ${String(level)}`);
    const minimum = this.minimumLevel();
    if (minimum === undefined || !passesLevel(level, minimum)) return;
    const message: Record<string, unknown> = { level, data: this.services.mask(data) };
    if (logger !== undefined) message.logger = logger;
    this.notifier("notifications/message", message, this.requestId);
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
    if (message !== undefined) notification.message = this.services.mask(message);
    this.notifier("notifications/progress", notification, this.requestId);
  }
}
