/**
 * Runs one session over a transport: parse each frame, dispatch it without
 * waiting for earlier ones, and write replies through the single writer so
 * frames never interleave.
 *
 * @module
 */

import type { JsonRpcMessage, JsonRpcResponse } from "../jsonrpc/messages.ts";
import {
  type FrameReader,
  type FrameWriter,
  takeFrameBatches,
  takeFrameWriter,
  type Transport,
} from "../transports/transport.ts";
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
  const { log, signal } = options;
  // A transport that can write without a Web Stream (stdio to stdout) hands over its writer.
  const writer = takeFrameWriter(transport) ?? transport.writable.getWriter();
  const connection = new Connection(writer, dispatcher, session, log);
  // Messages the server sends on its own (progress, logs, requests) keep their place in line.
  options.onOpen?.(connection.send);
  const reader = connection.openReader(transport);
  const stop = () => reader.cancel().catch(() => {});
  signal?.addEventListener("abort", stop, { once: true });
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      connection.receive(value);
    }
  } catch (error) {
    log(`warden: the transport failed while reading: ${String(error)}`);
  } finally {
    signal?.removeEventListener("abort", stop);
    reader.releaseLock();
  }
  options.onInputEnd?.();
  // On EOF in-flight calls get the grace period; on close() they were aborted already.
  if (connection.busy) await connection.settle(signal?.aborted === true, options.shutdownGraceMs);
  await connection.close();
}

/**
 * One connection's state, from its first frame to closing the writer. Its
 * callbacks (`send`, the flush timer, the write-failure handler) are bound
 * once per connection, so a message costs no closure beyond the one that
 * waits for an asynchronous reply.
 */
class Connection<S extends DispatchSession> {
  readonly #writer: FrameWriter;
  readonly #dispatcher: Dispatcher<S>;
  readonly #session: S;
  readonly #log: (message: string) => void;
  #writable = true;
  // Replies finished while other requests are still running wait in the
  // outbox until the current macrotask ends, then go out as one chunk: under
  // load that is one write for many replies; a lone request is answered at
  // once.
  readonly #outbox: string[] = [];
  #flushTimer: ReturnType<typeof setTimeout> | undefined;
  /** Requests whose replies have not come yet. */
  readonly #pending = new Set<Promise<DispatchReply>>();
  /** Frames read so far, to say which one was skipped. */
  #frames = 0;
  #reader: FrameReader<string | readonly string[]> | undefined;

  constructor(
    writer: FrameWriter,
    dispatcher: Dispatcher<S>,
    session: S,
    log: (message: string) => void,
  ) {
    this.#writer = writer;
    this.#dispatcher = dispatcher;
    this.#session = session;
    this.#log = log;
  }

  /** Sends a message the server starts; it goes at once unless replies are still due. */
  readonly send = (message: JsonRpcMessage | JsonRpcResponse[]): void => {
    this.#enqueue(serialize(message, this.#log), this.#pending.size === 0);
  };

  /** Writes what the outbox holds, as one chunk. */
  readonly flush = (): void => {
    // Only a set timer is cleared: the first timer call loads Deno's Node timers (~8 ms, ~4 MiB),
    // which a server answering one request at a time never needs.
    if (this.#flushTimer !== undefined) {
      clearTimeout(this.#flushTimer);
      this.#flushTimer = undefined;
    }
    const outbox = this.#outbox;
    if (outbox.length === 0) return;
    const chunk = outbox.length === 1 ? outbox[0] ?? "" : outbox.join("\n");
    outbox.length = 0;
    if (!this.#writable) return;
    this.#writer.write(chunk).catch(this.#writeFailed);
  };

  /** A failed write ends the session: nothing more can reach the client. */
  readonly #writeFailed = (error: unknown): void => {
    if (!this.#writable) return;
    this.#writable = false;
    this.#log(`warden: cannot write to the client, ending the session: ${String(error)}`);
    this.#session.inflight.abortAll(new Error("The transport failed"));
    this.#reader?.cancel().catch(() => {});
  };

  #enqueue(text: string, now: boolean): void {
    if (!this.#writable) return;
    this.#outbox.push(text);
    if (now) this.flush();
    else this.#flushTimer ??= setTimeout(this.flush, 0);
  }

  /** Whether requests are still in flight. */
  get busy(): boolean {
    return this.#pending.size > 0;
  }

  /** Takes the reader of the transport's frames (in batches when it offers them). */
  openReader(transport: Transport): FrameReader<string | readonly string[]> {
    // A transport that frames many messages per read hands them over together.
    this.#reader = takeFrameBatches(transport) ?? transport.readable.getReader();
    return this.#reader;
  }

  /** Dispatches the frames of one read, then sends the replies they got at once. */
  receive(value: string | readonly string[]): void {
    if (typeof value === "string") {
      this.#handleFrame(value);
    } else {
      for (const frame of value) this.#handleFrame(frame);
    }
    if (this.#outbox.length > 0) this.flush();
  }

  #handleFrame(frame: string): void {
    this.#frames++;
    let value: unknown;
    try {
      value = JSON.parse(frame);
    } catch {
      // Position and size only: the content may hold secrets.
      this.#log(`warden: skipped message ${this.#frames} (${frame.length} chars): not valid JSON`);
      return;
    }
    const outcome = this.#dispatcher.dispatch(value, this.#session);
    if (!(outcome instanceof Promise)) {
      // Answered synchronously: it goes out with the rest of this read's replies.
      if (outcome !== undefined && this.#writable) this.#outbox.push(serialize(outcome, this.#log));
      return;
    }
    const pending = this.#pending;
    pending.add(outcome);
    outcome.then((reply) => {
      pending.delete(outcome);
      // The last request to finish sends the batch at once; earlier ones wait for the macrotask.
      if (reply !== undefined) this.#enqueue(serialize(reply, this.#log), pending.size === 0);
      else if (pending.size === 0) this.flush();
    });
  }

  /**
   * Waits for the requests in flight (call it only while {@linkcode busy}):
   * up to `graceMs` unless `stopped`, then aborts the rest and gives them
   * {@linkcode ABORT_WAIT_MS} to settle.
   */
  async settle(stopped: boolean, graceMs: number): Promise<void> {
    const pending = this.#pending;
    if (!stopped) await settleWithin(pending, graceMs);
    if (pending.size === 0) return;
    this.#session.inflight.abortAll(new Error("The session is shutting down"));
    // A handler that ignores its signal must not hold the session open forever.
    await settleWithin(pending, ABORT_WAIT_MS);
    if (pending.size > 0) {
      this.#log(
        `warden: ${pending.size} request(s) ignored their abort signal; closing without their replies`,
      );
    }
  }

  /** Sends what is left and closes the writable side. */
  async close(): Promise<void> {
    this.flush();
    if (!this.#writable) return;
    this.#writable = false;
    await this.#writer.close().catch((error) => {
      this.#log(`warden: cannot flush replies to the client: ${String(error)}`);
    });
  }
}
