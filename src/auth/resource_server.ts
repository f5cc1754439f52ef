/**
 * Warden as an OAuth 2.1 resource server, the object behind
 * `createServer({ http: { auth } })`. It publishes the
 * Protected Resource Metadata, proves each request's access token (a JWT
 * against the issuer's keys, an opaque token through introspection, or the
 * server's own check) and names the principal and scopes it grants. `jose`
 * loads on the first request, never before.
 *
 * @module
 */

import { type JoseModule, loadJose } from "../runtime/npm/jose.ts";
import { type Refusal, refusalResponse } from "./challenge.ts";
import { boundKey, credentialsOf, scopesOf } from "./credentials.ts";
import { DpopChecker } from "./dpop.ts";
import { introspect } from "./introspection.ts";
import { IntrospectionCache } from "./introspection_cache.ts";
import { Issuer } from "./issuer.ts";
import { looksLikeJwt, verifyJwt } from "./jwt.ts";
import { isSecureUrl } from "./metadata.ts";
import { missingScopes, scopesNeeded } from "./scopes.ts";
import type { ResolvedAuth } from "./settings.ts";
import { UpstreamError } from "./fetch_json.ts";

/** What `authenticate` grants: the principal, the scopes, and the claims asked for. */
type Granted = {
  readonly principal: string;
  readonly grant: {
    readonly scopes: readonly string[];
    readonly claims: Readonly<Record<string, unknown>>;
  };
};

const NO_CLAIMS: Readonly<Record<string, unknown>> = Object.freeze({});

/** An item a call acts on. */
type Item = { readonly kind: "tool" | "resource" | "prompt"; readonly name: string };

/** The resource server as the HTTP endpoint uses it (its `auth` option). */
export interface ResourceServer {
  /** The Protected Resource Metadata. */
  readonly metadata: Readonly<Record<string, unknown>> & { readonly resource: string };
  /** The principal and scopes a request's token grants, or the refusal to send. */
  authenticate(request: Request, log: (message: string) => void): Promise<Granted | Response>;
  /** The 403 refusal of a call whose items need scopes not granted, or undefined. */
  authorize(items: readonly Item[], scopes: readonly string[]): Response | undefined;
  /** Whether `scopes` let a caller see an item in a list. */
  visible(kind: Item["kind"], name: string, scopes: readonly string[]): boolean;
}

/** The loaded parts: jose, the issuer and the DPoP checker, made on the first request. */
interface Loaded {
  readonly jose: JoseModule;
  readonly issuer: Issuer;
  readonly dpop: DpopChecker | undefined;
  /** Introspection answers, when opaque tokens are introspected. */
  readonly answers: IntrospectionCache | undefined;
}

/**
 * The resource server over resolved settings: what the HTTP endpoint calls
 * (the shape of its `auth` option).
 */
export function createResourceServer(settings: ResolvedAuth): ResourceServer {
  let loading: Promise<Loaded> | undefined;
  const load = (): Promise<Loaded> => {
    loading ??= loadParts(settings).catch((error) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
  const challenges = settings.challenges;
  return {
    metadata: settings.metadata,
    async authenticate(request, log) {
      const outcome = await authenticate(settings, load, request, log);
      return "status" in outcome ? refusalResponse(outcome, challenges) : outcome;
    },
    authorize(items, scopes) {
      if (items.length === 0 || !settings.hasScopeRules) return undefined;
      const needed: string[] = [];
      for (const item of items) {
        for (const scope of scopesNeeded(settings.scopes, item.kind, item.name)) {
          if (!needed.includes(scope)) needed.push(scope);
        }
      }
      if (missingScopes(scopes, needed).length === 0) return undefined;
      // Every scope the operation needs, in one challenge (the specification's step-up rule).
      const all = [...new Set([...settings.requiredScopes, ...needed])];
      return refusalResponse(insufficient(all), challenges);
    },
    visible(kind, name, scopes) {
      if (!settings.hasScopeRules) return true;
      return missingScopes(scopes, scopesNeeded(settings.scopes, kind, name)).length === 0;
    },
  };
}

async function loadParts(settings: ResolvedAuth): Promise<Loaded> {
  const jose = await loadJose();
  const issuer = new Issuer(jose, settings.issuer, settings.keyCache, settings.jwksUri);
  const dpop = settings.dpop === undefined ? undefined : new DpopChecker(jose, settings.dpop);
  const introspection = settings.introspection;
  const answers = introspection === undefined
    ? undefined
    : new IntrospectionCache(introspection.cacheMs, introspection.cacheSize, settings.jwt.now);
  return { jose, issuer, dpop, answers };
}

function insufficient(scopes: readonly string[]): Refusal {
  return {
    status: 403,
    error: "insufficient_scope",
    scopes,
    description: "the access token lacks a scope this request needs",
    reason: "missing_scope",
  };
}

/** Proves the request's token: the principal and scopes it grants, or the refusal. */
async function authenticate(
  settings: ResolvedAuth,
  load: () => Promise<Loaded>,
  request: Request,
  log: (message: string) => void,
): Promise<Granted | Refusal> {
  const credentials = credentialsOf(request);
  const scope = settings.requiredScopes;
  if (credentials.kind === "none") return { status: 401, scopes: scope, reason: "no_token" };
  if (credentials.kind === "malformed") {
    return {
      status: 400,
      error: "invalid_request",
      description: "malformed credentials",
      reason: "malformed_credentials",
    };
  }
  let claims: Record<string, unknown> | string;
  let parts: Loaded;
  try {
    parts = await load();
    claims = await claimsOf(settings, parts, credentials.token);
  } catch (error) {
    // The authorization server (or the server's own check) failed: refuse, say why on stderr.
    const reason = error instanceof Error ? error.message : String(error);
    // A verifyToken hook may quote the token in its error: it never reaches the log.
    log(
      `warden: cannot verify an access token: ${reason.replaceAll(credentials.token, "[token]")}`,
    );
    const hook = settings.verifyToken !== undefined;
    return { status: 503, reason: hook ? "verify_token_failed" : "authorization_server_failed" };
  }
  if (typeof claims === "string") return invalidToken(scope, claims);
  const principal = claims[settings.principalClaim];
  if (typeof principal !== "string" || principal.length === 0 || principal.length > 1024) {
    return invalidToken(scope, "no_principal");
  }
  const bound = await proofRefusal(settings, parts, request, credentials, claims);
  // The token was proven, not its possession: the audit names whose token it was.
  if (bound !== undefined) return { ...bound, principal };
  const scopes = Object.freeze(scopesOf(claims));
  if (missingScopes(scopes, scope).length > 0) return { ...insufficient(scope), principal };
  const grant = Object.freeze({ scopes, claims: chosenClaims(claims, settings.claims) });
  return { principal, grant };
}

function invalidToken(scopes: readonly string[], reason: string): Refusal {
  return { status: 401, error: "invalid_token", scopes, reason };
}

/** The claims named in `names`, copied out of the token's (frozen; shared when none). */
function chosenClaims(
  claims: Record<string, unknown>,
  names: readonly string[],
): Readonly<Record<string, unknown>> {
  if (names.length === 0) return NO_CLAIMS;
  const chosen: Record<string, unknown> = {};
  for (const name of names) {
    if (!Object.hasOwn(claims, name)) continue;
    // defineProperty: a claim named "__proto__" stays a plain own property.
    Object.defineProperty(chosen, name, {
      value: structuredClone(claims[name]),
      enumerable: true,
    });
  }
  return Object.freeze(chosen);
}

/** The token's claims when it is valid for this resource, else why not (an audit reason). */
async function claimsOf(
  settings: ResolvedAuth,
  parts: Loaded,
  token: string,
): Promise<Record<string, unknown> | string> {
  if (settings.verifyToken !== undefined) {
    return (await settings.verifyToken(token)) ?? "rejected_by_verify_token";
  }
  if (looksLikeJwt(token)) return verifyJwt(parts.jose, parts.issuer, token, settings.jwt);
  const introspection = settings.introspection;
  if (introspection === undefined) return "not_a_jwt";
  return introspectWith(settings, parts, token, introspection);
}

async function introspectWith(
  settings: ResolvedAuth,
  parts: Loaded,
  token: string,
  introspection: NonNullable<ResolvedAuth["introspection"]>,
): Promise<Record<string, unknown> | string> {
  let endpoint = introspection.endpoint;
  if (endpoint === undefined) {
    const found = (await parts.issuer.metadata()).introspection_endpoint;
    if (typeof found !== "string" || !URL.canParse(found)) {
      throw new UpstreamError(`${settings.issuer} publishes no introspection_endpoint`);
    }
    // The client secret and the token are posted there: never in clear, never to data: or file:.
    if (!isSecureUrl(new URL(found))) {
      throw new UpstreamError(`${settings.issuer} publishes an introspection_endpoint not https`);
    }
    endpoint = found;
  }
  return await introspect(token, {
    ...settings.keyCache,
    ...settings.jwt,
    ...introspection,
    endpoint,
  }, parts.answers);
}

/**
 * The refusal of a token presented against its binding: a DPoP-bound token
 * needs the DPoP scheme and a valid proof; the DPoP scheme needs a bound
 * token; with DPoP required, every token must be bound.
 */
async function proofRefusal(
  settings: ResolvedAuth,
  parts: Loaded,
  request: Request,
  credentials: { scheme: "bearer" | "dpop"; token: string },
  claims: Record<string, unknown>,
): Promise<Refusal | undefined> {
  const jkt = boundKey(claims);
  const scopes = settings.requiredScopes;
  // Bound in a way this server cannot check.
  if (jkt === null) return invalidToken(scopes, "unsupported_binding");
  if (jkt === undefined) {
    if (credentials.scheme === "dpop") return invalidToken(scopes, "dpop_scheme_unbound_token");
    return settings.dpop?.required === true ? invalidToken(scopes, "dpop_required") : undefined;
  }
  if (credentials.scheme !== "dpop") return invalidToken(scopes, "bound_token_as_bearer");
  if (parts.dpop === undefined) return invalidToken(scopes, "dpop_not_enabled");
  try {
    return await parts.dpop.check({
      request,
      token: credentials.token,
      jkt,
      resource: settings.audience,
    });
  } catch {
    // A proof jose cannot even read: refused like any other bad proof, never a 500.
    return {
      status: 401,
      error: "invalid_dpop_proof",
      description: "the DPoP proof is unusable",
      reason: "unreadable_dpop_proof",
    };
  }
}
