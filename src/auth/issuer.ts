/**
 * One authorization server as a resource server sees it: its metadata,
 * found through RFC 8414 or OpenID Connect discovery and checked to name
 * the issuer it was asked for, and its signing keys (JWKS), cached and
 * fetched again on an unknown `kid` at most once per cool-down. A failed
 * refresh keeps the keys already known; with none, verification fails
 * closed with an {@linkcode UpstreamError}.
 *
 * @module
 */

import type { JoseModule } from "../runtime/npm/jose.ts";
import { type FetchBounds, fetchJson, UpstreamError } from "./fetch_json.ts";
import { isSecureUrl } from "./metadata.ts";

/** The key resolver `jwtVerify` takes. */
type KeySet = ReturnType<JoseModule["createLocalJWKSet"]>;

/** How the keys are kept. */
export interface KeyCacheSettings extends FetchBounds {
  /** How long a fetched key set is used before it is fetched again, in ms. */
  readonly maxAgeMs: number;
  /** The least time between two fetches caused by unknown keys, in ms. */
  readonly cooldownMs: number;
  /** The clock, in ms. */
  readonly now: () => number;
}

/**
 * The discovery URLs of `issuer`, in the order the MCP specification has
 * clients try them: RFC 8414 and OpenID Connect with the path inserted,
 * then OpenID Connect with the path appended.
 */
export function discoveryUrls(issuer: string): readonly string[] {
  const url = new URL(issuer);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/$/, "");
  const urls = [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}/.well-known/openid-configuration${path}`,
  ];
  if (path !== "") urls.push(`${url.origin}${path}/.well-known/openid-configuration`);
  return urls;
}

/** The authorization server behind one issuer, with its keys. */
export class Issuer {
  readonly #jose: JoseModule;
  readonly #issuer: string;
  readonly #settings: KeyCacheSettings;
  #jwksUri: string | undefined;
  #metadata: Promise<Record<string, unknown>> | undefined;
  #keys: KeySet | undefined;
  #fetchedAt = Number.NEGATIVE_INFINITY;
  #discoveryFailedAt = Number.NEGATIVE_INFINITY;
  #refreshing: Promise<KeySet> | undefined;

  constructor(jose: JoseModule, issuer: string, settings: KeyCacheSettings, jwksUri?: string) {
    this.#jose = jose;
    this.#issuer = issuer;
    this.#settings = settings;
    this.#jwksUri = jwksUri;
  }

  /**
   * The server's metadata (cached once it succeeds).
   *
   * @throws {UpstreamError} When no discovery URL answers a document for this issuer.
   */
  metadata(): Promise<Record<string, unknown>> {
    if (
      this.#metadata === undefined &&
      this.#settings.now() - this.#discoveryFailedAt < this.#settings.cooldownMs
    ) {
      // Discovery failed moments ago: an opaque token per request must not cost up to three
      // fetches (and their deadlines) each while the authorization server is down.
      return Promise.reject(new UpstreamError(`The metadata of ${this.#issuer} is unavailable`));
    }
    this.#metadata ??= this.#discover().catch((error) => {
      // A failure is not cached for long: the first request after the cool-down tries again.
      this.#metadata = undefined;
      this.#discoveryFailedAt = this.#settings.now();
      throw error;
    });
    return this.#metadata;
  }

  async #discover(): Promise<Record<string, unknown>> {
    const failures: string[] = [];
    for (const url of discoveryUrls(this.#issuer)) {
      try {
        const document = await fetchJson(url, this.#settings);
        // RFC 8414 section 3.3: a document for another issuer must not be used.
        if (document.issuer !== this.#issuer) {
          failures.push(`${url} names another issuer`);
          continue;
        }
        return document;
      } catch (error) {
        failures.push(error instanceof Error ? error.message : String(error));
      }
    }
    throw new UpstreamError(`Cannot discover ${this.#issuer}: ${failures.join("; ")}`);
  }

  /**
   * The key for a token's protected header: from the cached set, fetched
   * again when stale or when no key matches (within the cool-down).
   */
  async key(
    header: Parameters<KeySet>[0],
    token: Parameters<KeySet>[1],
  ): Promise<Awaited<ReturnType<KeySet>>> {
    const now = this.#settings.now();
    const stale = now - this.#fetchedAt > this.#settings.maxAgeMs;
    if (this.#keys === undefined && now - this.#fetchedAt < this.#settings.cooldownMs) {
      // The last fetch failed moments ago: refuse now rather than ask again per request.
      throw new UpstreamError(`The keys of ${this.#issuer} are unavailable`);
    }
    const keys = this.#keys === undefined || stale ? await this.#refresh() : this.#keys;
    try {
      return await keys(header, token);
    } catch (error) {
      const unknownKid = isJoseError(error, "ERR_JWKS_NO_MATCHING_KEY");
      if (!unknownKid || now - this.#fetchedAt < this.#settings.cooldownMs) throw error;
      return await (await this.#refresh())(header, token);
    }
  }

  /** Fetches the key set, one fetch at a time; a failure keeps the old set when there is one. */
  #refresh(): Promise<KeySet> {
    this.#refreshing ??= this.#fetchKeys().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  async #fetchKeys(): Promise<KeySet> {
    try {
      this.#jwksUri ??= await this.#jwksUriOf();
      const jwks = await fetchJson(this.#jwksUri, this.#settings);
      if (!Array.isArray(jwks.keys)) throw new UpstreamError(`${this.#jwksUri} holds no keys`);
      const keys = this.#jose.createLocalJWKSet({ keys: jwks.keys });
      this.#keys = keys;
      this.#fetchedAt = this.#settings.now();
      return keys;
    } catch (error) {
      // Counted as a fetch, so a failing server is not asked again on every request.
      this.#fetchedAt = this.#settings.now();
      if (this.#keys !== undefined) return this.#keys;
      throw error instanceof UpstreamError ? error : new UpstreamError(String(error));
    }
  }

  async #jwksUriOf(): Promise<string> {
    const uri = (await this.metadata()).jwks_uri;
    if (typeof uri !== "string" || !URL.canParse(uri)) {
      throw new UpstreamError(`${this.#issuer} publishes no jwks_uri`);
    }
    // The keys decide which tokens pass: never from a data:, file: or plain-http URL.
    if (!isSecureUrl(new URL(uri))) {
      throw new UpstreamError(`${this.#issuer} publishes a jwks_uri that is not https`);
    }
    return uri;
  }
}

/** Whether `error` is a jose error with `code`. */
export function isJoseError(error: unknown, code: string): boolean {
  return typeof error === "object" && error !== null && "code" in error && error.code === code;
}
