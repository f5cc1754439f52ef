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

  /** Reports, once, a failure that no retry can fix (a permission error). */
  fatal(reason: string): void {
    if (this.#down) return;
    this.#down = true;
    this.#log(`warden: shared store ${this.#name} cannot be used (${reason}); not retrying`);
  }

  /** Records a success; reports the recovery only if the store was down. */
  recovered(): void {
    if (!this.#down) return;
    this.#down = false;
    this.#log(`warden: shared store ${this.#name} is reachable again`);
  }
}

/**
 * Whether an error is the runtime refusing a permission (`--allow-net`,
 * `--allow-read`…): Deno's `NotCapable` (or `PermissionDenied`), also when a
 * Node-compatible layer rewrapped it. Waiting never fixes one, so it is
 * never treated as a transient outage.
 */
export function isPermissionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const errors = (globalThis as { Deno?: { errors?: Record<string, unknown> } }).Deno?.errors;
  for (const name of ["NotCapable", "PermissionDenied"]) {
    const type = errors?.[name];
    if (typeof type === "function" && error instanceof type) return true;
    if (error.name === name) return true;
  }
  // Deno's message, as node:net reports it: 'Requires net access to "host:port", run again with…'.
  return /^Requires [a-z]+ access to /.test(error.message);
}

/** The message of any thrown value. */
export function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The store URL with any password hidden, for messages: the whole user
 * information, up to the authority's last `@` (a password may hold one).
 */
export function describeUrl(url: string): string {
  return url.replace(/\/\/[^/?#]*@/, "//***@");
}
