/**
 * The options of `oauthResourceServer()` checked and resolved once, at
 * start-up: a configuration that would accept the wrong tokens (an HMAC or
 * `none` algorithm, a resource URI that is not https, a bad scope rule)
 * throws there rather than serving.
 *
 * @module
 */

import type { SharedStore } from "../store/shared_store.ts";
import type { ChallengeSettings } from "./challenge.ts";
import type { DpopSettings } from "./dpop.ts";
import type { KeyCacheSettings } from "./issuer.ts";
import { checkAlgorithms, DEFAULT_ALGORITHMS, type JwtChecks } from "./jwt.ts";
import { checkResourceUri, metadataDocument, metadataUrl } from "./metadata.ts";
import { checkScope, type CompiledScopes, compileScopes } from "./scopes.ts";

/**
 * The options as given (`oauthResourceServer()` documents each field; its
 * inline parameter type must stay assignable to this one).
 */
export interface ResourceServerOptions {
  issuer: string;
  audience: string;
  authorizationServers?: readonly string[];
  scopesSupported?: readonly string[];
  requiredScopes?: readonly string[];
  scopes?: {
    tools?: Readonly<Record<string, readonly string[]>>;
    resources?: Readonly<Record<string, readonly string[]>>;
    prompts?: Readonly<Record<string, readonly string[]>>;
  };
  algorithms?: readonly string[];
  requireAtJwtType?: boolean;
  clockSkewSeconds?: number;
  principalClaim?: string;
  claims?: readonly string[];
  jwksUri?: string;
  introspection?: {
    endpoint?: string;
    clientId: string;
    clientSecret: string;
    cacheSeconds?: number;
    cacheSize?: number;
  };
  verifyToken?: (token: string) => Promise<Record<string, unknown> | null>;
  dpop?: { required?: boolean; nonce?: boolean; maxAgeSeconds?: number; store?: SharedStore };
  resourceName?: string;
  resourceDocumentation?: string;
  timeoutMs?: number;
  now?: () => number;
}

/** The resolved options. */
export interface ResolvedAuth {
  readonly issuer: string;
  readonly audience: string;
  readonly metadata: Readonly<Record<string, unknown>> & { readonly resource: string };
  readonly challenges: ChallengeSettings;
  readonly requiredScopes: readonly string[];
  readonly scopes: CompiledScopes;
  /** Whether any item needs a scope (else scope checks per call are skipped). */
  readonly hasScopeRules: boolean;
  readonly principalClaim: string;
  /** The claims a grant carries on to handlers and guardrails. */
  readonly claims: readonly string[];
  readonly jwt: JwtChecks;
  readonly keyCache: KeyCacheSettings;
  readonly jwksUri: string | undefined;
  readonly introspection:
    | {
      readonly endpoint: string | undefined;
      readonly clientId: string;
      readonly clientSecret: string;
      /** The longest an active answer is cached, in ms (0: none). */
      readonly cacheMs: number;
      /** The most answers cached. */
      readonly cacheSize: number;
    }
    | undefined;
  readonly verifyToken: ((token: string) => Promise<Record<string, unknown> | null>) | undefined;
  readonly dpop: (DpopSettings & { readonly required: boolean }) | undefined;
}

const PREFIX = "Invalid auth options";

function scopeList(value: readonly string[] | undefined, what: string): readonly string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new TypeError(`${PREFIX}: ${what} must be a list of scopes`);
  value.forEach((scope, index) => checkScope(scope, `${what}[${index}]`));
  return Object.freeze([...value]);
}

function claimNames(value: readonly string[] | undefined): readonly string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((name) => typeof name === "string" && name !== "")) {
    throw new TypeError(`${PREFIX}: claims must be a list of claim names`);
  }
  return Object.freeze([...value]);
}

function uriOrUndefined(value: string | undefined, what: string): string | undefined {
  if (value === undefined) return undefined;
  checkResourceUri(value, what);
  return value;
}

/**
 * Checks and resolves `options`.
 *
 * @throws {TypeError} On a missing, unsafe or malformed option, naming it.
 */
export function resolveAuth(options: ResourceServerOptions): ResolvedAuth {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(`${PREFIX}: expected an object`);
  }
  checkResourceUri(options.issuer, "issuer");
  checkResourceUri(options.audience, "audience");
  const skew = options.clockSkewSeconds ?? 30;
  if (!Number.isFinite(skew) || skew < 0 || skew > 300) {
    throw new RangeError(`${PREFIX}: clockSkewSeconds must be between 0 and 300`);
  }
  const timeoutMs = options.timeoutMs ?? 5000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new RangeError(`${PREFIX}: timeoutMs must be a positive number`);
  }
  const principalClaim = options.principalClaim ?? "sub";
  if (typeof principalClaim !== "string" || principalClaim === "") {
    throw new TypeError(`${PREFIX}: principalClaim must be a claim name`);
  }
  const algorithms = options.algorithms === undefined
    ? DEFAULT_ALGORITHMS
    : checkAlgorithms(options.algorithms, "algorithms");
  const now = options.now ?? Date.now;
  const servers = options.authorizationServers ?? [options.issuer];
  servers.forEach((server, index) => checkResourceUri(server, `authorizationServers[${index}]`));
  const dpop = resolveDpop(options, algorithms, skew, now);
  const scopes = compileScopes(options.scopes);
  const metadata = {
    ...metadataDocument({
      resource: options.audience,
      authorizationServers: servers,
      scopesSupported: options.scopesSupported === undefined
        ? undefined
        : scopeList(options.scopesSupported, "scopesSupported"),
      resourceName: options.resourceName,
      resourceDocumentation: options.resourceDocumentation,
      dpopRequired: dpop?.required,
      dpopAlgorithms: dpop?.algorithms,
    }),
    resource: options.audience,
  };
  return {
    issuer: options.issuer,
    audience: options.audience,
    metadata: Object.freeze(metadata),
    challenges: {
      metadataUrl: metadataUrl(options.audience),
      dpopAlgorithms: dpop?.algorithms,
      dpopRequired: dpop?.required === true,
    },
    requiredScopes: scopeList(options.requiredScopes, "requiredScopes"),
    scopes,
    hasScopeRules: [...scopes.values()].some((rules) => rules.length > 0),
    principalClaim,
    claims: claimNames(options.claims),
    jwt: {
      issuer: options.issuer,
      audience: options.audience,
      algorithms,
      clockSkewSeconds: skew,
      now,
      typ: options.requireAtJwtType === true ? "at+jwt" : undefined,
    },
    keyCache: { timeoutMs, maxBytes: 256 * 1024, maxAgeMs: 10 * 60_000, cooldownMs: 30_000, now },
    jwksUri: uriOrUndefined(options.jwksUri, "jwksUri"),
    introspection: resolveIntrospection(options),
    verifyToken: options.verifyToken,
    dpop,
  };
}

function resolveIntrospection(options: ResourceServerOptions): ResolvedAuth["introspection"] {
  const introspection = options.introspection;
  if (introspection === undefined) return undefined;
  if (
    typeof introspection.clientId !== "string" || typeof introspection.clientSecret !== "string"
  ) {
    throw new TypeError(`${PREFIX}: introspection needs clientId and clientSecret`);
  }
  const cacheSeconds = introspection.cacheSeconds ?? 60;
  if (!Number.isFinite(cacheSeconds) || cacheSeconds < 0 || cacheSeconds > 3600) {
    throw new RangeError(`${PREFIX}: introspection.cacheSeconds must be between 0 and 3600`);
  }
  const cacheSize = introspection.cacheSize ?? 10_000;
  if (!Number.isInteger(cacheSize) || cacheSize < 1 || cacheSize > 1_000_000) {
    throw new RangeError(`${PREFIX}: introspection.cacheSize must be between 1 and 1000000`);
  }
  return {
    endpoint: uriOrUndefined(introspection.endpoint, "introspection.endpoint"),
    clientId: introspection.clientId,
    clientSecret: introspection.clientSecret,
    cacheMs: cacheSeconds * 1000,
    cacheSize,
  };
}

function resolveDpop(
  options: ResourceServerOptions,
  algorithms: readonly string[],
  clockSkewSeconds: number,
  now: () => number,
): ResolvedAuth["dpop"] {
  const dpop = options.dpop;
  if (dpop === undefined) return undefined;
  const maxAgeSeconds = dpop.maxAgeSeconds ?? 60;
  if (!Number.isFinite(maxAgeSeconds) || maxAgeSeconds <= 0 || maxAgeSeconds > 600) {
    throw new RangeError(`${PREFIX}: dpop.maxAgeSeconds must be between 1 and 600`);
  }
  const proofAlgorithms = algorithms.filter((alg) => alg !== "Ed25519");
  if (proofAlgorithms.length === 0) {
    // No proof could verify, and a DPoP-only server would send an empty challenge.
    throw new TypeError(`${PREFIX}: dpop needs an algorithm other than Ed25519 in algorithms`);
  }
  return {
    algorithms: proofAlgorithms,
    maxAgeSeconds,
    clockSkewSeconds,
    nonce: dpop.nonce === true,
    required: dpop.required === true,
    maxRemembered: 100_000,
    store: dpop.store,
    now,
  };
}
