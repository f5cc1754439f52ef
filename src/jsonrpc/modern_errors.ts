/**
 * The error codes of revision 2026-07-28, and Warden's own codes for
 * refusals in that era.
 *
 * @module
 */

/**
 * Error codes of the modern era. The first three are the specification's.
 * The revision forbids -32002 and discourages -32000 to -32019, so access
 * denied and rate limited use Warden codes outside the reserved JSON-RPC
 * range, with the same messages and `data` as the legacy -32001 and -32002.
 *
 * @example Telling a refusal in the modern era
 * ```ts
 * import { ModernErrorCode } from "@warden/mcp";
 * const reply = { error: { code: -31002, data: { retry_after_seconds: 3 } } };
 * console.assert(reply.error.code === ModernErrorCode.RateLimited);
 * ```
 */
export const ModernErrorCode = {
  /** HTTP headers that do not match the body, or are missing or malformed. */
  HeaderMismatch: -32020,
  /** The request needs a client capability it did not declare (`data.requiredCapabilities`). */
  MissingRequiredClientCapability: -32021,
  /** The request's revision is not served (`data.supported`, `data.requested`). */
  UnsupportedProtocolVersion: -32022,
  /** The access policy refused the call (legacy: -32001). */
  AccessDenied: -31001,
  /** The rate limiter's bucket is empty, `data.retry_after_seconds` (legacy: -32002). */
  RateLimited: -31002,
} as const;
