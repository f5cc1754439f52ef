/**
 * Reporting a shared store's outages: once when it goes down, once when it
 * is back, never per failed call, so a dead Redis cannot flood stderr.
 *
 * @module
 */

/** Tracks whether a store is reachable and reports each change once. */
export class OutageReporter {
  readonly #name: string;
  readonly #log: (message: string) => void;
  #down = false;

  /**
   * @param name The store as messages name it, e.g. `redis://127.0.0.1:6379/0`.
   * @param log Where reports go.
   */
  constructor(name: string, log: (message: string) => void) {
    this.#name = name;
    this.#log = log;
  }

  /** Whether the last report was an outage. */
  get down(): boolean {
    return this.#down;
  }

  /** Records a failure; reports it only if the store was up. */
  failed(reason: string): void {
    if (this.#down) return;
    this.#down = true;
    this.#log(`warden: shared store ${this.#name} is unreachable (${reason}); retrying`);
  }

  /** Records a success; reports the recovery only if the store was down. */
  recovered(): void {
    if (!this.#down) return;
    this.#down = false;
    this.#log(`warden: shared store ${this.#name} is reachable again`);
  }
}

/** The message of any thrown value. */
export function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The store URL with any password hidden, for messages. */
export function describeUrl(url: string): string {
  return url.replace(/\/\/([^@/]*)@/, "//***@");
}
