/**
 * JWT access tokens (RFC 9068) checked as a resource server must: signed
 * by a key of the issuer's JWKS with an algorithm from the allow-list
 * (never `none`, never an HMAC), from the configured issuer, for this
 * resource as audience (RFC 8707), within `exp` and `nbf` give or take a
 * small skew.
 *
 * @module
 */

import type { JoseModule } from "../runtime/npm/jose.ts";
import { UpstreamError } from "./fetch_json.ts";
import type { Issuer } from "./issuer.ts";

/** The asymmetric algorithms accepted by default. */
export const DEFAULT_ALGORITHMS: readonly string[] = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
];

/**
 * Checks an algorithm allow-list: asymmetric signatures only, so a public
 * key can never be used as an HMAC secret and an unsigned token never passes.
 *
 * @throws {TypeError} A list that is empty or names `none`, an HMAC or an unknown algorithm.
 */
export function checkAlgorithms(algorithms: readonly string[], what: string): readonly string[] {
  if (!Array.isArray(algorithms) || algorithms.length === 0) {
    throw new TypeError(`Invalid auth options: ${what} must list at least one algorithm`);
  }
  for (const alg of algorithms) {
    if (!DEFAULT_ALGORITHMS.includes(alg)) {
      throw new TypeError(
        `Invalid auth options: ${what} names ${JSON.stringify(alg)}; allowed: ${
          DEFAULT_ALGORITHMS.join(", ")
        } (never none or HS*)`,
      );
    }
  }
  return Object.freeze([...algorithms]);
}

/** What a JWT is checked against. */
export interface JwtChecks {
  /** The issuer identifier (`iss`). */
  readonly issuer: string;
  /** The canonical resource URI (`aud`). */
  readonly audience: string;
  /** The allowed algorithms. */
  readonly algorithms: readonly string[];
  /** The clock skew tolerated on `exp`, `nbf` and `iat`, in seconds. */
  readonly clockSkewSeconds: number;
  /** The clock, in ms. */
  readonly now: () => number;
}

/** Whether `token` has the shape of a JWS in compact form (three base64url parts). */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);
}

/**
 * The claims of a valid token; null for a token that is not valid for this
 * resource (whatever the reason: the caller answers 401 either way).
 *
 * @throws {UpstreamError} When the issuer's keys cannot be had.
 */
export async function verifyJwt(
  jose: JoseModule,
  issuer: Issuer,
  token: string,
  checks: JwtChecks,
): Promise<Record<string, unknown> | null> {
  try {
    const { payload } = await jose.jwtVerify(
      token,
      (header, jws) => issuer.key(header, jws),
      {
        issuer: checks.issuer,
        audience: checks.audience,
        algorithms: [...checks.algorithms],
        clockTolerance: checks.clockSkewSeconds,
        currentDate: new Date(checks.now()),
        requiredClaims: ["exp"],
      },
    );
    return payload;
  } catch (error) {
    if (error instanceof UpstreamError) throw error;
    return null;
  }
}
