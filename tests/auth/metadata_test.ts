/**
 * The pure parts of the resource server: where the metadata lives for a
 * resource URI, which resource URIs are accepted, how challenges quote, and
 * how credentials are read from a request.
 */

import assert from "node:assert/strict";
import { challengeHeader } from "../../src/auth/challenge.ts";
import { credentialsOf, scopesOf } from "../../src/auth/credentials.ts";
import { discoveryUrls } from "../../src/auth/issuer.ts";
import { checkResourceUri, metadataPaths, metadataUrl } from "../../src/auth/metadata.ts";

Deno.test("metadata paths: path-suffixed first, then the root form; one path for a root resource", () => {
  const cases: [string, string[], string][] = [
    [
      "https://desk.example.com/mcp",
      ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"],
      "https://desk.example.com/.well-known/oauth-protected-resource/mcp",
    ],
    [
      "https://example.com/public/mcp",
      ["/.well-known/oauth-protected-resource/public/mcp", "/.well-known/oauth-protected-resource"],
      "https://example.com/.well-known/oauth-protected-resource/public/mcp",
    ],
    [
      "https://desk.example.com",
      ["/.well-known/oauth-protected-resource"],
      "https://desk.example.com/.well-known/oauth-protected-resource",
    ],
  ];
  for (const [resource, paths, url] of cases) {
    assert.deepEqual(metadataPaths(resource), paths, resource);
    assert.equal(metadataUrl(resource), url, resource);
  }
});

Deno.test("resource URIs must be absolute https (http on loopback only), without a fragment or query", () => {
  for (const ok of ["https://a.example/mcp", "http://localhost:8080/mcp", "http://127.0.0.1/mcp"]) {
    checkResourceUri(ok, "audience");
  }
  for (
    const bad of [
      "http://a.example/mcp",
      "https://a.example/mcp#f",
      "https://a.example/mcp?tenant=a",
      "https://a.example/mcp?",
      "/mcp",
      "",
      7,
      "ftp://a/",
    ]
  ) {
    assert.throws(() => checkResourceUri(bad, "audience"), TypeError, String(bad));
  }
});

Deno.test("issuer discovery tries RFC 8414 then OpenID, path inserted, then OpenID appended", () => {
  assert.deepEqual(discoveryUrls("https://auth.example.com"), [
    "https://auth.example.com/.well-known/oauth-authorization-server",
    "https://auth.example.com/.well-known/openid-configuration",
  ]);
  assert.deepEqual(discoveryUrls("https://auth.example.com/tenant1"), [
    "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
    "https://auth.example.com/.well-known/openid-configuration/tenant1",
    "https://auth.example.com/tenant1/.well-known/openid-configuration",
  ]);
});

Deno.test("challenges quote their values and add a DPoP challenge when DPoP is offered", () => {
  const settings = { metadataUrl: 'https://d/"x"', dpopAlgorithms: undefined, dpopRequired: false };
  assert.equal(
    challengeHeader({ status: 401, error: "invalid_token", scopes: ["a", "b"] }, settings),
    'Bearer error="invalid_token", scope="a b", resource_metadata="https://d/\\"x\\""',
  );
  const dpop = { metadataUrl: "https://d/m", dpopAlgorithms: ["ES256"], dpopRequired: true };
  assert.equal(
    challengeHeader({ status: 401 }, dpop),
    'DPoP resource_metadata="https://d/m", algs="ES256"',
  );
});

Deno.test("credentials: one Bearer or DPoP token68; anything else is none or malformed", () => {
  const at = (headers: Record<string, string>, url = "http://h/mcp") =>
    credentialsOf(new Request(url, { headers }));
  assert.deepEqual(at({ authorization: "Bearer abc.def-ghi_j~+/=" }), {
    kind: "token",
    scheme: "bearer",
    token: "abc.def-ghi_j~+/=",
  });
  assert.deepEqual(at({ authorization: "dpop abc" }), {
    kind: "token",
    scheme: "dpop",
    token: "abc",
  });
  assert.deepEqual(at({}), { kind: "none" });
  assert.deepEqual(at({ authorization: "Basic dTpw" }), { kind: "none" });
  assert.deepEqual(at({ authorization: "Bearer a, Bearer b" }), { kind: "malformed" });
  assert.deepEqual(at({ authorization: `Bearer ${"a".repeat(20_000)}` }), { kind: "malformed" });
  assert.deepEqual(at({}, "http://h/mcp?access_token=x"), { kind: "malformed" });
  assert.deepEqual(scopesOf({ scope: "a  b" }), ["a", "b"]);
  assert.deepEqual(scopesOf({ scp: ["a", 1, "b"] }), ["a", "b"]);
  assert.deepEqual(scopesOf({}), []);
});
