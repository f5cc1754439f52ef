/**
 * Server-sent events: framing, and one writable stream per HTTP response.
 *
 * @module
 */

const encoder = new TextEncoder();

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
 * The body of one SSE response. Writes after the client went away or after
 * `close()` are dropped; `closed` tells the owner to stop routing here.
 */
export class SseWriter {
  readonly body: ReadableStream<Uint8Array>;
  #controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  #closed = false;
  #keepAlive: ReturnType<typeof setInterval> | undefined;
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
    if (keepAliveMs > 0) {
      this.#keepAlive = setInterval(() => this.#write(": keep-alive\n\n"), keepAliveMs);
    }
  }

  /** Whether the stream has ended. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Sends one event. */
  send(event: { id?: string; data: string; retryMs?: number }): void {
    this.#write(formatEvent(event));
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
    clearInterval(this.#keepAlive);
    this.#onClose();
  }
}
