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

// Types only: node:fs is imported when a file sink first writes, so servers
// without one never load Node compatibility (cold start).
import type { FileHandle } from "node:fs/promises";
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
   * @default {a synchronous write to the process's stderr}
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
}

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

/** One entry's JSON; arguments that cannot be serialised (a BigInt) are replaced, not the entry lost. */
function toJson(entry: AuditEntry, report: (error: unknown) => void): string {
  try {
    return JSON.stringify(entry);
  } catch (error) {
    report(error);
    return JSON.stringify({ ...entry, arguments: "[unserializable]" });
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
 * import { stderrAuditSink } from "@warden/mcp/guardrails";
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
        write(`${toJson(entry, report)}\n`);
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
export function fileAuditSink(path: string, options: FileAuditSinkOptions = {}): AuditSink {
  if (typeof path !== "string" || path === "") {
    throw new TypeError("Invalid audit file path: expected a non-empty string");
  }
  const report = createReporter(options.onError ?? reportToStderr);
  const durable = options.durable ?? false;
  const sync = durable || (options.sync ?? false);
  const encoder = new TextEncoder();
  let queue: string[] = []; // lines without their line feed, oldest first
  let buffer: Uint8Array | undefined; // reused for every batch; only the writer loop uses it
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

  /**
   * Appends a batch: its lines joined into one string and encoded once, in
   * pieces the size of the reused buffer, each written in full before the next.
   */
  async function append(file: FileHandle, lines: string[]): Promise<void> {
    lines.push(""); // so that the last line ends in a line feed too
    let rest = lines.join("\n");
    const wanted = Math.min(MAX_BUFFER_BYTES, Math.max(MIN_BUFFER_BYTES, rest.length + 1024));
    if (buffer === undefined || buffer.length < wanted) buffer = new Uint8Array(wanted);
    while (rest.length > 0) {
      // encodeInto stops before a character that does not fit, never inside one.
      const { read, written } = encoder.encodeInto(rest, buffer);
      for (let offset = 0; offset < written;) {
        const { bytesWritten } = await file.write(buffer, offset, written - offset);
        if (bytesWritten <= 0) throw new Error(`Cannot append to ${path}: nothing was written`);
        offset += bytesWritten;
      }
      rest = rest.slice(read);
    }
  }

  async function drain(): Promise<void> {
    draining = true;
    while (queue.length > 0) {
      const batch = queue;
      const count = batch.length;
      queue = [];
      try {
        handle ??= await (await import("node:fs/promises")).open(path, "a");
        await append(handle, batch);
        if (sync) await handle.datasync();
      } catch (error) {
        report(error);
      }
      settled += count;
      wake();
    }
    draining = false;
  }

  /** Resolves once the first `target` lines accepted are appended (or dropped after a failure). */
  function settledUpTo(target: number): Promise<void> {
    if (settled >= target) return Promise.resolve();
    return new Promise((resolve) => waiters.push({ target, resolve }));
  }

  function flush(): Promise<void> {
    return settledUpTo(accepted);
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
      queue.push(toJson(entry, report));
      accepted++;
      // drain() catches every failure itself, so its promise never rejects.
      if (!draining) void drain();
      if (durable) return settledUpTo(accepted);
    },
    flush,
    close() {
      closing ??= shut();
      return closing;
    },
  };
}

const MIN_BUFFER_BYTES = 16 * 1024;
const MAX_BUFFER_BYTES = 1024 * 1024;

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
