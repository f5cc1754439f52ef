/**
 * Server-sent events: framing, and one writable stream per HTTP response.
 *
 * @module
 */

const encoder = new TextEncoder();

/**
 * A message as one event's data; a message JSON cannot encode (a BigInt, a
 * cycle) becomes an error notice rather than failing the stream.
 */
export function eventData(message: unknown): string {
  try {
    return JSON.stringify(message);
  } catch {
    return JSON.stringify({
      jsonrpc: "2.0",
      method: "notifications/message",
      params: { level: "error", data: "warden: a message could not be encoded" },
    });
  }
}

/** One SSE event as text. `data` may not contain newlines (JSON text never does). */
export function formatEvent(event: { id?: string; data: string; retryMs?: number }): string {
  let text = "";
  if (event.id !== undefined) text += `id: ${event.id}\n`;
  if (event.retryMs !== undefined) text += `retry: ${event.retryMs}\n`;
  // An empty data field still needs the "data:" line: it is how priming events look.
  text += event.data === "" ? "data:\n\n" : `event: message\ndata: ${event.data}\n\n`;
  return text;
}

/**
 * Keep-alive comments for every open stream with the same interval from
 * one timer, armed while one such stream is open: a thousand idle streams
 * (subscriptions, standalone GETs) cost one timer, not a thousand.
 */
class KeepAlive {
  static readonly #byInterval = new Map<number, KeepAlive>();
  readonly #streams = new Set<SseWriter>();
  readonly #timer: ReturnType<typeof setInterval>;
  readonly #intervalMs: number;

  private constructor(intervalMs: number) {
    this.#intervalMs = intervalMs;
    this.#timer = setInterval(() => {
      for (const stream of this.#streams) stream.comment("keep-alive");
    }, intervalMs);
  }

  /** Starts keep-alive comments on `stream` every `intervalMs`. */
  static add(stream: SseWriter, intervalMs: number): void {
    let shared = KeepAlive.#byInterval.get(intervalMs);
    if (shared === undefined) {
      shared = new KeepAlive(intervalMs);
      KeepAlive.#byInterval.set(intervalMs, shared);
    }
    shared.#streams.add(stream);
  }

  /** How many shared timers run now (one per interval in use). */
  static get timers(): number {
    return KeepAlive.#byInterval.size;
  }

  /** Stops them; the timer stops with the last stream. */
  static remove(stream: SseWriter, intervalMs: number): void {
    const shared = KeepAlive.#byInterval.get(intervalMs);
    if (shared === undefined || !shared.#streams.delete(stream)) return;
    if (shared.#streams.size > 0) return;
    clearInterval(shared.#timer);
    KeepAlive.#byInterval.delete(shared.#intervalMs);
  }
}

/** How many keep-alive timers run now: one per interval any open stream uses. */
export function keepAliveTimers(): number {
  return KeepAlive.timers;
}

/**
 * The body of one SSE response. Writes after the client went away or after
 * `close()` are dropped; `closed` tells the owner to stop routing here.
 */
export class SseWriter {
  readonly body: ReadableStream<Uint8Array>;
  #controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  #closed = false;
  readonly #keepAliveMs: number;
  readonly #onClose: () => void;

  /**
   * @param onClose Called once when the stream ends, by `close()` or by the client.
   * @param keepAliveMs Interval of comment lines that keep proxies from cutting an idle stream; 0 for none.
   */
  constructor(onClose: () => void, keepAliveMs = 0) {
    this.#onClose = onClose;
    this.body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
      },
      cancel: () => this.#finish(),
    });
    this.#keepAliveMs = keepAliveMs;
    if (keepAliveMs > 0) KeepAlive.add(this, keepAliveMs);
  }

  /** Whether the stream has ended. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Sends one event. */
  send(event: { id?: string; data: string; retryMs?: number }): void {
    this.#write(formatEvent(event));
  }

  /** Sends a comment line, which clients ignore and proxies see as traffic. */
  comment(text: string): void {
    this.#write(`: ${text}\n\n`);
  }

  /** Ends the stream. */
  close(): void {
    if (this.#closed) return;
    try {
      this.#controller?.close();
    } catch {
      // Already errored or cancelled by the client: nothing left to close.
    }
    this.#finish();
  }

  #write(text: string): void {
    if (this.#closed) return;
    try {
      this.#controller?.enqueue(encoder.encode(text));
    } catch {
      this.#finish();
    }
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#keepAliveMs > 0) KeepAlive.remove(this, this.#keepAliveMs);
    this.#onClose();
  }
}
