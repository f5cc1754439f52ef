/**
 * The stdio transport: newline-delimited JSON frames over the process's stdin
 * and stdout, with stray console output moved to stderr while it runs.
 *
 * @module
 */

import { redirectConsole } from "./console_redirect.ts";
import { BlockingFrameSink, FrameSink } from "./frame_sink.ts";
import { type DroppedLine, lineLimit, SplitterState } from "./line_splitter.ts";
import { offerFrameBatches, type Transport } from "./transport.ts";

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

/** The buffer a byte-stream input is read into, reused read after read. */
const READ_BYTES = 64 * 1024;

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
  /** Outgoing frames, one JSON text each, without a newline. */
  readonly writable: WritableStream<string>;
  /** Incoming lines, all those of one read together. */
  readonly #batches: ReadableStream<readonly string[]>;
  #readable: ReadableStream<string> | undefined;
  #batchesTaken = false;

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
    this.#batches = lineBatches(
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
    this.writable = new WritableStream(sink(release));
    offerFrameBatches(this, () => {
      if (this.#readable !== undefined || this.#batchesTaken) return undefined;
      this.#batchesTaken = true;
      return this.#batches;
    });
  }

  /** Incoming lines, one JSON text each. */
  get readable(): ReadableStream<string> {
    if (this.#readable === undefined) {
      this.#readable = this.#batchesTaken
        ? new ReadableStream({
          start(controller) {
            controller.error(new TypeError("Cannot read stdio transport: a session reads it"));
          },
        })
        : this.#batches.pipeThrough(
          new TransformStream<readonly string[], string>({
            transform(lines, controller) {
              for (const line of lines) controller.enqueue(line);
            },
          }),
        );
    }
    return this.#readable;
  }
}

/** Reads into the buffer it is given: the bytes read (at least one), or null at EOF. */
type ReadInto = (buffer: Uint8Array) => Promise<number | null>;

/** A source of bytes: how to read it, how to stop it, and whether it reuses its buffer. */
interface ByteSource {
  /** The next chunk, or undefined at EOF. */
  read(): Promise<Uint8Array | undefined>;
  /** Stops reading (the stream's cancel). */
  cancel(reason: unknown): Promise<void>;
  /** Whether a chunk's memory is reused by the next read. */
  readonly reusesBuffer: boolean;
}

/** Reads a file (stdin) with one reused buffer. */
function fileSource(readInto: ReadInto): ByteSource {
  const buffer = new Uint8Array(READ_BYTES);
  let done = false;
  return {
    reusesBuffer: true,
    async read() {
      if (done) return undefined;
      const read = await readInto(buffer);
      if (read === null) done = true;
      return read === null ? undefined : buffer.subarray(0, read);
    },
    cancel() {
      // A read in progress cannot be interrupted; its bytes are simply not used.
      done = true;
      return Promise.resolve();
    },
  };
}

/**
 * Reads a stream: a byte stream with a BYOB reader into one buffer that
 * comes back read after read, any other stream chunk by chunk.
 */
function streamSource(input: ReadableStream<Uint8Array>): ByteSource {
  let byob: ReadableStreamBYOBReader | undefined;
  try {
    byob = input.getReader({ mode: "byob" });
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
  }
  if (byob === undefined) {
    const reader = input.getReader();
    return {
      reusesBuffer: false,
      async read() {
        return (await reader.read()).value;
      },
      cancel: (reason) => reader.cancel(reason),
    };
  }
  const reader = byob;
  let buffer: ArrayBufferLike = new ArrayBuffer(READ_BYTES);
  return {
    reusesBuffer: true,
    async read() {
      const { value, done } = await reader.read(new Uint8Array(buffer));
      // The buffer was transferred to the read and comes back as the view's.
      if (value !== undefined) buffer = value.buffer;
      return done ? undefined : value;
    },
    cancel: (reason) => reader.cancel(reason),
  };
}

/**
 * The lines of a byte source, as one array per read that completes any. The
 * splitter copies only an unfinished tail when the source reuses its buffer.
 * Cancelling the result cancels the source, and a failure while splitting
 * cancels it with that error.
 */
function lineBatches(
  source: ByteSource,
  maxLineBytes: number,
  onDropped: (info: DroppedLine) => void,
  signal: AbortSignal | undefined,
): ReadableStream<readonly string[]> {
  const splitter = new SplitterState(maxLineBytes, onDropped, source.reusesBuffer);
  let ended = false;
  return new ReadableStream<readonly string[]>({
    start(controller) {
      // Ended here rather than by a wrapping stream, which would cost every read a hop.
      const end = () => {
        if (ended) return;
        ended = true;
        controller.close();
        source.cancel(signal?.reason).catch(() => {});
      };
      if (signal?.aborted) end();
      else signal?.addEventListener("abort", end, { once: true });
    },
    async pull(controller) {
      try {
        while (true) {
          const chunk = await source.read();
          if (ended) return;
          const lines: string[] = [];
          if (chunk === undefined) {
            ended = true;
            splitter.end(lines);
            if (lines.length > 0) controller.enqueue(lines);
            controller.close();
            return;
          }
          splitter.push(chunk, lines);
          if (lines.length > 0) {
            controller.enqueue(lines);
            return;
          }
        }
      } catch (error) {
        if (ended) return;
        ended = true;
        await source.cancel(error).catch(() => {});
        throw error;
      }
    },
    cancel: (reason) => {
      ended = true;
      return source.cancel(reason);
    },
  }, { highWaterMark: 0 });
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
