/**
 * The official SDK v2 client's OAuth against Warden and a real local
 * authorization server (`oauth2-mock-server`): the client finds the
 * authorization server through Warden's 401 and Protected Resource
 * Metadata, gets a token for Warden's resource URI with client
 * credentials, and calls; a call that needs a further scope is refused
 * with 403 `insufficient_scope` naming it, and the client steps up.
 */

import assert from "node:assert/strict";
import { createServer, serveHttp } from "../../mod.ts";
import { oauthResourceServer } from "../../http.ts";
import { captureLog, within } from "../_helpers/helpers.ts";
import { startMockAuthorizationServer } from "../_helpers/mock_oauth.ts";
import { freePort } from "../_helpers/scale_instance.ts";
import {
  Client,
  ClientCredentialsProvider,
  type ClientOptions,
  DpopSession,
  type OAuthClientProvider,
  PINNED,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  withDpop,
} from "../_helpers/sdk_v2.ts";
import { startAuthServer } from "../_helpers/auth_server.ts";
import { tools } from "../_helpers/auth_fixture.ts";

for (
  const [era, options] of [["the legacy era", {}], ["revision 2026-07-28", PINNED]] as [
    string,
    ClientOptions,
  ][]
) {
  Deno.test(`the SDK v2 client authorizes at a real authorization server and calls Warden, in ${era}`, async () => {
    await oauthRoundTrip(options);
  });
}

async function oauthRoundTrip(options: ClientOptions): Promise<void> {
  const as = await startMockAuthorizationServer();
  const port = freePort();
  const audience = `http://127.0.0.1:${port}/mcp`;
  const { lines, log } = captureLog();
  const server = createServer({
    name: "oauth-desk",
    version: "1.0.0",
    log,
    tools: tools(),
    http: {
      auth: oauthResourceServer({
        issuer: as.issuer,
        audience,
        scopesSupported: ["orders:read"],
        requiredScopes: ["orders:read"],
        scopes: { tools: { "refund_*": ["orders:write"] } },
      }),
    },
  });
  const listener = await serveHttp(server, { port, handleSignals: false, log });
  const client = new Client({ name: "oauth-client", version: "1.0.0" }, options);
  const transport = new StreamableHTTPClientTransport(new URL(listener.url), {
    authProvider: new ClientCredentialsProvider({
      clientId: "desk-agent",
      clientSecret: "desk-secret",
      expectedIssuer: as.issuer,
    }),
  });
  try {
    await within(client.connect(transport), 20_000, "the SDK client to connect");
    const me = await client.callTool({ name: "whoami", arguments: {} });
    assert.deepEqual(me.content, [{ type: "text", text: "desk-agent" }]);
    // The token was asked for this server (RFC 8707) with the scope Warden's challenge named.
    const first = as.tokenRequests[0];
    assert.equal(first?.grant_type, "client_credentials");
    assert.equal(first?.resource, audience);
    assert.equal(first?.scope, "orders:read");
    const { tools: listed } = await client.listTools();
    assert.deepEqual(listed.map((tool) => tool.name), ["whoami"]);
    // Warden's 403 insufficient_scope names every scope the call needs; the client steps up.
    const refund = await client.callTool({ name: "refund_order", arguments: { id: "7" } });
    assert.deepEqual(refund.content, [{ type: "text", text: "refunded 7" }]);
    assert.equal(as.tokenRequests.length, 2);
    assert.equal(as.tokenRequests[1]?.scope, "orders:read orders:write");
    assert.equal(as.tokenRequests[1]?.resource, audience);
    if (options.versionNegotiation === undefined) {
      // (A 2026-07-28 client keeps the list it cached under its ttl, so only the legacy one re-lists.)
      const after = await client.listTools();
      assert.deepEqual(after.tools.map((tool) => tool.name).sort(), ["refund_order", "whoami"]);
    }
    assert.ok(lines.every((line) => !/eyJ[A-Za-z0-9_-]{10,}/.test(line)), lines.join("\n"));
  } finally {
    await client.close().catch(() => {});
    await listener.shutdown();
    await as.stop();
  }
}

/** An interactive client's provider, its "browser" being the test: it records where to go. */
class CodeFlowProvider implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  #verifier = "";
  #tokens: Awaited<ReturnType<OAuthClientProvider["tokens"]>>;
  constructor(readonly issuer: string) {}
  get redirectUrl(): string {
    return "http://127.0.0.1:9/callback";
  }
  get clientMetadata() {
    return {
      client_name: "desk-app",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return { client_id: "desk-app", issuer: this.issuer };
  }
  tokens() {
    return this.#tokens;
  }
  saveTokens(tokens: Awaited<ReturnType<OAuthClientProvider["tokens"]>>): void {
    this.#tokens = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }
  codeVerifier(): string {
    return this.#verifier;
  }
}

Deno.test("the SDK v2 client's authorization-code flow (PKCE, RFC 8707 resource) against a real authorization server and Warden", async () => {
  const as = await startMockAuthorizationServer();
  const port = freePort();
  const audience = `http://127.0.0.1:${port}/mcp`;
  const server = createServer({
    name: "oauth-desk",
    version: "1.0.0",
    tools: tools(),
    http: {
      auth: oauthResourceServer({ issuer: as.issuer, audience, scopesSupported: ["orders:read"] }),
    },
  });
  const listener = await serveHttp(server, { port, handleSignals: false, log: () => {} });
  const provider = new CodeFlowProvider(as.issuer);
  const url = new URL(listener.url);
  const client = new Client({ name: "oauth-app", version: "1.0.0" });
  try {
    // The first attempt ends at the authorization server's door: Warden's 401 pointed there.
    const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await assert.rejects(client.connect(first), UnauthorizedError);
    const authorize = provider.authorizationUrl;
    assert.ok(authorize !== undefined, "the client was sent to the authorization endpoint");
    assert.equal(authorize.searchParams.get("resource"), audience);
    assert.equal(authorize.searchParams.get("code_challenge_method"), "S256");
    // The "user" approves: the authorization server redirects back with a code.
    const approval = await fetch(authorize, { redirect: "manual" });
    await approval.body?.cancel();
    const callback = new URL(approval.headers.get("location") ?? "");
    await first.finishAuth(callback.searchParams);
    const token = as.tokenRequests.at(-1);
    assert.equal(token?.grant_type, "authorization_code");
    assert.equal(token?.resource, audience);
    assert.ok((token?.code_verifier ?? "").length >= 43, "PKCE verifier sent");
    const second = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await within(client.connect(second), 20_000, "the authorized client to connect");
    const me = await client.callTool({ name: "whoami", arguments: {} });
    assert.deepEqual(me.content, [{ type: "text", text: "desk-app" }]);
  } finally {
    await client.close().catch(() => {});
    await listener.shutdown();
    await as.stop();
  }
});

Deno.test("the SDK v2 client's DPoP (proofs per request, the nonce retry) against Warden, in both eras", async () => {
  const as = await startAuthServer();
  const port = freePort();
  const audience = `http://127.0.0.1:${port}/mcp`;
  const server = createServer({
    name: "dpop-desk",
    version: "1.0.0",
    tools: tools(),
    http: {
      auth: oauthResourceServer({
        issuer: as.issuer,
        audience,
        dpop: { required: true, nonce: true },
      }),
    },
  });
  const listener = await serveHttp(server, { port, handleSignals: false, log: () => {} });
  try {
    for (const options of [{}, PINNED]) {
      const session = await DpopSession.create();
      const token = await as.mint({ sub: "dana", aud: audience, cnf: { jkt: session.thumbprint } });
      const client = new Client({ name: "dpop-client", version: "1.0.0" }, options);
      const transport = new StreamableHTTPClientTransport(new URL(listener.url), {
        fetch: withDpop(session, () => token)(fetch),
      });
      await within(client.connect(transport), 20_000, "the DPoP client to connect");
      const me = await client.callTool({ name: "whoami", arguments: {} });
      assert.deepEqual(me.content, [{ type: "text", text: "dana" }]);
      await client.close();
    }
  } finally {
    await listener.shutdown();
    await as.close();
  }
});
