/**
 * JSON-RPC error codes Warden answers with, the error class that carries
 * one out of a handler, and the quoting that keeps a peer's text in a
 * message short and unable to break it.
 *
 * @module
 */

/**
 * The error codes on Warden's wire. The first five are JSON-RPC 2.0's own;
 * -32001 and -32002 are the Warden family's (its Python and Go siblings use the
 * same numbers), which other MCP code uses differently: see docs/error-codes.md.
 *
 * @example Checking a reply's code
 * ```ts
 * import { ErrorCode } from "@warden/mcp";
 * const reply = { error: { code: -32002 } };
 * console.assert(reply.error.code === ErrorCode.RateLimited);
 * ```
 */
export const ErrorCode = {
  /** The peer sent text that is not JSON (only a transport that can answer raises it). */
  ParseError: -32700,
  /** The envelope is not a JSON-RPC 2.0 request or notification. */
  InvalidRequest: -32600,
  /** Unknown method, tool, resource or prompt. */
  MethodNotFound: -32601,
  /** Parameters failed validation; `data` lists each violation. */
  InvalidParams: -32602,
  /** An unexpected failure inside the server; details go to stderr only. */
  InternalError: -32603,
  /** The access policy refused the call. */
  AccessDenied: -32001,
  /** The rate limiter's bucket is empty; `data.retry_after_seconds` says when to retry. */
  RateLimited: -32002,
} as const;

/** One of the codes in {@linkcode ErrorCode}, or any other integer a custom handler chooses. */
export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

/**
 * A protocol error: the call could not be made. Thrown from a method handler
 * (or a guardrail) it becomes a JSON-RPC error reply with this code, message
 * and data. Anything else a handler throws becomes -32603 with a generic
 * message, so internals never reach the client by accident.
 *
 * A tool handler that throws a plain `Error` produces an `isError` result
 * instead: that is the call failing, not the protocol.
 *
 * @example Refusing a call from a prompt handler
 * ```ts
 * import { ErrorCode, RpcError } from "@warden/mcp";
 * const error = new RpcError(ErrorCode.InvalidParams, "Unknown region: 'mars'");
 * console.assert(error.code === -32602);
 * ```
 */
export class RpcError extends Error {
  /** The JSON-RPC error code sent to the client. */
  readonly code: number;
  /** Optional structured detail sent to the client as `error.data`. */
  readonly data: unknown;

  /**
   * Creates a protocol error.
   *
   * @param code The JSON-RPC error code.
   * @param message A message safe to show the client.
   * @param data Optional detail sent as `error.data`.
   */
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "RpcError";
    this.code = code;
    this.data = data;
  }
}

/**
 * A -32602 error for malformed request params, worded alike in every layer:
 * `Invalid params: ` and then what is wrong (`uri must be a string`).
 */
export function invalidParamsError(detail: string): RpcError {
  return new RpcError(ErrorCode.InvalidParams, `Invalid params: ${detail}`);
}

/**
 * Text from the peer (a method, tool or header name) as it goes into a
 * message or log line: a JSON string, so quotes and control characters are
 * escaped, cut to `max` characters with `…` so a huge name is not echoed whole.
 * A name to be cut passes `mask` first: a secret the cut went through would
 * no longer be whole for the mask that sees the message later.
 */
export function quote(value: string, max = 80, mask?: (text: string) => string): string {
  if (value.length <= max) return JSON.stringify(value);
  const whole = mask === undefined ? value : mask(value);
  return JSON.stringify(whole.length > max ? `${whole.slice(0, max)}…` : whole);
}
