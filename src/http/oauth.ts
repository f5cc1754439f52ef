/**
 * `oauthResourceServer()`: the OAuth 2.1 resource server (`src/auth/`) in
 * the shape of the endpoint's `auth` option. Only the `@warden/mcp/http`
 * entry reaches this file, so a server that never asks for OAuth never has
 * `jose` in its module graph.
 *
 * @module
 */

import { createResourceServer } from "../auth/resource_server.ts";
import { resolveAuth } from "../auth/settings.ts";
import type { SharedStore } from "../store/shared_store.ts";
import type { HttpOptions } from "./options.ts";

/**
 * Makes Warden's HTTP endpoint an OAuth 2.1 resource server, as the MCP
 * authorization specification requires of a protected server: it serves
 * its Protected Resource Metadata (RFC 9728) at the well-known paths,
 * answers a request without a usable token with 401 and a
 * `WWW-Authenticate` challenge pointing at it, accepts only tokens its
 * issuer signed for this resource (audience = `audience`, RFC 8707), and
 * answers 403 `insufficient_scope` naming the scopes a call needs. The
 * token's subject becomes the principal the guardrails decide about; the
 * token itself goes no further.
 *
 * @param options The authorization server, this resource, and the scopes items need.
 * @returns The value of `createServer({ http: { auth } })`.
 * @throws {TypeError} On options that are incomplete or unsafe (an HMAC or `none` algorithm,
 * a resource URI that is not https, a malformed scope rule).
 *
 * @example A server whose refund tool needs the `orders:write` scope
 * ```ts
 * import { createServer } from "@warden/mcp";
 * import { oauthResourceServer } from "@warden/mcp/http";
 * const auth = oauthResourceServer({
 *   issuer: "https://auth.example.com",
 *   audience: "https://desk.example.com/mcp",
 *   scopesSupported: ["orders:read"],
 *   requiredScopes: ["orders:read"],
 *   scopes: { tools: { "refund_*": ["orders:write"] } },
 * });
 * const server = createServer({
 *   name: "desk",
 *   version: "1.0.0",
 *   http: { auth, allowedHosts: ["desk.example.com"] },
 * });
 * ```
 */
export function oauthResourceServer(options: {
  /** The authorization server's issuer; its keys come from its RFC 8414 or OpenID metadata. */
  issuer: string;
  /**
   * This server's canonical resource URI (RFC 8707), e.g. `https://desk.example.com/mcp`:
   * the audience every token must name, and the metadata's `resource`.
   */
  audience: string;
  /** The authorization servers the metadata lists. @default {[issuer]} */
  authorizationServers?: readonly string[];
  /** `scopes_supported` in the metadata: what clients ask for first. */
  scopesSupported?: readonly string[];
  /** Scopes every request needs; the 401 challenge names them. @default {[]} */
  requiredScopes?: readonly string[];
  /**
   * The scopes an item needs, by glob over tool and prompt names and resource URIs; every matching
   * glob adds its scopes. Items the caller's scopes do not cover are answered 403
   * `insufficient_scope` and left out of lists. @default {{}}
   */
  scopes?: {
    /** Tool name glob → scopes. */
    tools?: Readonly<Record<string, readonly string[]>>;
    /** Resource URI glob → scopes. */
    resources?: Readonly<Record<string, readonly string[]>>;
    /** Prompt name glob → scopes. */
    prompts?: Readonly<Record<string, readonly string[]>>;
  };
  /**
   * The JWT signature algorithms accepted; asymmetric only (`none` and HS* are refused at
   * start-up). @default {RS*, PS*, ES*, EdDSA}
   */
  algorithms?: readonly string[];
  /** Require RFC 9068's `typ: at+jwt` (many servers type access tokens `JWT`). @default {false} */
  requireAtJwtType?: boolean;
  /** Clock skew tolerated on `exp`, `nbf` and `iat`, in seconds (0 to 300). @default {30} */
  clockSkewSeconds?: number;
  /** The claim naming the principal. @default {"sub"} */
  principalClaim?: string;
  /**
   * The claims handlers and guardrails may read (`context.auth.claims`), e.g. `["email"]`; the
   * others, and the token itself, never leave the resource server. @default {[]}
   */
  claims?: readonly string[];
  /** The JWKS URL, instead of the one the issuer's metadata names. */
  jwksUri?: string;
  /**
   * Opaque tokens are introspected (RFC 7662) with these credentials (endpoint: the issuer's
   * `introspection_endpoint`); else only JWTs pass. Answers are cached up to the token's `exp` and
   * `cacheSeconds` (60; 0: off), inactive ones 5 s, `cacheSize` (10000) at most.
   */
  introspection?: {
    endpoint?: string;
    clientId: string;
    clientSecret: string;
    cacheSeconds?: number;
    cacheSize?: number;
  };
  /**
   * Replaces the JWT and introspection checks: the token's claims when it is valid for this
   * server (the audience check is yours), else null. A throw fails closed with 503.
   */
  verifyToken?: (token: string) => Promise<Record<string, unknown> | null>;
  /**
   * DPoP-bound tokens (RFC 9449). Tokens bound by `cnf.jkt` are accepted only with a valid proof;
   * `required` refuses unbound tokens; `nonce` makes proofs echo a server nonce (per instance);
   * `store` remembers used proofs across the instances sharing it, so a proof replayed at another
   * instance is refused too. @default {undefined} (bound tokens are refused)
   */
  dpop?: { required?: boolean; nonce?: boolean; maxAgeSeconds?: number; store?: SharedStore };
  /** `resource_name` in the metadata. */
  resourceName?: string;
  /** `resource_documentation` in the metadata. */
  resourceDocumentation?: string;
  /** The deadline of each request to the authorization server, in ms. @default {5000} */
  timeoutMs?: number;
  /** The clock, in ms; for tests. @default {Date.now} */
  now?: () => number;
}): NonNullable<HttpOptions["auth"]> {
  return createResourceServer(resolveAuth(options));
}
