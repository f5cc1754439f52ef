/**
 * The URLs an issuer's metadata names are trusted with the keys that decide
 * which tokens pass (`jwks_uri`) and with the client secret
 * (`introspection_endpoint`): like the issuer itself they must be https (or
 * http on loopback). A `data:` URL, which fetch would answer without any
 * network, stands for any other scheme (`file:`, or `http:` to another host).
 */

import assert from "node:assert/strict";
import { modernPost } from "../_helpers/http_helpers.ts";
import { jose, testKey } from "../_helpers/auth_server.ts";
import { AUDIENCE, authServer, bearer, CALL_WHOAMI } from "../_helpers/auth_fixture.ts";
import type { TestAuthServer } from "../_helpers/auth_server.ts";

/** An issuer on 127.0.0.1 whose metadata names `endpoints` (given the issuer). */
async function withIssuer(
  endpoints: (issuer: string) => Record<string, unknown>,
  run: (issuer: string) => Promise<void>,
): Promise<void> {
  let issuer = "";
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    if (new URL(request.url).pathname === "/.well-known/oauth-authorization-server") {
      return Response.json({ issuer, ...endpoints(issuer) });
    }
    return new Response("Not found", { status: 404 });
  });
  issuer = `http://127.0.0.1:${server.addr.port}`;
  try {
    await run(issuer);
  } finally {
    await server.shutdown();
  }
}

function asOf(issuer: string): TestAuthServer {
  return { issuer } as TestAuthServer;
}

Deno.test("a jwks_uri that is not https (here data:) is refused: 503, the token does not pass", async () => {
  const key = await testKey("k1");
  const jwks = JSON.stringify({ keys: [key.jwk] });
  await withIssuer(
    () => ({ jwks_uri: `data:application/json,${encodeURIComponent(jwks)}` }),
    async (issuer) => {
      const { server, lines } = authServer(asOf(issuer));
      const now = Math.floor(Date.now() / 1000);
      const token = await new jose.SignJWT({
        iss: issuer,
        sub: "mallory",
        aud: AUDIENCE,
        scope: "orders:read",
        iat: now,
        exp: now + 300,
      }).setProtectedHeader({ alg: key.alg, kid: key.kid }).sign(key.privateKey);
      const response = await modernPost(server, CALL_WHOAMI, bearer(token));
      assert.equal(response.status, 503);
      await response.body?.cancel();
      assert.ok(
        lines.some((line) => line.includes("jwks_uri that is not https")),
        lines.join("\n"),
      );
      await server.close();
    },
  );
});

Deno.test("an introspection_endpoint that is not https (here data:) is never posted the secret", async () => {
  const answer = JSON.stringify({
    active: true,
    sub: "mallory",
    aud: AUDIENCE,
    scope: "orders:read",
    exp: 9e9,
  });
  await withIssuer(
    () => ({ introspection_endpoint: `data:application/json,${encodeURIComponent(answer)}` }),
    async (issuer) => {
      const { server, lines } = authServer(asOf(issuer), {
        introspection: { clientId: "warden", clientSecret: "s3cret" },
      });
      const response = await modernPost(server, CALL_WHOAMI, bearer("opaque-anything"));
      assert.equal(response.status, 503);
      await response.body?.cancel();
      assert.ok(
        lines.some((line) => line.includes("introspection_endpoint not https")),
        lines.join("\n"),
      );
      await server.close();
    },
  );
});

Deno.test("while discovery fails, opaque tokens do not ask the authorization server again on every request", async () => {
  let asked = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
    asked++;
    return new Response("down", { status: 500 });
  });
  const issuer = `http://127.0.0.1:${server.addr.port}`;
  try {
    const { server: warden } = authServer(asOf(issuer), {
      introspection: { clientId: "warden", clientSecret: "s3cret" },
    });
    const first = await modernPost(warden, CALL_WHOAMI, bearer("opaque-1"));
    assert.equal(first.status, 503);
    await first.body?.cancel();
    const afterFirst = asked;
    assert.ok(afterFirst >= 1);
    for (let i = 0; i < 5; i++) {
      const response = await modernPost(warden, CALL_WHOAMI, bearer(`opaque-${i + 2}`));
      assert.equal(response.status, 503);
      await response.body?.cancel();
    }
    assert.equal(asked, afterFirst, "discovery was tried again within the cool-down");
    await warden.close();
  } finally {
    await server.shutdown();
  }
});
