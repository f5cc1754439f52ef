/**
 * A part of the server loaded on first use: the first caller awaits the
 * module's import once, later ones get the part at once. A part that fails
 * to load gives each caller a clear error (and the next caller a new try)
 * instead of a hang or a crash.
 *
 * @module
 */

import { ErrorCode, RpcError } from "../jsonrpc/errors.ts";

/** One lazily loaded part. */
export class LazyPart<T> {
  readonly #load: () => Promise<T>;
  readonly #what: string;
  readonly #log: (message: string) => void;
  #value: T | undefined;
  #loading: Promise<T> | undefined;
  #closed = false;

  /**
   * `load` imports and builds the part (a static `import()` specifier, so
   * that `deno compile` and `deno publish` see the module); `what` names it
   * in errors.
   */
  constructor(load: () => Promise<T>, what: string, log: (message: string) => void) {
    this.#load = load;
    this.#what = what;
    this.#log = log;
  }

  /** The part, when it is loaded. */
  get value(): T | undefined {
    return this.#value;
  }

  /** Whether loading has begun (it may still be under way, or have failed). */
  get started(): boolean {
    return this.#loading !== undefined;
  }

  /** The part, loading it on the first call. */
  get(): Promise<T> {
    if (this.#closed) {
      return Promise.reject(new RpcError(ErrorCode.InternalError, "The server is shutting down"));
    }
    this.#loading ??= this.#load().then(
      (value) => (this.#value = value),
      (error: unknown) => {
        this.#loading = undefined;
        this.#log(`warden: cannot load ${this.#what}: ${String(error)}`);
        throw new RpcError(ErrorCode.InternalError, `Cannot load ${this.#what}`);
      },
    );
    return this.#loading;
  }

  /**
   * Stops loading: later calls of `get()` fail. Resolves to the part when it
   * was loaded or loading (so its owner can close it), else undefined.
   */
  async close(): Promise<T | undefined> {
    this.#closed = true;
    return await this.#loading?.catch(() => undefined);
  }
}
