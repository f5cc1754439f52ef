/**
 * Audit sinks: stderr, an append-only JSON Lines file, and a callback. The
 * stderr and file sinks take lines as well as entries (see
 * {@linkcode lineSinkOf}): through them the audit log writes its hash chain.
 *
 * Every sink follows one failure policy: an error (a full disk, a closed
 * file, a throwing callback, a write after `close`) is reported through
 * `onError` once per distinct message and never thrown into the caller or left
 * as an unhandled rejection; later entries keep trying. The modules used are
 * `node:` built-ins, so the sinks run on Deno, Node and Bun alike.
 *
 * @module
 */

import type { AuditEntry, AuditSink } from "./audit.ts";
import { FileAppender } from "./file_appender.ts";
import { boundedEntryJson, DEFAULT_MAX_LINE_BYTES } from "./audit_line.ts";
import type { LineSink } from "./chain_writer.ts";
import { readLogTail } from "./log_tail.ts";

const MAX_REPORTED_MESSAGES = 100;
const CLOSED_MESSAGE = "Cannot write audit entry: the sink is closed";

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const stderrEncoder = new TextEncoder();

/** Synchronous, so an entry is on stderr before the call's reply goes out. */
function writeStderr(text: string): void {
  if (typeof Deno !== "undefined") {
    let bytes = stderrEncoder.encode(text);
    while (bytes.length > 0) bytes = bytes.subarray(Deno.stderr.writeSync(bytes));
    return;
  }
  console.error(text.endsWith("\n") ? text.slice(0, -1) : text);
}

function reportToStderr(error: unknown): void {
  writeStderr(`warden: audit sink failed: ${messageOf(error)}\n`);
}

function ignore(): void {}

/** Wraps `onError` so that each distinct message is reported once and reporting never throws. */
function createReporter(onError: (error: unknown) => void): (error: unknown) => void {
  const seen = new Set<string>();
  return (error) => {
    const message = messageOf(error);
    if (seen.has(message) || seen.size >= MAX_REPORTED_MESSAGES) return;
    seen.add(message);
    try {
      const result: unknown = onError(error);
      if (result instanceof Promise) result.catch(ignore); // the same for an async reporter
    } catch {
      // A failure of the error reporter itself has nowhere left to go.
    }
  };
}

/** One entry written directly (not through the audit log's chain): bounded, unchained. */
function toJson(entry: AuditEntry, report: (error: unknown) => void): string {
  return boundedEntryJson(entry, DEFAULT_MAX_LINE_BYTES, report);
}

/** The built-in sinks that take lines, so the audit log can chain what it writes to them. */
const lineSinks = new WeakMap<AuditSink, LineSink>();

/** The line-taking side of a built-in stderr or file sink; undefined for any other sink. */
export function lineSinkOf(sink: AuditSink): LineSink | undefined {
  return lineSinks.get(sink);
}

/**
 * A sink that writes one JSON line per entry to stderr, synchronously, never
 * to stdout (which belongs to the protocol on stdio).
 *
 * @param options Where lines go and where failures are reported.
 * @returns The sink; `flush` resolves at once, as nothing is buffered.
 *
 * @example Usage
 * ```ts
 * import { stderrAuditSink } from "@warden/mcp/guardrails";
 * const sink = stderrAuditSink();
 * await sink.close();
 * ```
 */
export function stderrAuditSink(options: {
  /**
   * Called with each failure, at most once per distinct message (and for at
   * most 100 messages per sink, so a failing disk cannot flood the log).
   *
   * @default {writes "warden: audit sink failed: <message>" to stderr}
   */
  onError?: (error: unknown) => void;
  /**
   * Receives each entry as one line of JSON, the trailing `\n` included, and
   * must write it synchronously.
   *
   * @default {a synchronous write to the process's stderr}
   */
  write?: (line: string) => void;
} = {}): AuditSink {
  const write = options.write ?? writeStderr;
  const report = createReporter(options.onError ?? reportToStderr);
  let closed = false;
  function writeLine(line: string): void {
    if (closed) return report(new Error(CLOSED_MESSAGE));
    try {
      write(`${line}\n`);
    } catch (error) {
      report(error);
    }
  }
  const sink: AuditSink = {
    write: (entry) => writeLine(toJson(entry, report)),
    flush: () => Promise.resolve(),
    close() {
      closed = true;
      return Promise.resolve();
    },
  };
  lineSinks.set(sink, { writeLine, report });
  return sink;
}

/**
 * A sink that appends one JSON line per entry to a file (JSON Lines), never
 * truncating it. `write` only serialises the entry and queues the line; a
 * single writer loop appends the queue in order, a batch at a time (whatever
 * was written while the previous batch was being appended), encoding each
 * batch once into a reused buffer. The file is opened on the first write, with
 * `node:fs/promises` (on Deno this needs only `--allow-write` for the file);
 * a file that cannot be opened or written is reported, its batch dropped, and
 * the next write tries again.
 *
 * @param path The log file; created if missing, appended to if not.
 * @param options Durability and where failures are reported.
 * @returns The sink; `flush` resolves when every line written so far was
 *   appended (see `sync`); with `durable`, so does each `write` for its own line.
 * @throws {TypeError} `path` is not a non-empty string.
 *
 * @example Usage
 * ```ts
 * import { fileAuditSink } from "@warden/mcp/guardrails";
 * const dir = await Deno.makeTempDir();
 * const sink = fileAuditSink(`${dir}/audit.jsonl`, { sync: true });
 * await sink.close();
 * ```
 */
export function fileAuditSink(path: string, options: {
  /**
   * Called with each failure, at most once per distinct message (and for at
   * most 100 messages per sink, so a failing disk cannot flood the log).
   *
   * @default {writes "warden: audit sink failed: <message>" to stderr}
   */
  onError?: (error: unknown) => void;
  /**
   * Whether each batch of lines is followed by `datasync`, so that a resolved
   * `flush()` means the lines survive a power cut and not only a crash of the
   * process. Batches grow under load, which keeps the cost down.
   *
   * @default {false}
   */
  sync?: boolean;
  /**
   * Whether each entry is appended and synced (`datasync`) before `write`
   * resolves, so the audit log answers a call only once its line is on disk
   * and an answered call keeps its line even if the process is killed
   * (SIGKILL) or the machine loses power. Concurrent calls share one sync, so
   * the cost per call falls under load. Implies `sync`.
   *
   * @default {false}
   */
  durable?: boolean;
} = {}): AuditSink {
  if (typeof path !== "string" || path === "") {
    throw new TypeError("Invalid audit file path: expected a non-empty string");
  }
  const report = createReporter(options.onError ?? reportToStderr);
  const durable = options.durable ?? false;
  const file = new FileAppender(path, durable || (options.sync ?? false), report);
  function writeLine(line: string): void | Promise<void> {
    if (file.closed) return report(new Error(CLOSED_MESSAGE));
    const accepted = file.append(line);
    if (durable) return file.settledUpTo(accepted);
  }
  const sink: AuditSink = {
    write: (entry) => writeLine(toJson(entry, report)),
    flush: () => file.flush(),
    close: () => file.close(),
  };
  lineSinks.set(sink, { writeLine, report, readTail: () => readLogTail(path), durable });
  return sink;
}

/**
 * A sink that hands each entry to a function, in order, as it is written.
 * Calls are not serialised: a function that returns a promise may run
 * alongside the next call, and `flush` waits for the promises pending when it
 * was called. A throw or a rejection is reported, not propagated.
 *
 * @param fn Receives each entry.
 * @param options Where failures are reported.
 * @returns The sink.
 *
 * @example Usage
 * ```ts
 * import { type AuditEntry, callbackAuditSink } from "@warden/mcp/guardrails";
 * const entries: AuditEntry[] = [];
 * const sink = callbackAuditSink((entry) => void entries.push(entry));
 * ```
 */
export function callbackAuditSink(
  fn: (entry: AuditEntry) => void | Promise<void>,
  options: {
    /**
     * Called with each failure, at most once per distinct message (and for at
     * most 100 messages per sink, so a failing disk cannot flood the log).
     *
     * @default {writes "warden: audit sink failed: <message>" to stderr}
     */
    onError?: (error: unknown) => void;
  } = {},
): AuditSink {
  const report = createReporter(options.onError ?? reportToStderr);
  const pending = new Set<Promise<void>>();
  let closed = false;

  function flush(): Promise<void> {
    return Promise.all(pending).then(ignore);
  }

  return {
    write(entry) {
      if (closed) return report(new Error(CLOSED_MESSAGE));
      let result: void | Promise<void>;
      try {
        result = fn(entry);
      } catch (error) {
        return report(error);
      }
      if (!(result instanceof Promise)) return;
      // The tracked promise settles either way, so flush() never rejects.
      const tracked: Promise<void> = result.then(
        () => void pending.delete(tracked),
        (error: unknown) => {
          pending.delete(tracked);
          report(error);
        },
      );
      pending.add(tracked);
    },
    flush,
    close() {
      closed = true;
      return flush();
    },
  };
}

/** Options for {@linkcode fileAuditSink}. */
export type FileAuditSinkOptions = NonNullable<Parameters<typeof fileAuditSink>[1]>;

/** Options for {@linkcode stderrAuditSink}. */
export type StderrAuditSinkOptions = NonNullable<Parameters<typeof stderrAuditSink>[0]>;

/** Options every sink takes. */
export type AuditSinkOptions = NonNullable<Parameters<typeof callbackAuditSink>[1]>;
