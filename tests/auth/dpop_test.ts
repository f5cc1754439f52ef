/**
 * DPoP-bound access tokens (RFC 9449) at the endpoint: the proof's
 * signature, method, URL, age, single use, token hash and key binding, and
 * the nonce challenge.
 */

import assert from "node:assert/strict";
import { ENDPOINT, jsonOf, modernPost } from "../_helpers/http_helpers.ts";
import { jose } from "../_helpers/auth_server.ts";
import { MemoryStore } from "../../store.ts";
import {
  AUDIENCE,
  authServer,
  bearer,
  CALL_WHOAMI,
  textOf,
  withAs,
} from "../_helpers/auth_fixture.ts";

/** A DPoP key pair and a proof maker for it. */
async function dpopKey(): Promise<{
  jkt: string;
  proof: (claims: Record<string, unknown>, token: string) => Promise<string>;
}> {
  const { privateKey, publicKey } = await jose.generateKeyPair("ES256", { extractable: true });
  const jwk = await jose.exportJWK(publicKey);
  const jkt = await jose.calculateJwkThumbprint(jwk, "sha256");
  const proof = async (claims: Record<string, unknown>, token: string): Promise<string> => {
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token));
    return await new jose.SignJWT({
      htm: "POST",
      htu: ENDPOINT,
      iat: Math.floor(Date.now() / 1000),
      jti: crypto.randomUUID(),
      ath: jose.base64url.encode(new Uint8Array(digest)),
      ...claims,
    }).setProtectedHeader({ alg: "ES256", typ: "dpop+jwt", jwk }).sign(privateKey);
  };
  return { jkt, proof };
}

Deno.test("DPoP-bound tokens need a fresh proof for this request, by the bound key, used once", async () => {
  await withAs(async (as) => {
    const { server } = authServer(as, { dpop: {} });
    const key = await dpopKey();
    const other = await dpopKey();
    const token = await as.mint({
      sub: "dana",
      aud: AUDIENCE,
      scope: "orders:read",
      cnf: { jkt: key.jkt },
    });
    const dpop = (proof: string): Record<string, string> => ({
      authorization: `DPoP ${token}`,
      dpop: proof,
    });
    const proof = await key.proof({}, token);
    assert.equal(await textOf(await modernPost(server, CALL_WHOAMI, dpop(proof))), "dana");
    const now = Math.floor(Date.now() / 1000);
    const cases: [string, Record<string, string>][] = [
      ["a replayed proof", dpop(proof)],
      ["a proof for another URL", dpop(await key.proof({ htu: "http://localhost/other" }, token))],
      ["a proof for another method", dpop(await key.proof({ htm: "GET" }, token))],
      ["an old proof", dpop(await key.proof({ iat: now - 600 }, token))],
      ["a proof from the future", dpop(await key.proof({ iat: now + 600 }, token))],
      ["a proof by another key", dpop(await other.proof({}, token))],
      ["a proof for another token", dpop(await key.proof({ ath: "AAAA" }, token))],
      ["no proof", { authorization: `DPoP ${token}` }],
      ["the bound token as a bearer token", { ...bearer(token), dpop: await key.proof({}, token) }],
    ];
    for (const [what, headers] of cases) {
      const response = await modernPost(server, CALL_WHOAMI, headers);
      assert.equal(response.status, 401, what);
      assert.match(response.headers.get("www-authenticate") ?? "", /DPoP /, what);
      await response.body?.cancel();
    }
    await server.close();
  });
});

Deno.test("with DPoP nonces on, a proof without the server's nonce is answered use_dpop_nonce and DPoP-Nonce", async () => {
  await withAs(async (as) => {
    const { server } = authServer(as, { dpop: { nonce: true, required: true } });
    const key = await dpopKey();
    const token = await as.mint({
      sub: "dana",
      aud: AUDIENCE,
      scope: "orders:read",
      cnf: { jkt: key.jkt },
    });
    const first = await modernPost(server, CALL_WHOAMI, {
      authorization: `DPoP ${token}`,
      dpop: await key.proof({}, token),
    });
    assert.equal(first.status, 401);
    assert.match(first.headers.get("www-authenticate") ?? "", /^DPoP error="use_dpop_nonce"/);
    const nonce = first.headers.get("dpop-nonce");
    assert.ok(nonce !== null && nonce.length >= 16);
    await first.body?.cancel();
    const second = await modernPost(server, CALL_WHOAMI, {
      authorization: `DPoP ${token}`,
      dpop: await key.proof({ nonce }, token),
    });
    assert.equal(await textOf(second), "dana");
    // With DPoP required, an unbound token is refused, and the metadata says so.
    const plain = await as.mint({ sub: "dana", aud: AUDIENCE, scope: "orders:read" });
    const unbound = await modernPost(server, CALL_WHOAMI, bearer(plain));
    assert.equal(unbound.status, 401);
    await unbound.body?.cancel();
    const metadata = await server.fetch(
      new Request("http://localhost/.well-known/oauth-protected-resource"),
    );
    const document = await jsonOf(metadata);
    assert.equal(document.dpop_bound_access_tokens_required, true);
    assert.ok(Array.isArray(document.dpop_signing_alg_values_supported));
    await server.close();
  });
});

Deno.test("with a shared store, a DPoP proof used at one instance is refused at another", async () => {
  await withAs(async (as) => {
    const store = new MemoryStore();
    const first = authServer(as, { dpop: { store } }).server;
    const second = authServer(as, { dpop: { store } }).server;
    const key = await dpopKey();
    const token = await as.mint({
      sub: "dana",
      aud: AUDIENCE,
      scope: "orders:read",
      cnf: { jkt: key.jkt },
    });
    const headers = { authorization: `DPoP ${token}`, dpop: await key.proof({}, token) };
    assert.equal(await textOf(await modernPost(first, CALL_WHOAMI, headers)), "dana");
    const replayed = await modernPost(second, CALL_WHOAMI, headers);
    assert.equal(replayed.status, 401);
    await replayed.body?.cancel();
    // A fresh proof is fine at either.
    const fresh = { authorization: `DPoP ${token}`, dpop: await key.proof({}, token) };
    assert.equal(await textOf(await modernPost(second, CALL_WHOAMI, fresh)), "dana");
    await first.close();
    await second.close();
    await store.close();
  });
});
