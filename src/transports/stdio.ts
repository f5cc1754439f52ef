/**
 * The stdio transport: newline-delimited JSON frames over the process's stdin
 * and stdout, with stray console output moved to stderr while it runs.
 *
 * @module
 */

import { type DroppedLine, LineSplitter } from "./line_splitter.ts";
import type { Transport } from "./transport.ts";

/**
 * Options for {@linkcode StdioTransport}.
 *
 * @example Diagnostics to a logger of your own
 * ```ts
 * import { StdioTransport, type StdioTransportOptions } from "@warden/mcp";
 * const notes: string[] = [];
 * const options: StdioTransportOptions = { log: (message) => notes.push(message) };
 * const transport = new StdioTransport(options);
 * await transport.writable.close();
 * ```
 */
export interface StdioTransportOptions {
  /**
   * Bytes from the client.
   *
   * @default {Deno.stdin.readable}
   */
  readonly input?: ReadableStream<Uint8Array>;
  /**
   * Where framed replies go. A stream given here is closed when the
   * transport's writable closes; the default stdout is flushed and released
   * instead, so the process can still print to it at shutdown.
   *
   * @default {Deno.stdout.writable}
   */
  readonly output?: WritableStream<Uint8Array>;
  /**
   * The longest incoming line, in bytes; longer ones are dropped and noted.
   *
   * @default {8388608}
   */
  readonly maxLineBytes?: number;
  /**
   * Receives diagnostics, such as a dropped line's number and size (never its content).
   *
   * @default {(message) => console.error(message)}
   */
  readonly log?: (message: string) => void;
  /**
   * Whether `console.log` and the other console methods that print to stdout
   * write to stderr instead, from construction until the writable is closed,
   * aborted or errored, so a stray print cannot corrupt the protocol stream.
   *
   * @default {true}
   */
  readonly redirectConsole?: boolean;
}

/** Above this many framed bytes waiting for the output, the producer's `write()` waits. */
const MAX_PENDING_BYTES = 1024 * 1024;

/**
 * A {@linkcode Transport} speaking newline-delimited JSON over byte streams,
 * by default the process's stdin and stdout.
 *
 * Incoming lines are split by a {@linkcode LineSplitter}; each outgoing frame
 * is written as its text plus one `\n`. While one write to the output is in
 * flight, later frames are gathered and sent together in one write when it
 * completes; once more than 1 MiB is waiting, the producer's `write()` waits
 * too, which is how a slow client slows the server down. A failing output
 * (the client went away) errors `writable` instead of raising an unhandled
 * rejection.
 *
 * Unless `redirectConsole` is false, console methods that would print to
 * stdout print to stderr from construction until `writable` is closed,
 * aborted or errored. Closing `writable` flushes the default stdout and
 * releases it rather than closing it, so the process may still print there.
 *
 * @throws {RangeError} If `maxLineBytes` is not a positive integer.
 * @throws {TypeError} If `input` or `output` is omitted outside Deno.
 *
 * @example Usage
 * ```ts
 * import { StdioTransport } from "@warden/mcp";
 * const transport = new StdioTransport({ maxLineBytes: 1024 * 1024 });
 * const writer = transport.writable.getWriter();
 * await writer.write('{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}');
 * await writer.close();
 * ```
 */
export class StdioTransport implements Transport {
  /** Incoming lines, one JSON text each. */
  readonly readable: ReadableStream<string>;
  /** Outgoing frames, one JSON text each, without a newline. */
  readonly writable: WritableStream<string>;

  /** Creates the transport and, unless disabled, starts redirecting the console. */
  constructor(options: StdioTransportOptions = {}) {
    const log = options.log ?? ((message: string) => console.error(message));
    const splitter: LineSplitter = new LineSplitter({
      ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
      onDropped: (info) => log(describeDrop(info, splitter.maxLineBytes)),
    });
    const input = options.input ?? deno("stdin").stdin.readable;
    const output = options.output ?? deno("stdout").stdout.writable;
    this.readable = input.pipeThrough(splitter);
    const writer = output.getWriter();
    // Last, so that a locked stream above cannot leave the console redirected.
    const release = options.redirectConsole === false ? () => {} : redirectConsole();
    this.writable = new WritableStream(
      new FrameSink(writer, options.output !== undefined, release, log),
    );
  }
}

function describeDrop(info: DroppedLine, maxLineBytes: number): string {
  const why = info.reason === "too-long"
    ? `longer than the ${maxLineBytes}-byte limit`
    : "not valid UTF-8";
  return `warden: dropped line ${info.line} (${info.bytes} bytes): ${why}`;
}

/** The Deno namespace, looked up only for a default stream so other runtimes load this module. */
function deno(stream: "stdin" | "stdout"): typeof Deno {
  if (!("Deno" in globalThis)) {
    const option = stream === "stdin" ? "input" : "output";
    throw new TypeError(
      `Cannot create stdio transport: no Deno.${stream} in this runtime, pass options.${option}`,
    );
  }
  return globalThis.Deno;
}

/** Frames strings onto a byte writer, batching frames that arrive while a write is in flight. */
class FrameSink implements UnderlyingSink<string> {
  readonly #encoder = new TextEncoder();
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #ownsOutput: boolean;
  readonly #onEnd: () => void;
  readonly #log: (message: string) => void;
  #controller: WritableStreamDefaultController | undefined;
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  #busy = false;
  #idle: Promise<void> = Promise.resolve();
  /** Set once the output failed or the writable was aborted: nothing more is written. */
  #stopped: { reason: unknown } | undefined;
  /** The producer waiting for pending frames to be taken; a WritableStream has one at most. */
  #waiter: PromiseWithResolvers<void> | undefined;

  constructor(
    writer: WritableStreamDefaultWriter<Uint8Array>,
    ownsOutput: boolean,
    onEnd: () => void,
    log: (message: string) => void,
  ) {
    this.#writer = writer;
    this.#ownsOutput = ownsOutput;
    this.#onEnd = onEnd;
    this.#log = log;
  }

  start(controller: WritableStreamDefaultController): void {
    this.#controller = controller;
    // The signal fires as soon as abort() is called, even while a write() waits for room.
    controller.signal.addEventListener("abort", () => this.#abort(controller.signal.reason));
  }

  async write(text: string): Promise<void> {
    if (typeof text !== "string") {
      throw new TypeError(`Cannot write frame: expected a string, got ${typeof text}`);
    }
    const frame = this.#encoder.encode(`${text}\n`);
    this.#pending.push(frame);
    this.#pendingBytes += frame.length;
    this.#flush();
    if (this.#pendingBytes > MAX_PENDING_BYTES) {
      this.#waiter = Promise.withResolvers();
      await this.#waiter.promise;
    }
  }

  async close(): Promise<void> {
    await this.#idle;
    if (this.#stopped !== undefined) throw this.#stopped.reason;
    try {
      if (this.#ownsOutput) {
        await this.#writer.close();
      } else {
        this.#writer.releaseLock();
      }
    } finally {
      this.#onEnd();
    }
  }

  #flush(): void {
    if (this.#busy || this.#stopped !== undefined) return;
    this.#busy = true;
    this.#idle = this.#drain();
  }

  /** Writes batches until nothing is pending; never rejects. */
  async #drain(): Promise<void> {
    try {
      while (this.#pending.length > 0 && this.#stopped === undefined) {
        await this.#writer.write(this.#takePending());
      }
    } catch (error) {
      this.#fail(error);
    } finally {
      this.#busy = false;
    }
  }

  /** Joins every pending frame into one buffer, so many replies cost one underlying write. */
  #takePending(): Uint8Array {
    const frames = this.#pending;
    let batch = frames[0] ?? new Uint8Array(0);
    if (frames.length > 1) {
      batch = new Uint8Array(this.#pendingBytes);
      let offset = 0;
      for (const frame of frames) {
        batch.set(frame, offset);
        offset += frame.length;
      }
    }
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#waiter?.resolve();
    this.#waiter = undefined;
    return batch;
  }

  #fail(error: unknown): void {
    if (!this.#stop(error)) return;
    this.#controller?.error(error);
  }

  #abort(reason: unknown): void {
    if (!this.#stop(reason)) return;
    if (this.#ownsOutput) {
      this.#writer.abort(reason).catch((error: unknown) => {
        this.#log(`warden: cannot abort the output: ${String(error)}`);
      });
    } else {
      this.#writer.releaseLock();
    }
  }

  /** Drops pending frames and frees a waiting producer; false if already stopped. */
  #stop(reason: unknown): boolean {
    if (this.#stopped !== undefined) return false;
    this.#stopped = { reason };
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#waiter?.reject(reason);
    this.#waiter = undefined;
    this.#onEnd();
    return true;
  }
}

/** How many live transports want the console redirected, and how to undo it. */
let redirects = 0;
let restoreConsole: (() => void) | undefined;

/** Redirects the console until the returned function is called (any number of times). */
function redirectConsole(): () => void {
  if (redirects++ === 0) restoreConsole = installRedirect();
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--redirects === 0) {
      restoreConsole?.();
      restoreConsole = undefined;
    }
  };
}

/**
 * Replaces the console methods that print to stdout with stand-ins printing to
 * stderr, and returns how to put the originals back.
 */
function installRedirect(): () => void {
  // Captured now, so a logger that later routes console.error to console.log cannot loop.
  const toStderr = console.error;
  const counts = new Map<string, number>();
  const timers = new Map<string, number>();
  const elapsed = (label: string): string =>
    `${label}: ${(performance.now() - (timers.get(label) ?? performance.now())).toFixed(3)}ms`;
  const print = (...data: unknown[]): void => toStderr(...data);
  const standIns = {
    log: print,
    info: print,
    debug: print,
    dirxml: print,
    // Formatting options and tables are lost on stderr; the protocol stream matters more.
    dir: (item?: unknown): void => toStderr(item),
    table: (data?: unknown): void => toStderr(data),
    count: (label = "default"): void => {
      const count = (counts.get(label) ?? 0) + 1;
      counts.set(label, count);
      toStderr(`${label}: ${count}`);
    },
    countReset: (label = "default"): void => void counts.delete(label),
    time: (label = "default"): void => void timers.set(label, performance.now()),
    timeLog: (label = "default", ...data: unknown[]): void => toStderr(elapsed(label), ...data),
    timeEnd: (label = "default"): void => {
      toStderr(elapsed(label));
      timers.delete(label);
    },
  } satisfies Partial<Console>;
  const originals = new Map<string, unknown>();
  for (const [name, standIn] of Object.entries(standIns)) {
    originals.set(name, Reflect.get(console, name));
    Reflect.set(console, name, standIn);
  }
  return () => {
    for (const [name, standIn] of Object.entries(standIns)) {
      // A method replaced after ours (a logger, a test spy) is its owner's to restore.
      if (Reflect.get(console, name) === standIn) Reflect.set(console, name, originals.get(name));
    }
  };
}
