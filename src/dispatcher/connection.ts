/**
 * Runs one session over a transport: parse each frame, dispatch it without
 * waiting for earlier ones, and write replies through the single writer so
 * frames never interleave.
 *
 * @module
 */

import type { JsonRpcMessage, JsonRpcResponse } from "../jsonrpc/messages.ts";
import { takeFrameBatches, type Transport } from "../transports/transport.ts";
import {
  type Dispatcher,
  type DispatchReply,
  type DispatchSession,
  errorReply,
} from "./dispatcher.ts";

/** How a connection behaves at its edges. */
export interface ConnectionOptions {
  /** Where diagnostics go. */
  log: (message: string) => void;
  /** How long in-flight requests may run after EOF before they are aborted. */
  shutdownGraceMs: number;
  /** Aborting it ends the connection as if the peer had gone. */
  signal?: AbortSignal;
  /** Receives the function that sends a message to the peer, once the writer is ready. */
  onOpen?: (send: (message: JsonRpcMessage | JsonRpcResponse[]) => void) => void;
  /**
   * Called once the peer's input has ended, before in-flight requests get
   * their grace period: long-lived requests (subscriptions) end here, so
   * they do not hold the connection open for the whole grace period.
   */
  onInputEnd?: () => void;
}

function serialize(
  message: JsonRpcMessage | JsonRpcResponse[],
  log: (message: string) => void,
): string {
  try {
    return JSON.stringify(message);
  } catch (error) {
    // A result that cannot be encoded (a BigInt, a cycle) must not kill the stream.
    const id = !Array.isArray(message) && "id" in message ? message.id : null;
    return JSON.stringify(errorReply(id, error, "serialising a reply", log));
  }
}

/** How long aborted handlers get to settle before the session closes without them. */
const ABORT_WAIT_MS = 1000;

async function settleWithin(pending: ReadonlySet<Promise<unknown>>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([Promise.allSettled(pending), timeout]);
  clearTimeout(timer);
}

/**
 * Serves `session` over `transport` until the peer closes its side (or the
 * signal aborts), then waits for in-flight requests (up to the grace period,
 * after which they are aborted), flushes and closes the writable side.
 */
export async function runConnection<S extends DispatchSession>(
  transport: Transport,
  dispatcher: Dispatcher<S>,
  session: S,
  options: ConnectionOptions,
): Promise<void> {
  const { log } = options;
  const writer = transport.writable.getWriter();
  let writable = true;
  // Replies finished while other requests are still running wait in the
  // outbox until the current macrotask ends, then go out as one chunk: under
  // load that is one write for many replies; a lone request is answered at
  // once.
  const outbox: string[] = [];
  let flushTimer: ReturnType<typeof setTimeout> | undefined;
  const flush = (): void => {
    clearTimeout(flushTimer);
    flushTimer = undefined;
    if (outbox.length === 0) return;
    const chunk = outbox.length === 1 ? outbox[0] ?? "" : outbox.join("\n");
    outbox.length = 0;
    if (!writable) return;
    writer.write(chunk).catch((error) => {
      if (!writable) return;
      writable = false;
      log(`warden: cannot write to the client, ending the session: ${String(error)}`);
      session.inflight.abortAll(new Error("The transport failed"));
      reader.cancel().catch(() => {});
    });
  };
  const enqueue = (text: string, now: boolean): void => {
    if (!writable) return;
    outbox.push(text);
    if (now) flush();
    else flushTimer ??= setTimeout(flush, 0);
  };
  const pending = new Set<Promise<DispatchReply>>();
  // Messages the server sends on its own (progress, logs, requests) keep their place in line.
  options.onOpen?.((message) => enqueue(serialize(message, log), pending.size === 0));

  let frames = 0;
  const handleFrame = (frame: string): void => {
    frames++;
    let value: unknown;
    try {
      value = JSON.parse(frame);
    } catch {
      // Position and size only: the content may hold secrets.
      log(`warden: skipped message ${frames} (${frame.length} chars): not valid JSON`);
      return;
    }
    const outcome = dispatcher.dispatch(value, session);
    if (!(outcome instanceof Promise)) {
      // Answered synchronously: it goes out with the rest of this read's replies.
      if (outcome !== undefined && writable) outbox.push(serialize(outcome, log));
      return;
    }
    pending.add(outcome);
    outcome.then((reply) => {
      pending.delete(outcome);
      // The last request to finish sends the batch at once; earlier ones wait for the macrotask.
      if (reply !== undefined) enqueue(serialize(reply, log), pending.size === 0);
      else if (pending.size === 0) flush();
    });
  };

  // A transport that frames many messages per read hands them over together.
  const source: ReadableStream<string | readonly string[]> = takeFrameBatches(transport) ??
    transport.readable;
  const reader = source.getReader();
  const stop = () => reader.cancel().catch(() => {});
  options.signal?.addEventListener("abort", stop, { once: true });
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      if (typeof value === "string") {
        handleFrame(value);
      } else {
        for (const frame of value) handleFrame(frame);
      }
      if (outbox.length > 0) flush();
    }
  } catch (error) {
    log(`warden: the transport failed while reading: ${String(error)}`);
  } finally {
    options.signal?.removeEventListener("abort", stop);
    reader.releaseLock();
  }

  options.onInputEnd?.();
  // On EOF in-flight calls get the grace period; on close() they were aborted already.
  const stopped = options.signal?.aborted === true;
  if (pending.size > 0 && !stopped) await settleWithin(pending, options.shutdownGraceMs);
  if (pending.size > 0) {
    session.inflight.abortAll(new Error("The session is shutting down"));
    // A handler that ignores its signal must not hold the session open forever.
    await settleWithin(pending, ABORT_WAIT_MS);
    if (pending.size > 0) {
      log(
        `warden: ${pending.size} request(s) ignored their abort signal; closing without their replies`,
      );
    }
  }
  flush();
  if (writable) {
    writable = false;
    await writer.close().catch((error) => {
      log(`warden: cannot flush replies to the client: ${String(error)}`);
    });
  }
}
