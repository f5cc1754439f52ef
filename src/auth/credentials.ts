/**
 * The access token of a request, as RFC 6750 section 2.1 and RFC 9449
 * section 7.1 send it: one `Authorization` header, scheme `Bearer` or
 * `DPoP`, a token68 value. A token in the URI query is refused (OAuth 2.1
 * section 5.2 forbids it), as are two tokens at once.
 *
 * @module
 */

/** What a request's credentials are. */
export type Credentials =
  | { readonly kind: "none" }
  | { readonly kind: "malformed" }
  | { readonly kind: "token"; readonly scheme: "bearer" | "dpop"; readonly token: string };

const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;
const NONE: Credentials = { kind: "none" };
const MALFORMED: Credentials = { kind: "malformed" };
/** The longest token considered; a longer one is malformed (no JWT or opaque token is this big). */
const MAX_TOKEN_LENGTH = 16_384;

/** The credentials `request` carries. */
export function credentialsOf(request: Request): Credentials {
  const query = request.url.indexOf("?");
  if (query !== -1 && new URLSearchParams(request.url.slice(query + 1)).has("access_token")) {
    return MALFORMED;
  }
  const value = request.headers.get("authorization");
  if (value === null) return NONE;
  const space = value.indexOf(" ");
  if (space === -1) return NONE;
  const scheme = value.slice(0, space).toLowerCase();
  if (scheme !== "bearer" && scheme !== "dpop") return NONE;
  const token = value.slice(space + 1).trim();
  // Two Authorization headers arrive joined by ", ", which token68 cannot contain.
  if (token.length > MAX_TOKEN_LENGTH || !TOKEN68.test(token)) return MALFORMED;
  return { kind: "token", scheme, token };
}

/** The scopes a token's claims grant: `scope` (space-separated, RFC 9068) or `scp` (a list). */
export function scopesOf(claims: Readonly<Record<string, unknown>>): readonly string[] {
  const { scope, scp } = claims;
  if (typeof scope === "string") return scope.split(" ").filter((part) => part !== "");
  if (Array.isArray(scp)) return scp.filter((part): part is string => typeof part === "string");
  if (typeof scp === "string") return scp.split(" ").filter((part) => part !== "");
  return [];
}

/** The thumbprint a token is bound to (`cnf.jkt`, RFC 9449 section 6), if any. */
export function boundKey(claims: Readonly<Record<string, unknown>>): string | undefined | null {
  const cnf = claims.cnf;
  if (cnf === undefined) return undefined;
  if (typeof cnf !== "object" || cnf === null || !("jkt" in cnf)) return null;
  return typeof cnf.jkt === "string" ? cnf.jkt : null;
}
