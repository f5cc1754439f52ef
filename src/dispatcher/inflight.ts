/**
 * The requests a session is working on, so a `notifications/cancelled` or a
 * shutdown can reach their handlers.
 *
 * @module
 */

import type { JsonRpcId } from "../jsonrpc/messages.ts";

/**
 * One request in flight. Its `AbortController` is made only when a handler
 * asks for the signal: most calls never look, and the hot path stays free of
 * that allocation.
 */
export class InflightRequest {
  #controller: AbortController | undefined;
  #reason: unknown;
  #aborted = false;
  /** True when the client cancelled it: its reply must not be sent. */
  cancelledByClient = false;

  /** Aborted on cancellation or shutdown. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** Whether abort() was called. */
  get aborted(): boolean {
    return this.#aborted;
  }

  /** Aborts the signal (now, or when it is first asked for). */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }
}

/** The in-flight requests of one session, by id. */
export class InflightTable {
  readonly #requests = new Map<JsonRpcId, InflightRequest>();

  /** Number of requests being handled. */
  get size(): number {
    return this.#requests.size;
  }

  /** Registers a request; undefined when that id is already in flight. */
  begin(id: JsonRpcId): InflightRequest | undefined {
    if (this.#requests.has(id)) return undefined;
    const request = new InflightRequest();
    this.#requests.set(id, request);
    return request;
  }

  /** Forgets a finished request. */
  end(id: JsonRpcId, request: InflightRequest): void {
    if (this.#requests.get(id) === request) this.#requests.delete(id);
  }

  /** Cancels one request on the client's behalf; false when it is not in flight. */
  cancel(id: JsonRpcId, reason: unknown): boolean {
    const request = this.#requests.get(id);
    if (request === undefined) return false;
    request.cancelledByClient = true;
    request.abort(reason);
    return true;
  }

  /** Aborts every request, for shutdown. */
  abortAll(reason: unknown): void {
    for (const request of this.#requests.values()) request.abort(reason);
  }
}
