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
  /** How many times {@linkcode abortAll} ran, and with what reason last. */
  #aborts = 0;
  #abortReason: unknown;

  /** Number of requests being handled. */
  get size(): number {
    return this.#requests.size;
  }

  /** Whether a request with `id` is in flight. */
  has(id: JsonRpcId): boolean {
    return this.#requests.has(id);
  }

  /**
   * A new request, for the message being dispatched now; not entered yet. A
   * request answered synchronously is never entered (nothing can cancel it
   * while it runs, and entering and removing it would cost more than its
   * answer): one that turns out to wait is entered with {@linkcode track}.
   */
  create(): InflightRequest {
    return new InflightRequest();
  }

  /** A mark to pass to {@linkcode track}, taken when a request is created. */
  get mark(): number {
    return this.#aborts;
  }

  /**
   * Enters `request`, created when {@linkcode mark} was `since` and now
   * waiting; it is aborted at once if every request was aborted since. The
   * caller has checked with {@linkcode has} that `id` was free, and ran
   * nothing in between that could enter it.
   */
  track(id: JsonRpcId, request: InflightRequest, since: number): void {
    this.#requests.set(id, request);
    if (since !== this.#aborts) request.abort(this.#abortReason);
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
    this.#aborts++;
    this.#abortReason = reason;
    for (const request of this.#requests.values()) request.abort(reason);
  }
}
