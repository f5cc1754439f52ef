/**
 * DPoP proofs (RFC 9449) for sender-constrained access tokens: the proof is
 * a JWT of type `dpop+jwt` signed by the public key in its own header; it
 * must name this request's method (`htm`) and URL (`htu`), be recent
 * (`iat`), be used once (`jti`, remembered for the window it is valid in),
 * carry the hash of the access token (`ath`), and its key must be the one
 * the token is bound to (`cnf.jkt`). With nonces on, it must also echo a
 * nonce the server issued, which a refusal hands out (`use_dpop_nonce`).
 *
 * @module
 */

import type { JoseModule } from "../runtime/npm/jose.ts";
import type { SharedStore } from "../store/shared_store.ts";
import type { Refusal } from "./challenge.ts";

/** How proofs are checked. */
export interface DpopSettings {
  /** The signing algorithms accepted for proofs. */
  readonly algorithms: readonly string[];
  /** How old a proof may be (by its `iat`), in seconds. */
  readonly maxAgeSeconds: number;
  /** The clock skew tolerated on `iat`, in seconds. */
  readonly clockSkewSeconds: number;
  /** Whether proofs must carry a server-issued nonce. */
  readonly nonce: boolean;
  /** The most proof ids remembered at once; beyond it new proofs are refused (fail closed). */
  readonly maxRemembered: number;
  /**
   * Where proof ids are remembered across instances (set-if-absent with a
   * TTL); without it, in this process only. An outage refuses proofs (503).
   */
  readonly store: SharedStore | undefined;
  /** The clock, in ms. */
  readonly now: () => number;
}

/** What a proof is checked against. */
export interface ProofTarget {
  /** The request (its method, URL and `DPoP` header). */
  readonly request: Request;
  /** The access token the proof must hash (`ath`). */
  readonly token: string;
  /** The thumbprint the token is bound to (`cnf.jkt`). */
  readonly jkt: string;
  /** The canonical resource URI, accepted as `htu` too (behind a proxy the request URL differs). */
  readonly resource: string;
}

const NONCE_LIFETIME_MS = 5 * 60_000;

/** SHA-256 of `text`, hex. */
async function digest(text: string): Promise<string> {
  const bytes = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)),
  );
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

function bad(description: string): Refusal {
  return { status: 401, error: "invalid_dpop_proof", description };
}

/** `url` without query and fragment, as RFC 9449 section 4.3 compares `htu`. */
function withoutQuery(url: string): string | undefined {
  if (!URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

/** One resource server's proof checker: its replay memory and its nonces. */
export class DpopChecker {
  readonly #jose: JoseModule;
  readonly #settings: DpopSettings;
  /** Proof ids seen, each with when it stops mattering (ms). */
  readonly #seen = new Map<string, number>();
  #nonces: { current: string; previous: string | undefined; since: number } | undefined;

  constructor(jose: JoseModule, settings: DpopSettings) {
    this.#jose = jose;
    this.#settings = settings;
  }

  /** The nonce to hand out now (rotated every few minutes; the previous one stays good). */
  nonce(): string {
    const now = this.#settings.now();
    if (this.#nonces === undefined || now - this.#nonces.since > NONCE_LIFETIME_MS) {
      const bytes = crypto.getRandomValues(new Uint8Array(16));
      this.#nonces = {
        current: this.#jose.base64url.encode(bytes),
        previous: this.#nonces?.current,
        since: now,
      };
    }
    return this.#nonces.current;
  }

  /** The refusal of the request's proof, or undefined when it holds. */
  async check(target: ProofTarget): Promise<Refusal | undefined> {
    const proof = target.request.headers.get("dpop");
    // Two DPoP headers arrive joined by a comma, which no compact JWS contains.
    if (proof === null || proof.includes(",") || proof.length > 8192) {
      return bad("one DPoP proof is required");
    }
    let header: Record<string, unknown>;
    let claims: Record<string, unknown>;
    try {
      const verified = await this.#jose.jwtVerify(proof, this.#jose.EmbeddedJWK, {
        typ: "dpop+jwt",
        algorithms: [...this.#settings.algorithms],
      });
      header = { ...verified.protectedHeader };
      claims = verified.payload;
    } catch {
      return bad("the DPoP proof does not verify");
    }
    const problem = await this.#claimsProblem(target, header, claims);
    if (problem !== undefined) return problem;
    if (this.#settings.nonce && !this.#nonceOk(claims.nonce)) {
      return {
        status: 401,
        error: "use_dpop_nonce",
        description: "a DPoP nonce is required",
        nonce: this.nonce(),
      };
    }
    const key = `${target.jkt}:${String(claims.jti)}`;
    const store = this.#settings.store;
    if (store === undefined) return this.#remember(key, Number(claims.iat));
    return await this.#rememberShared(store, key, Number(claims.iat));
  }

  /** {@linkcode DpopChecker.#remember} across instances: the first to set the id wins. */
  async #rememberShared(
    store: SharedStore,
    key: string,
    iat: number,
  ): Promise<Refusal | undefined> {
    const { maxAgeSeconds, clockSkewSeconds } = this.#settings;
    const ttlMs = Math.max(
      1,
      (iat + maxAgeSeconds + 2 * clockSkewSeconds) * 1000 - this.#settings.now(),
    );
    let first: boolean;
    try {
      // The id is hashed: proof ids are client-chosen and must not shape store keys.
      first = await store.set(`warden:dpop:${await digest(key)}`, "1", { ifAbsent: true, ttlMs });
    } catch {
      return { status: 503, description: "cannot check DPoP proof reuse now" };
    }
    return first ? undefined : bad("the DPoP proof was already used");
  }

  async #claimsProblem(
    target: ProofTarget,
    header: Record<string, unknown>,
    claims: Record<string, unknown>,
  ): Promise<Refusal | undefined> {
    const jwk = header.jwk;
    if (typeof jwk !== "object" || jwk === null || "d" in jwk) {
      return bad("the DPoP proof must carry a public key");
    }
    if (claims.htm !== target.request.method) return bad("the DPoP proof is for another method");
    const htu = typeof claims.htu === "string" ? withoutQuery(claims.htu) : undefined;
    if (
      htu === undefined ||
      (htu !== withoutQuery(target.request.url) && htu !== withoutQuery(target.resource))
    ) {
      return bad("the DPoP proof is for another URL");
    }
    const now = this.#settings.now() / 1000;
    const { maxAgeSeconds, clockSkewSeconds } = this.#settings;
    if (
      typeof claims.iat !== "number" || claims.iat > now + clockSkewSeconds ||
      claims.iat < now - maxAgeSeconds - clockSkewSeconds
    ) {
      return bad("the DPoP proof is not recent");
    }
    if (typeof claims.jti !== "string" || claims.jti.length === 0 || claims.jti.length > 256) {
      return bad("the DPoP proof has no usable jti");
    }
    const ath = this.#jose.base64url.encode(
      new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(target.token))),
    );
    if (claims.ath !== ath) return bad("the DPoP proof is for another access token");
    // jwk passed the checks above; calculateJwkThumbprint reads only its public members.
    const thumbprint = await this.#jose.calculateJwkThumbprint(jwk, "sha256");
    if (thumbprint !== target.jkt) return bad("the DPoP key is not the token's");
    return undefined;
  }

  #nonceOk(nonce: unknown): boolean {
    if (typeof nonce !== "string" || this.#nonces === undefined) return false;
    this.nonce(); // rotates when due
    return nonce === this.#nonces.current || nonce === this.#nonces.previous;
  }

  /** Records a proof id; a second use within its window is a replay. */
  #remember(key: string, iat: number): Refusal | undefined {
    const now = this.#settings.now();
    const seen = this.#seen.get(key);
    if (seen !== undefined && seen > now) return bad("the DPoP proof was already used");
    if (this.#seen.size >= this.#settings.maxRemembered) {
      for (const [id, until] of this.#seen) if (until <= now) this.#seen.delete(id);
      if (this.#seen.size >= this.#settings.maxRemembered) {
        return { status: 503, description: "too many DPoP proofs in flight" };
      }
    }
    const { maxAgeSeconds, clockSkewSeconds } = this.#settings;
    this.#seen.set(key, (iat + maxAgeSeconds + 2 * clockSkewSeconds) * 1000);
    return undefined;
  }
}
