/**
 * A small authorization server for the resource-server tests, on
 * 127.0.0.1: RFC 8414 metadata, a JWKS that can rotate, fail or stall, and
 * RFC 7662 introspection over a table of opaque tokens. Tokens are signed
 * with `jose` by the test itself, so every rejection can be built exactly.
 */

// The test dependencies are pinned in tests/deno.lock; the library never loads them.
// deno-lint-ignore-file no-import-prefix

import * as jose from "npm:jose@^6.1.3";

export { jose };

/** A signing key and its public JWK. */
export interface TestKey {
  readonly kid: string;
  readonly alg: string;
  readonly privateKey: CryptoKey;
  readonly jwk: jose.JWK;
}

/** Makes a signing key. */
export async function testKey(kid: string, alg = "ES256"): Promise<TestKey> {
  const { privateKey, publicKey } = await jose.generateKeyPair(alg, { extractable: true });
  const jwk = { ...await jose.exportJWK(publicKey), kid, alg, use: "sig" };
  return { kid, alg, privateKey, jwk };
}

/** How the JWKS endpoint behaves. */
export type JwksMode = "ok" | "fail" | "stall" | "huge";

/** The running test authorization server. */
export interface TestAuthServer {
  readonly issuer: string;
  /** Keys served in the JWKS. */
  keys: TestKey[];
  /** How the JWKS endpoint answers. */
  jwksMode: JwksMode;
  /** How many times the JWKS was fetched. */
  jwksFetches: number;
  /** Opaque tokens the introspection endpoint knows. */
  readonly opaque: Map<string, Record<string, unknown>>;
  /** The introspection requests' Authorization headers. */
  readonly introspectionAuth: string[];
  /** Signs `claims` (iss, iat and exp defaulted) with `key`. */
  mint(
    claims: Record<string, unknown>,
    key?: TestKey,
    header?: Record<string, unknown>,
  ): Promise<string>;
  close(): Promise<void>;
}

/** Starts the server with one key. */
export async function startAuthServer(): Promise<TestAuthServer> {
  const first = await testKey("k1");
  const stalled = new Set<() => void>();
  let issuer = "";
  const state: TestAuthServer = {
    issuer: "",
    keys: [first],
    jwksMode: "ok",
    jwksFetches: 0,
    opaque: new Map(),
    introspectionAuth: [],
    async mint(claims, key = first, header = {}) {
      const now = Math.floor(Date.now() / 1000);
      return await new jose.SignJWT({ iss: issuer, iat: now, exp: now + 300, ...claims })
        .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: "at+jwt", ...header })
        .sign(key.privateKey);
    },
    close: async () => {
      for (const release of stalled) release();
      await server.shutdown();
    },
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    const path = new URL(request.url).pathname;
    if (path === "/.well-known/oauth-authorization-server") {
      return Response.json({
        issuer,
        jwks_uri: `${issuer}/jwks`,
        introspection_endpoint: `${issuer}/introspect`,
        token_endpoint: `${issuer}/token`,
      });
    }
    if (path === "/jwks") return jwks(state, stalled);
    if (path === "/introspect") return introspection(state, request);
    return new Response("Not found", { status: 404 });
  });
  issuer = `http://127.0.0.1:${server.addr.port}`;
  Object.assign(state, { issuer });
  return state;
}

async function jwks(state: TestAuthServer, stalled: Set<() => void>): Promise<Response> {
  state.jwksFetches++;
  switch (state.jwksMode) {
    case "fail":
      return new Response("down", { status: 500 });
    case "stall":
      await new Promise<void>((resolve) => stalled.add(resolve));
      return new Response("late", { status: 500 });
    case "huge":
      return Response.json({ keys: state.keys.map((key) => key.jwk), pad: "x".repeat(400_000) });
  }
  return Response.json({ keys: state.keys.map((key) => key.jwk) });
}

async function introspection(state: TestAuthServer, request: Request): Promise<Response> {
  state.introspectionAuth.push(request.headers.get("authorization") ?? "");
  const form = new URLSearchParams(await request.text());
  const claims = state.opaque.get(form.get("token") ?? "");
  return Response.json(claims === undefined ? { active: false } : { active: true, ...claims });
}
