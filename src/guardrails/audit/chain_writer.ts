/**
 * Writes audit entries as a hash chain to a sink that takes lines (the
 * stderr and file sinks). A chain begins lazily, at the first entry, with a
 * genesis line; a file sink's chain first reads the file's last line and
 * continues its `seq` and hash, so the sequence survives restarts. Entries
 * that arrive while the tail is being read wait, in order: a durable sink's
 * caller waits with them, any other's does not (its append follows the reply
 * anyway, and a flush waits for them).
 *
 * @module
 */

import type { AuditEntry } from "./audit.ts";
import { AuditChain, type ChainLink } from "./chain.ts";
import { boundedEntryJson } from "./audit_line.ts";

/** Where a file's log ended, as read before a new chain starts. */
export interface LogTail {
  /** The last complete chained line, when the file ends with one. */
  readonly last: ChainLink | undefined;
  /** Whether the file ends inside a line (a crash mid-write): the new chain starts on a new line. */
  readonly needsNewline: boolean;
}

/** A sink that writes lines itself: the built-in stderr and file sinks. */
export interface LineSink {
  /** Writes one line (no line feed); a promise when it is stored durably. Never throws. */
  writeLine(line: string): void | Promise<void>;
  /** For a file: where it ends, so the chain can continue it. */
  readTail?(): Promise<LogTail>;
  /** Whether a line counts as written only once stored (the durable file sink). */
  readonly durable?: boolean;
  /** Where its failures go. */
  readonly report: (error: unknown) => void;
}

/** What a chain writer is configured with. */
export interface ChainOptions {
  /** The HMAC key, or none for plain SHA-256. */
  readonly key: Uint8Array | undefined;
  /** The bound of one line in bytes. */
  readonly maxLineBytes: number;
  /** The wall clock, ms since the epoch. */
  readonly now: () => number;
}

function ignore(): void {}

/** One run's chain over one line sink. */
export class ChainWriter {
  readonly #sink: LineSink;
  readonly #options: ChainOptions;
  #chain: AuditChain | undefined;
  #starting: Promise<void> | undefined;
  /** Entries that arrived while the tail was read, with what to tell their callers. */
  readonly #waiting: { entry: AuditEntry; done: (written: void | Promise<void>) => void }[] = [];
  /** Whether the last line written is a checkpoint (so a second flush adds none). */
  #checkpointed = false;

  constructor(sink: LineSink, options: ChainOptions) {
    this.#sink = sink;
    this.#options = options;
  }

  /** Seals and writes one entry (its `seq` is the chain's next). */
  write(entry: AuditEntry): void | Promise<void> {
    if (this.#chain !== undefined) return this.#writeEntry(this.#chain, entry);
    const starting = this.#start();
    if (starting === undefined) return this.#writeEntry(this.#ready(), entry);
    // Queued behind the tail read; #begin writes the queue, in order, before any later entry.
    // Only a durable sink's caller waits: the first calls of a run must not turn asynchronous
    // (and, written at once, pile up past the in-flight quota) for a read that a non-durable
    // sink never made the reply wait for. checkpoint(), and so flush, runs after the queue.
    if (this.#sink.durable !== true) {
      this.#waiting.push({ entry, done: ignore });
      return;
    }
    return new Promise((resolve) => this.#waiting.push({ entry, done: resolve }));
  }

  /** Writes a checkpoint unless the chain has not begun or already ends with one. */
  checkpoint(): void | Promise<void> {
    if (this.#chain === undefined) {
      return this.#starting?.then(() => this.checkpoint());
    }
    if (this.#checkpointed) return;
    this.#checkpointed = true;
    return this.#sink.writeLine(this.#chain.checkpoint(this.#options.now()));
  }

  #ready(): AuditChain {
    if (this.#chain === undefined) throw new Error("The audit chain has not begun");
    return this.#chain;
  }

  #writeEntry(chain: AuditChain, entry: AuditEntry): void | Promise<void> {
    entry.seq = chain.nextSeq();
    chain.entries++;
    this.#checkpointed = false;
    const json = boundedEntryJson(entry, this.#options.maxLineBytes, this.#sink.report);
    return this.#sink.writeLine(chain.seal(json));
  }

  /** Begins the chain: at once for stderr, after reading the tail for a file. */
  #start(): Promise<void> | undefined {
    if (this.#starting !== undefined) return this.#starting;
    const readTail = this.#sink.readTail;
    if (readTail === undefined) {
      this.#begin({ last: undefined, needsNewline: false }, "process");
      return undefined;
    }
    this.#starting = readTail.call(this.#sink).then(
      (tail) => this.#begin(tail, "file"),
      (error: unknown) => {
        this.#sink.report(error);
        return this.#begin({ last: undefined, needsNewline: false }, "file");
      },
    );
    return this.#starting;
  }

  #begin(tail: LogTail, scope: "file" | "process"): void | Promise<void> {
    const chain = new AuditChain(this.#options.key, tail.last);
    this.#chain = chain;
    const line = chain.genesis(this.#options.now(), scope, this.#options.maxLineBytes, tail.last);
    // A line cut short by a crash is closed first, so the genesis starts a line of its own.
    const genesis = this.#sink.writeLine(tail.needsNewline ? `\n${line}` : line);
    // In the same turn as the chain became ready, so no later entry can pass a waiting one.
    for (const { entry, done } of this.#waiting.splice(0)) done(this.#writeEntry(chain, entry));
    return genesis;
  }
}
