/**
 * The stdio transport: newline-delimited JSON frames over the process's stdin
 * and stdout, with stray console output moved to stderr while it runs.
 *
 * @module
 */

import { redirectConsole } from "./console_redirect.ts";
import { BlockingFrameSink, FrameSink } from "./frame_sink.ts";
import { type DroppedLine, lineLimit } from "./line_splitter.ts";
import {
  type ByteSource,
  fileSource,
  frameStream,
  LineBatchReader,
  streamSource,
} from "./line_batches.ts";
import {
  type FrameWriter,
  offerFrameBatches,
  offerFrameWriter,
  type Transport,
} from "./transport.ts";

/**
 * Options for {@linkcode StdioTransport}.
 *
 * @example Diagnostics to a logger of your own
 * ```ts
 * import { type StdioTransportOptions } from "@warden/mcp";
 * import { StdioTransport } from "./stdio.ts";
 * const notes: string[] = [];
 * const options: StdioTransportOptions = { log: (message) => notes.push(message) };
 * const transport = new StdioTransport(options);
 * await transport.writable.close();
 * ```
 */
export interface StdioTransportOptions {
  /**
   * Bytes from the client. Without one, the process's stdin is read with
   * `Deno.stdin.read` into one reused buffer.
   *
   * @default {Deno.stdin}
   */
  readonly input?: ReadableStream<Uint8Array>;
  /**
   * Where framed replies go. A stream given here is closed when the
   * transport's writable closes. Without one, replies go to the process's
   * stdout with one blocking `Deno.stdout.writeSync` per chunk written (its
   * fastest path), and stdout stays open for the process to print to at
   * shutdown.
   *
   * @default {Deno.stdout}
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
  /**
   * Aborting it ends the input as EOF does, at once (a read still waiting on
   * the input is not awaited): the session stops reading and finishes what
   * it started. `serveStdio()` ends its session this way on SIGINT and SIGTERM.
   *
   * @default {undefined} (only EOF ends the input)
   */
  readonly signal?: AbortSignal;
}

/**
 * A {@linkcode Transport} speaking newline-delimited JSON over byte streams,
 * by default the process's stdin and stdout.
 *
 * Input is read into one reused buffer when it is a byte stream (as stdin
 * is) and split into lines as {@linkcode LineSplitter} does; a session
 * takes every line of one read at once. Each outgoing frame is written as
 * its text plus one `\n`. To stdout, each chunk written (one frame or a
 * burst) is one blocking write, so a client that stops reading blocks the
 * server until it reads again. To a given `output` stream, frames that
 * arrive while a write is in flight are gathered and sent together when it
 * completes; once more than 1 MiB is waiting, the producer's `write()` waits
 * too, which is how a slow client slows the server down. A failing output
 * (the client went away) errors `writable` instead of raising an unhandled
 * rejection.
 *
 * Unless `redirectConsole` is false, console methods that would print to
 * stdout print to stderr from construction until `writable` is closed,
 * aborted or errored. Closing `writable` leaves the default stdout open, so
 * the process may still print there.
 *
 * @throws {RangeError} If `maxLineBytes` is not a positive integer.
 * @throws {TypeError} If `input` or `output` is omitted outside Deno.
 *
 * @example Usage
 * ```ts
 * import { StdioTransport } from "./stdio.ts";
 * const transport = new StdioTransport({ maxLineBytes: 1024 * 1024 });
 * const writer = transport.writable.getWriter();
 * await writer.write('{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}');
 * await writer.close();
 * ```
 */
export class StdioTransport implements Transport {
  readonly #sink: UnderlyingSink<string>;
  /** Incoming lines, all those of one read together. */
  readonly #batches: LineBatchReader;
  #readable: ReadableStream<string> | undefined;
  #writable: WritableStream<string> | undefined;
  #batchesTaken = false;
  #writerTaken = false;

  /** Creates the transport and, unless disabled, starts redirecting the console. */
  constructor(options: StdioTransportOptions = {}) {
    const log = options.log ?? ((message: string) => console.error(message));
    const maxLineBytes = lineLimit(options.maxLineBytes);
    let source: ByteSource;
    if (options.input === undefined) {
      const stdin = deno("stdin").stdin;
      source = fileSource((buffer) => stdin.read(buffer));
    } else {
      source = streamSource(options.input);
    }
    const stdout = options.output === undefined ? deno("stdout").stdout : undefined;
    this.#batches = new LineBatchReader(
      source,
      maxLineBytes,
      (info) => log(describeDrop(info, maxLineBytes)),
      options.signal,
    );
    let sink: (release: () => void) => UnderlyingSink<string>;
    if (stdout !== undefined) {
      sink = (release) => new BlockingFrameSink((bytes) => stdout.writeSync(bytes), release);
    } else {
      const writer = options.output?.getWriter();
      if (writer === undefined) throw new TypeError("Cannot create stdio transport: no output");
      sink = (release) => new FrameSink(writer, release, log);
    }
    // Last, so that a locked stream above cannot leave the console redirected.
    const release = options.redirectConsole === false ? () => {} : redirectConsole();
    this.#sink = sink(release);
    offerFrameBatches(this, () => {
      if (this.#readable !== undefined || this.#batchesTaken) return undefined;
      this.#batchesTaken = true;
      return this.#batches;
    });
    const blocking = this.#sink;
    if (blocking instanceof BlockingFrameSink) {
      offerFrameWriter(this, () => {
        if (this.#writable !== undefined || this.#writerTaken) return undefined;
        this.#writerTaken = true;
        return directWriter(blocking);
      });
    }
  }

  /** Incoming lines, one JSON text each. */
  get readable(): ReadableStream<string> {
    this.#readable ??= this.#batchesTaken
      ? refused("Cannot read stdio transport: a session reads it")
      : frameStream(this.#batches);
    return this.#readable;
  }

  /** Outgoing frames, one JSON text each, without a newline. */
  get writable(): WritableStream<string> {
    this.#writable ??= this.#writerTaken
      ? new WritableStream({
        start(controller) {
          controller.error(new TypeError("Cannot write stdio transport: a session writes it"));
        },
      })
      : new WritableStream(this.#sink);
    return this.#writable;
  }
}

/** A stream that fails its first read with `message`: another reader has the input. */
function refused(message: string): ReadableStream<string> {
  return new ReadableStream({
    start(controller) {
      controller.error(new TypeError(message));
    },
  });
}

/**
 * Writes to stdout's blocking sink as its Web Stream would, without one: in
 * order (each write is done when it returns), a failed write failing every
 * later one, a write after close refused.
 */
function directWriter(sink: BlockingFrameSink): FrameWriter {
  let failure: { error: unknown } | undefined;
  let closed = false;
  return {
    write(chunk) {
      if (failure !== undefined) return Promise.reject(failure.error);
      if (closed) {
        return Promise.reject(new TypeError("Cannot write stdio transport: it is closed"));
      }
      try {
        sink.write(chunk);
        return Promise.resolve();
      } catch (error) {
        failure = { error };
        return Promise.reject(error);
      }
    },
    close() {
      if (failure !== undefined) return Promise.reject(failure.error);
      if (!closed) {
        closed = true;
        sink.close();
      }
      return Promise.resolve();
    },
  };
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
