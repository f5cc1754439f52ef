/**
 * The plain-data facts of one request that the guardrails decide on, built
 * by either front door from what it knows (the session, or the request's
 * own `_meta`).
 *
 * @module
 */

import type { InflightRequest } from "../dispatcher/inflight.ts";
import type { AuthGrant, CallClient, CallContext, Era } from "../call/context.ts";
import type { Mask } from "../call/mask.ts";

/** {@linkcode CallContext} over an in-flight request; the signal is made only if read. */
export class CallFacts implements CallContext {
  readonly principal: string | undefined;
  readonly client: CallClient;
  readonly requestId: string | number;
  readonly _meta: Readonly<Record<string, unknown>> | undefined;
  readonly era: Era;
  readonly continuation: boolean;
  readonly mask: Mask | undefined;
  readonly auth: AuthGrant | undefined;
  readonly #request: InflightRequest;

  constructor(
    principal: string | undefined,
    client: CallClient,
    requestId: string | number,
    request: InflightRequest,
    meta: Readonly<Record<string, unknown>> | undefined,
    era: Era,
    mask: Mask | undefined,
    continuation = false,
    auth: AuthGrant | undefined = undefined,
  ) {
    this.auth = auth;
    this.principal = principal;
    this.client = client;
    this.requestId = requestId;
    this._meta = meta;
    this.era = era;
    this.continuation = continuation;
    this.mask = mask;
    this.#request = request;
  }

  get signal(): AbortSignal {
    return this.#request.signal;
  }

  get aborted(): boolean {
    return this.#request.aborted;
  }

  get cancelledByClient(): boolean {
    return this.#request.cancelledByClient;
  }
}
