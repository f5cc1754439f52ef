/**
 * The check of a configured request-state secret, apart from the sealer:
 * `createServer` checks the option at once, the sealer loads with the
 * modern era on its first request.
 *
 * @module
 */

import type { StateSecret } from "../../store/sealing_keys.ts";

/** The smallest secret accepted, in bytes: an AES-256 key's worth. */
export const MIN_SECRET_BYTES = 32;

/** Checks a configured secret; throws a RangeError naming the option. */
export function checkSecret(secret: unknown, option: string): asserts secret is StateSecret {
  const bytes = typeof secret === "string"
    ? new TextEncoder().encode(secret).length
    : secret instanceof Uint8Array
    ? secret.length
    : -1;
  if (bytes < 0) throw new TypeError(`${option} must be a string or a Uint8Array`);
  if (bytes < MIN_SECRET_BYTES) {
    throw new RangeError(`${option} must be at least ${MIN_SECRET_BYTES} bytes of secret`);
  }
}
