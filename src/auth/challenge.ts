/**
 * The refusals of a protected resource (RFC 6750 section 3, RFC 9449
 * section 7.1): 401 with a `WWW-Authenticate` challenge that points at the
 * resource's metadata, 403 `insufficient_scope` naming every scope the
 * operation needs, 400 for a malformed request, 503 when the authorization
 * server cannot be reached. The body says as little as the header: never
 * the token, never which check failed beyond the RFC's error code.
 *
 * @module
 */

/** The error codes of RFC 6750 and RFC 9449 a refusal may carry. */
export type ChallengeError =
  | "invalid_request"
  | "invalid_token"
  | "insufficient_scope"
  | "invalid_dpop_proof"
  | "use_dpop_nonce";

/** One refusal, before it becomes a response. */
export interface Refusal {
  /** 400, 401, 403 or 503. */
  readonly status: 400 | 401 | 403 | 503;
  /** The RFC error code; none for a request that carried no credentials. */
  readonly error?: ChallengeError | undefined;
  /** A short fixed description, safe to send. */
  readonly description?: string | undefined;
  /** The scopes the operation needs (space-joined into `scope`). */
  readonly scopes?: readonly string[] | undefined;
  /** A fresh DPoP nonce to send in `DPoP-Nonce`. */
  readonly nonce?: string | undefined;
  /** Why, for the audit log only (never sent): e.g. `expired`, `wrong_audience`. */
  readonly reason?: string | undefined;
  /** The verified subject of a token refused later (scope, proof), for the audit only. */
  readonly principal?: string | undefined;
}

/** What the audit log records of an authorization refusal: never the token or the proof. */
export interface RefusalFacts {
  /** The HTTP status sent. */
  readonly status: number;
  /** The RFC error code sent, or null for a request without credentials. */
  readonly error: string | null;
  /** Why, more precisely than the wire says. */
  readonly reason: string;
  /** The fixed description sent, if any. */
  readonly description: string | null;
  /** The token's verified subject, when the refusal came after it was proven. */
  readonly principal: string | undefined;
}

/** The reason of a refusal that names none: DPoP's 503s (its replay store or its bound). */
function defaultReason(status: number): string {
  if (status === 503) return "unavailable";
  return status === 401 ? "no_token" : "refused";
}

/** The facts behind the responses `refusalResponse` built (a refusal is rare: no cost per request). */
const FACTS = new WeakMap<Response, RefusalFacts>();

/** The `error` parameter of a `WWW-Authenticate` value, if any. */
function challengeError(response: Response): string | null {
  const header = response.headers.get("www-authenticate");
  const found = header === null ? null : /\berror="([a-z_]{1,40})"/.exec(header);
  return found === null ? null : found[1] ?? null;
}

/**
 * The facts of a refusal response: as the resource server recorded them,
 * or (a response from another `auth` object or `authenticate`) as its
 * status and challenge say.
 */
export function refusalFacts(response: Response): RefusalFacts {
  const known = FACTS.get(response);
  if (known !== undefined) return known;
  const error = challengeError(response);
  const reason = error ?? (response.status === 401 ? "no_token" : `http_${response.status}`);
  return { status: response.status, error, reason, description: null, principal: undefined };
}

/** How the resource challenges: its metadata URL, and whether DPoP is offered. */
export interface ChallengeSettings {
  /** The metadata URL for `resource_metadata`. */
  readonly metadataUrl: string;
  /** The DPoP algorithms offered (a `DPoP` challenge is added when any). */
  readonly dpopAlgorithms: readonly string[] | undefined;
  /** Whether only DPoP-bound tokens are accepted (then no `Bearer` challenge). */
  readonly dpopRequired: boolean;
}

/** A quoted-string for a challenge parameter (RFC 9110 section 5.6.4); quotes and backslashes escaped. */
function quoted(value: string): string {
  return `"${value.replace(/[\\"]/g, "\\$&")}"`;
}

/** The parameters both schemes carry. */
function parameters(refusal: Refusal, settings: ChallengeSettings): string[] {
  const params: string[] = [];
  if (refusal.error !== undefined) params.push(`error=${quoted(refusal.error)}`);
  if (refusal.scopes !== undefined && refusal.scopes.length > 0) {
    params.push(`scope=${quoted(refusal.scopes.join(" "))}`);
  }
  params.push(`resource_metadata=${quoted(settings.metadataUrl)}`);
  if (refusal.description !== undefined) {
    params.push(`error_description=${quoted(refusal.description)}`);
  }
  return params;
}

/** The `WWW-Authenticate` value(s) for `refusal`. */
export function challengeHeader(refusal: Refusal, settings: ChallengeSettings): string {
  const dpopOnly = refusal.error === "use_dpop_nonce" || refusal.error === "invalid_dpop_proof";
  const challenges: string[] = [];
  if (!settings.dpopRequired && !dpopOnly) {
    challenges.push(`Bearer ${parameters(refusal, settings).join(", ")}`);
  }
  const algs = settings.dpopAlgorithms;
  if (algs !== undefined && algs.length > 0) {
    challenges.push(
      `DPoP ${[...parameters(refusal, settings), `algs=${quoted(algs.join(" "))}`].join(", ")}`,
    );
  }
  return challenges.join(", ");
}

/** The response for `refusal`: the challenge, a JSON-RPC error body, no caching. */
export function refusalResponse(refusal: Refusal, settings: ChallengeSettings): Response {
  const headers = new Headers({ "cache-control": "no-store" });
  if (refusal.status !== 503) headers.set("www-authenticate", challengeHeader(refusal, settings));
  if (refusal.nonce !== undefined) headers.set("dpop-nonce", refusal.nonce);
  const message = refusal.status === 503
    ? "Service unavailable: cannot verify the access token now"
    : refusal.status === 403
    ? "Forbidden: insufficient scope"
    : refusal.status === 400
    ? "Bad request: malformed authorization"
    : "Unauthorized";
  const response = Response.json(
    { jsonrpc: "2.0", id: null, error: { code: -32600, message } },
    { status: refusal.status, headers },
  );
  FACTS.set(response, {
    status: refusal.status,
    error: refusal.error ?? null,
    reason: refusal.reason ?? refusal.error ?? defaultReason(refusal.status),
    description: refusal.description ?? null,
    principal: refusal.principal,
  });
  return response;
}
