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
  /** The `typ` header required (RFC 9068: `at+jwt`, `application/` prefix optional), if any. */
  readonly typ: string | undefined;
}

/** Whether `token` has the shape of a JWS in compact form (three base64url parts). */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);
}

/** The audit reasons of the claims jose names when one fails its check. */
const CLAIM_REASONS: ReadonlyMap<string, string> = new Map([
  ["iss", "wrong_issuer"],
  ["aud", "wrong_audience"],
  ["nbf", "not_yet_valid"],
  ["exp", "missing_exp"],
  ["iat", "bad_iat"],
  ["typ", "wrong_type"],
]);

/** The audit reasons of jose's error codes. */
const CODE_REASONS: ReadonlyMap<string, string> = new Map([
  ["ERR_JWT_EXPIRED", "expired"],
  ["ERR_JWS_SIGNATURE_VERIFICATION_FAILED", "bad_signature"],
  ["ERR_JOSE_ALG_NOT_ALLOWED", "algorithm_not_allowed"],
  ["ERR_JOSE_NOT_SUPPORTED", "algorithm_not_allowed"],
  ["ERR_JWKS_NO_MATCHING_KEY", "unknown_key"],
  ["ERR_JWKS_MULTIPLE_MATCHING_KEYS", "ambiguous_key"],
  ["ERR_JWS_INVALID", "malformed_token"],
  ["ERR_JWT_INVALID", "malformed_token"],
]);

/**
 * Why jose refused a token, as a fixed audit reason (never its message,
 * which may quote the token's content).
 */
export function rejectionReason(error: unknown): string {
  if (typeof error !== "object" || error === null) return "invalid_token";
  const { code, claim } = error as { code?: unknown; claim?: unknown };
  if (code === "ERR_JWT_CLAIM_VALIDATION_FAILED" && typeof claim === "string") {
    return CLAIM_REASONS.get(claim) ?? "invalid_claim";
  }
  return (typeof code === "string" ? CODE_REASONS.get(code) : undefined) ?? "invalid_token";
}

/**
 * The claims of a valid token; for a token that is not valid for this
 * resource, the reason as a string (the audit's: the caller answers 401
 * whatever it is).
 *
 * @throws {UpstreamError} When the issuer's keys cannot be had.
 */
export async function verifyJwt(
  jose: JoseModule,
  issuer: Issuer,
  token: string,
  checks: JwtChecks,
): Promise<Record<string, unknown> | string> {
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
        // jose compares case-insensitively, with or without the "application/" prefix.
        ...(checks.typ === undefined ? {} : { typ: checks.typ }),
      },
    );
    return payload;
  } catch (error) {
    if (error instanceof UpstreamError) throw error;
    return rejectionReason(error);
  }
}
