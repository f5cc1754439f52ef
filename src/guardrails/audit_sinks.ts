/**
 * Audit sinks: stderr, an append-only JSON Lines file, and a callback.
 *
 * Every sink follows one failure policy: an error (a full disk, a closed
 * file, a throwing callback, a write after `close`) is reported through
 * `onError` once per distinct message and never thrown into the caller or left
 * as an unhandled rejection; later entries keep trying. The modules used are
 * `node:` built-ins, so the sinks run on Deno, Node and Bun alike.
 *
 * @module
 */

import process from "node:process";
import { type FileHandle, open } from "node:fs/promises";
import type { AuditEntry, AuditSink } from "./audit.ts";

/** Options every sink takes. */
export interface AuditSinkOptions {
  /**
   * Called with each failure, at most once per distinct message (and for at
   * most 100 messages per sink, so a failing disk cannot flood the log).
   *
   * @default {writes "warden: audit sink failed: <message>" to stderr}
   */
  onError?: (error: unknown) => void;
}

/** Options for {@linkcode stderrAuditSink}. */
export interface StderrAuditSinkOptions extends AuditSinkOptions {
  /**
   * Receives each entry as one line of JSON, the trailing `\n` included, and
   * must write it synchronously.
   *
   * @default {`process.stderr.write` from `node:process`}
   */
  write?: (line: string) => void;
}

/** Options for {@linkcode fileAuditSink}. */
export interface FileAuditSinkOptions extends AuditSinkOptions {
  /**
   * Whether each batch of lines is followed by `datasync`, so that a resolved
   * `flush()` means the lines survive a power cut and not only a crash of the
   * process. Batches grow under load, which keeps the cost down.
   *
   * @default {false}
   */
  sync?: boolean;
}

const MAX_REPORTED_MESSAGES = 100;
const CLOSED_MESSAGE = "Cannot write audit entry: the sink is closed";

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function writeStderr(text: string): void {
  process.stderr.write(text);
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

/** One JSON line; arguments that cannot be serialised (a BigInt) are replaced, not the entry lost. */
function toLine(entry: AuditEntry, report: (error: unknown) => void): string {
  try {
    return `${JSON.stringify(entry)}\n`;
  } catch (error) {
    report(error);
    return `${JSON.stringify({ ...entry, arguments: "[unserializable]" })}\n`;
  }
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
 * import { stderrAuditSink } from "@warden/mcp";
 * const sink = stderrAuditSink();
 * await sink.close();
 * ```
 */
export function stderrAuditSink(options: StderrAuditSinkOptions = {}): AuditSink {
  const write = options.write ?? writeStderr;
  const report = createReporter(options.onError ?? reportToStderr);
  let closed = false;
  return {
    write(entry) {
      if (closed) return report(new Error(CLOSED_MESSAGE));
      try {
        write(toLine(entry, report));
      } catch (error) {
        report(error);
      }
    },
    flush: () => Promise.resolve(),
    close() {
      closed = true;
      return Promise.resolve();
    },
  };
}

/**
 * A sink that appends one JSON line per entry to a file (JSON Lines), never
 * truncating it. `write` only queues; a single writer loop appends the queue
 * in order, a batch at a time. The file is opened on the first write, with
 * `node:fs/promises` (on Deno this needs only `--allow-write` for the file);
 * a file that cannot be opened or written is reported, its batch dropped, and
 * the next write tries again.
 *
 * @param path The log file; created if missing, appended to if not.
 * @param options Durability and where failures are reported.
 * @returns The sink; `flush` resolves when every line written so far was appended (see `sync`).
 * @throws {TypeError} `path` is not a non-empty string.
 *
 * @example Usage
 * ```ts
 * import { fileAuditSink } from "@warden/mcp";
 * const dir = await Deno.makeTempDir();
 * const sink = fileAuditSink(`${dir}/audit.jsonl`, { sync: true });
 * await sink.close();
 * ```
 */
export function fileAuditSink(path: string, options: FileAuditSinkOptions = {}): AuditSink {
  if (typeof path !== "string" || path === "") {
    throw new TypeError("Invalid audit file path: expected a non-empty string");
  }
  const report = createReporter(options.onError ?? reportToStderr);
  const sync = options.sync ?? false;
  let queue: string[] = [];
  let accepted = 0; // lines taken by write()
  let settled = 0; // lines appended or dropped after a failure
  const waiters: { target: number; resolve: () => void }[] = [];
  let handle: FileHandle | null = null;
  let draining = false;
  let closing: Promise<void> | null = null;

  function wake(): void {
    // Targets only grow, so the waiters to release are always at the front.
    for (
      let first = waiters[0];
      first !== undefined && first.target <= settled;
      first = waiters[0]
    ) {
      waiters.shift();
      first.resolve();
    }
  }

  async function drain(): Promise<void> {
    draining = true;
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      try {
        handle ??= await open(path, "a");
        await handle.appendFile(batch.join(""));
        if (sync) await handle.datasync();
      } catch (error) {
        report(error);
      }
      settled += batch.length;
      wake();
    }
    draining = false;
  }

  function flush(): Promise<void> {
    if (settled >= accepted) return Promise.resolve();
    return new Promise((resolve) => waiters.push({ target: accepted, resolve }));
  }

  async function shut(): Promise<void> {
    await flush();
    const current = handle;
    handle = null;
    try {
      await current?.close();
    } catch (error) {
      report(error);
    }
  }

  return {
    write(entry) {
      if (closing !== null) return report(new Error(CLOSED_MESSAGE));
      queue.push(toLine(entry, report));
      accepted++;
      // drain() catches every failure itself, so its promise never rejects.
      if (!draining) void drain();
    },
    flush,
    close() {
      closing ??= shut();
      return closing;
    },
  };
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
 * import { type AuditEntry, callbackAuditSink } from "@warden/mcp";
 * const entries: AuditEntry[] = [];
 * const sink = callbackAuditSink((entry) => void entries.push(entry));
 * ```
 */
export function callbackAuditSink(
  fn: (entry: AuditEntry) => void | Promise<void>,
  options: AuditSinkOptions = {},
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
