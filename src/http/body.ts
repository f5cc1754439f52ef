/**
 * Reading a request body within a size and a time limit. A body with a
 * `Content-Length` within the limit is read whole by the runtime (no stream
 * reader in JavaScript), then measured, so a length that lies is still
 * caught; a body without one is read chunk by chunk and cut off at the
 * limit. The time limit of every body read by one reader is kept by one
 * shared timer, armed only while a body is arriving, not by a timer per
 * request.
 *
 * @module
 */

import { ErrorCode } from "../jsonrpc/errors.ts";
import { textOfChunks } from "../runtime/chunks.ts";
import { rpcError } from "./responses.ts";

/** Limits on reading a request body. */
export interface BodyLimits {
  /** The most bytes accepted (413 above it). */
  maxBytes: number;
  /** The longest a body may take to arrive, in ms (408 after it). */
  timeoutMs: number;
}

/**
 * The body limits `options` ask for, checked.
 *
 * @throws {RangeError} A limit that is not a positive number.
 */
export function bodyLimitsOf(
  options: { maxBodyBytes?: number; bodyTimeoutMs?: number },
): BodyLimits {
  const maxBytes = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const timeoutMs = options.bodyTimeoutMs ?? 30_000;
  for (const [name, value] of [["maxBodyBytes", maxBytes], ["bodyTimeoutMs", timeoutMs]] as const) {
    if (!(typeof value === "number" && value > 0)) {
      throw new RangeError(`Invalid http.${name}: expected a positive number, got ${value}`);
    }
  }
  return { maxBytes, timeoutMs };
}

const decoder = new TextDecoder();

/** A body being read: when it must have arrived, and what ends it then. */
interface Waiting {
  readonly deadline: number;
  readonly expire: () => void;
}

/** Reads request bodies within one set of limits. */
export class BodyReader {
  readonly limits: BodyLimits;
  /** In arrival order, which is deadline order: every read has the same time limit. */
  readonly #waiting = new Set<Waiting>();
  #timer: ReturnType<typeof setInterval> | undefined;
  readonly #tickMs: number;

  constructor(limits: BodyLimits) {
    this.limits = limits;
    // A body is cut between timeoutMs and timeoutMs plus one tick.
    this.#tickMs = Math.min(1000, Math.max(5, Math.ceil(limits.timeoutMs / 8)));
  }

  /**
   * The body as text, or the error answer when it passes `maxBytes` (413,
   * without reading the rest of a chunked body) or does not arrive in full
   * within `timeoutMs` (408). Either error closes the connection, so a slow
   * or oversized body cannot keep it.
   */
  read(request: Request): Promise<string | Response> {
    const header = request.headers.get("content-length");
    const declared = header === null ? NaN : Number(header);
    if (declared > this.limits.maxBytes) return Promise.resolve(this.#tooLarge());
    if (Number.isInteger(declared) && declared >= 0) {
      // arrayBuffer(), not bytes(): older Node 20 releases lack the latter.
      return this.#within(request.arrayBuffer(), undefined, (bytes) =>
        // The header is a claim: what arrived is measured.
        bytes.byteLength > this.limits.maxBytes ? this.#tooLarge() : decoder.decode(bytes));
    }
    if (request.body === null) return Promise.resolve("");
    return this.#readChunks(request.body);
  }

  async #readChunks(body: ReadableStream<Uint8Array>): Promise<string | Response> {
    const reader = body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    const reading = (async (): Promise<boolean> => {
      while (true) {
        const next = await reader.read();
        if (next.done) return true;
        size += next.value.byteLength;
        if (size > this.limits.maxBytes) {
          await reader.cancel().catch(() => {});
          return false;
        }
        chunks.push(next.value);
      }
    })();
    // Cancelling the reader ends a read that is waiting.
    return await this.#within(
      reading,
      () => void reader.cancel().catch(() => {}),
      (whole) => whole ? textOfChunks(chunks, size) : this.#tooLarge(),
    );
  }

  /**
   * What `done` makes of `reading`'s value, or the 408 answer (after
   * `expire`) once the time limit passes first.
   */
  #within<T>(
    reading: Promise<T>,
    expire: (() => void) | undefined,
    done: (value: T) => string | Response,
  ): Promise<string | Response> {
    return new Promise((resolve, reject) => {
      const waiting: Waiting = {
        deadline: Date.now() + this.limits.timeoutMs,
        expire: () => {
          expire?.();
          resolve(this.#timedOut());
        },
      };
      this.#waiting.add(waiting);
      this.#timer ??= setInterval(() => this.#sweep(), this.#tickMs);
      // A read that settles after its time ran out has nobody left to tell: resolve() is then a no-op.
      reading.then((value) => {
        this.#waiting.delete(waiting);
        try {
          resolve(done(value));
        } catch (error) {
          reject(error);
        }
      }, (error: unknown) => {
        this.#waiting.delete(waiting);
        reject(error);
      });
    });
  }

  #sweep(): void {
    const now = Date.now();
    for (const waiting of this.#waiting) {
      if (waiting.deadline > now) break;
      this.#waiting.delete(waiting);
      waiting.expire();
    }
    if (this.#waiting.size === 0) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  #tooLarge(): Response {
    return closing(rpcError(
      413,
      ErrorCode.InvalidRequest,
      `Payload too large: the limit is ${this.limits.maxBytes} bytes`,
    ));
  }

  #timedOut(): Response {
    return closing(rpcError(
      408,
      ErrorCode.InvalidRequest,
      `Request timeout: the body did not arrive within ${this.limits.timeoutMs} ms`,
    ));
  }
}

/** `response` with `Connection: close`, so the server drops the connection after it. */
function closing(response: Response): Response {
  response.headers.set("connection", "close");
  return response;
}
