/**
 * The `auth` section of a policy file and the `--auth-*` flags: plain data
 * checked against a schema (an unknown key is an error, so a typo cannot
 * open the server), merged with the flags taking precedence, then handed to
 * `oauthResourceServer()`, which checks the values themselves.
 *
 * @module
 */

import { checkConfig, checkPlainData } from "../schema/config.ts";
import type { JsonSchemaObject } from "../schema/types.ts";
import type { HttpOptions } from "../http/options.ts";
import type { ServerFlags } from "./flags.ts";
import type { SharedStore } from "../store/shared_store.ts";

/** The `auth` section of a policy file. */
export interface AuthPolicy {
  /** The authorization server's issuer identifier. */
  issuer?: string;
  /** This server's canonical resource URI. */
  audience?: string;
  /** `scopes_supported` in the metadata. */
  scopesSupported?: string[];
  /** Scopes every request needs. */
  requiredScopes?: string[];
  /** Scopes items need, by glob. */
  scopes?: {
    tools?: Record<string, string[]>;
    resources?: Record<string, string[]>;
    prompts?: Record<string, string[]>;
  };
  /** The JWT algorithms accepted. */
  algorithms?: string[];
  /** Clock skew tolerated, in seconds. */
  clockSkewSeconds?: number;
  /** The claim naming the principal. */
  principalClaim?: string;
  /** The claims handlers may read. */
  claims?: string[];
  /** The JWKS URL, instead of discovery. */
  jwksUri?: string;
  /** Introspection of opaque tokens; the secret is read from an environment variable. */
  introspection?: { endpoint?: string; clientId: string; clientSecretEnv: string };
  /** DPoP-bound tokens. */
  dpop?: { required?: boolean; nonce?: boolean; maxAgeSeconds?: number };
  /** `resource_name` in the metadata. */
  resourceName?: string;
}

const STRINGS: JsonSchemaObject = { type: "array", items: { type: "string" } };
const SCOPE_TABLE: JsonSchemaObject = { type: "object", additionalProperties: STRINGS };
const AUTH_SCHEMA: JsonSchemaObject = {
  type: "object",
  properties: {
    issuer: { type: "string" },
    audience: { type: "string" },
    scopesSupported: STRINGS,
    requiredScopes: STRINGS,
    scopes: {
      type: "object",
      properties: { tools: SCOPE_TABLE, resources: SCOPE_TABLE, prompts: SCOPE_TABLE },
      additionalProperties: false,
    },
    algorithms: STRINGS,
    clockSkewSeconds: { type: "number" },
    principalClaim: { type: "string" },
    claims: STRINGS,
    jwksUri: { type: "string" },
    introspection: {
      type: "object",
      properties: {
        endpoint: { type: "string" },
        clientId: { type: "string" },
        clientSecretEnv: { type: "string" },
      },
      required: ["clientId", "clientSecretEnv"],
      additionalProperties: false,
    },
    dpop: {
      type: "object",
      properties: {
        required: { type: "boolean" },
        nonce: { type: "boolean" },
        maxAgeSeconds: { type: "number" },
      },
      additionalProperties: false,
    },
    resourceName: { type: "string" },
  },
  additionalProperties: false,
};

/**
 * Checks a policy file's `auth` section.
 *
 * @throws {TypeError} On an unknown key or a value of the wrong type, naming its place.
 */
export function checkAuthPolicy(value: unknown): AuthPolicy {
  checkPlainData(value, "auth");
  checkConfig(AUTH_SCHEMA, value, "", "auth");
  // The schema above accepted exactly this shape.
  return value as AuthPolicy;
}

/**
 * The endpoint's `auth` from the policy's section and the flags (which win);
 * called only when one of them asks for OAuth.
 *
 * @throws {Error} When the issuer or the audience is missing, OAuth is asked for without
 * `--http`, or the introspection secret's variable is unset.
 */
export async function authFromSetup(
  policy: AuthPolicy | undefined,
  flags: ServerFlags,
  store?: SharedStore,
): Promise<HttpOptions["auth"]> {
  const merged: AuthPolicy = { ...policy };
  if (flags.authIssuer !== undefined) merged.issuer = flags.authIssuer;
  if (flags.authAudience !== undefined) merged.audience = flags.authAudience;
  if (flags.authScopes !== undefined) {
    const scopes = flags.authScopes.split(/[ ,]+/).filter((scope) => scope !== "");
    merged.requiredScopes = scopes;
    merged.scopesSupported ??= scopes;
  }
  // Called only when the policy has an auth section or a flag asks for OAuth: never
  // return "no auth" then, or a misplaced field would leave the endpoint open.
  if (merged.issuer === undefined || merged.audience === undefined) {
    throw new Error("OAuth needs both an issuer and an audience (--auth-issuer, --auth-audience)");
  }
  if (flags.http === undefined) throw new Error("OAuth protects the HTTP endpoint: add --http");
  const { introspection, dpop, ...rest } = merged;
  let secret: { endpoint?: string; clientId: string; clientSecret: string } | undefined;
  if (introspection !== undefined) {
    const { env } = await import("node:process");
    const clientSecret = env[introspection.clientSecretEnv];
    if (clientSecret === undefined || clientSecret === "") {
      throw new Error(`auth.introspection: ${introspection.clientSecretEnv} is not set`);
    }
    secret = { clientId: introspection.clientId, clientSecret };
    if (introspection.endpoint !== undefined) secret.endpoint = introspection.endpoint;
  }
  const { oauthResourceServer } = await import("../http/oauth.ts");
  return oauthResourceServer({
    ...rest,
    issuer: merged.issuer,
    audience: merged.audience,
    ...(secret === undefined ? {} : { introspection: secret }),
    // With --store, used DPoP proofs are remembered across the instances sharing it.
    ...(dpop === undefined ? {} : { dpop: store === undefined ? dpop : { ...dpop, store } }),
  });
}
