/**
 * Opaque access tokens, checked by asking the authorization server (RFC
 * 7662 token introspection). The answer must say the token is active, was
 * issued by the configured issuer (when it says), is for this resource
 * (`aud` must name it) and has not expired.
 *
 * @module
 */

import { type FetchBounds, fetchJson } from "./fetch_json.ts";
import type { IntrospectionCache } from "./introspection_cache.ts";

/** Where and as whom to introspect. */
export interface IntrospectionSettings extends FetchBounds {
  /** The introspection endpoint. */
  readonly endpoint: string;
  /** The resource server's client id at the authorization server. */
  readonly clientId: string;
  /** Its client secret (HTTP Basic, RFC 7662 section 2.1). */
  readonly clientSecret: string;
  /** The issuer identifier the answer may name. */
  readonly issuer: string;
  /** The canonical resource URI the answer's `aud` must name. */
  readonly audience: string;
  /** The clock skew tolerated on `exp` and `nbf`, in seconds. */
  readonly clockSkewSeconds: number;
  /** The clock, in ms. */
  readonly now: () => number;
}

/** Whether `aud` (a string or a list) names `audience`. */
export function namesAudience(aud: unknown, audience: string): boolean {
  return aud === audience || (Array.isArray(aud) && aud.includes(audience));
}

/**
 * The claims of an active token meant for this resource; otherwise why
 * not, as an audit reason.
 *
 * @throws {UpstreamError} When the endpoint cannot be asked.
 */
export async function introspect(
  token: string,
  settings: IntrospectionSettings,
  cache?: IntrospectionCache,
): Promise<Record<string, unknown> | string> {
  const answer = cache === undefined
    ? await ask(token, settings)
    : await cache.answer(token, () => ask(token, settings));
  return rejection(answer, settings) ?? answer;
}

/** The authorization server's answer about `token`, frozen (a cached one is shared). */
async function ask(
  token: string,
  settings: IntrospectionSettings,
): Promise<Record<string, unknown>> {
  const basic = btoa(
    `${encodeURIComponent(settings.clientId)}:${encodeURIComponent(settings.clientSecret)}`,
  );
  const answer = await fetchJson(settings.endpoint, settings, {
    body: new URLSearchParams({ token, token_type_hint: "access_token" }),
    headers: {
      authorization: `Basic ${basic}`,
      "content-type": "application/x-www-form-urlencoded",
    },
  });
  return Object.freeze(answer);
}

/** Why an introspection answer does not grant access, or undefined when it does. */
function rejection(
  answer: Record<string, unknown>,
  settings: IntrospectionSettings,
): string | undefined {
  if (answer.active !== true) return "inactive";
  if (answer.iss !== undefined && answer.iss !== settings.issuer) return "wrong_issuer";
  if (!namesAudience(answer.aud, settings.audience)) return "wrong_audience";
  const now = settings.now() / 1000;
  const skew = settings.clockSkewSeconds;
  if (typeof answer.exp !== "number") return "missing_exp";
  if (answer.exp + skew <= now) return "expired";
  if (typeof answer.nbf === "number" && answer.nbf - skew > now) return "not_yet_valid";
  return undefined;
}
