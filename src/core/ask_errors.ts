/**
 * The two errors of asking the client, apart from the asks themselves: a
 * tool's call path and every server's public surface need the classes, while
 * the asks (and the elicitation forms they check) load on a handler's first
 * ask.
 *
 * @module
 */

/**
 * Thrown (no request is sent) when the client did not declare the
 * capability a server → client request needs.
 *
 * @example Falling back when the client cannot sample
 * ```ts
 * import { MissingCapabilityError } from "@warden/mcp";
 * try {
 *   throw new MissingCapabilityError("sampling");
 * } catch (error) {
 *   if (!(error instanceof MissingCapabilityError)) throw error;
 * }
 * ```
 */
export class MissingCapabilityError extends Error {
  /** The capability the client lacks. */
  readonly capability: string;

  /**
   * Creates the error for one capability.
   *
   * @param capability The name in the client's `capabilities`.
   */
  constructor(capability: string) {
    super(`The client does not support ${capability} (it declared no '${capability}' capability)`);
    this.name = "MissingCapabilityError";
    this.capability = capability;
  }
}

/**
 * Thrown into a handler, in the modern era, by an ask the client has not
 * answered yet: the request ends with an `InputRequiredResult` and runs
 * again when the client retries with the answer. Handlers need not catch
 * it; one that does still ends with the input request.
 *
 * @example Usage
 * ```ts
 * import { InputRequiredError } from "@warden/mcp";
 * const error = new InputRequiredError("user_name");
 * console.assert(error.key === "user_name");
 * ```
 */
export class InputRequiredError extends Error {
  /** The input key the client will answer under. */
  readonly key: string;

  /**
   * Creates the signal for one unanswered ask.
   *
   * @param key The input key of the ask.
   */
  constructor(key: string) {
    super(`The client's answer to '${key}' is needed: the request will be retried with it`);
    this.name = "InputRequiredError";
    this.key = key;
  }
}
