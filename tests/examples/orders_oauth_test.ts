/**
 * The order desk as users start it, with OAuth from the standard flags:
 * `examples/orders.ts --http … --auth-issuer … --auth-audience …` in its own
 * process serves its metadata, challenges without a token, and answers a
 * token its authorization server issued for it.
 */

import assert from "node:assert/strict";
import { serve } from "../_helpers/http_faults_helpers.ts";
import { startAuthServer } from "../_helpers/auth_server.ts";
import { freePort } from "../_helpers/scale_instance.ts";

Deno.test("examples/orders.ts with --auth-issuer and --auth-audience is an OAuth resource server", async () => {
  const as = await startAuthServer();
  const port = freePort();
  const audience = `http://127.0.0.1:${port}/mcp`;
  const server = await serve(Deno.execPath(), [
    "run",
    "--allow-net=127.0.0.1",
    "examples/orders.ts",
    "--http",
    `127.0.0.1:${port}`,
    "--auth-issuer",
    as.issuer,
    "--auth-audience",
    audience,
    "--auth-scopes",
    "orders:read",
  ]);
  try {
    const metadata = await fetch(
      `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`,
    );
    assert.equal(metadata.status, 200);
    assert.equal((await metadata.json()).resource, audience);
    const initialize = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    });
    const headers = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    const open = await fetch(audience, { method: "POST", headers, body: initialize });
    assert.equal(open.status, 401);
    assert.match(open.headers.get("www-authenticate") ?? "", /resource_metadata=/);
    await open.body?.cancel();
    const token = await as.mint({ sub: "alice", aud: audience, scope: "orders:read" });
    const authorized = await fetch(audience, {
      method: "POST",
      headers: { ...headers, authorization: `Bearer ${token}` },
      body: initialize,
    });
    assert.equal(authorized.status, 200);
    await authorized.body?.cancel();
  } finally {
    await server.cleanUp();
    await as.close();
  }
});
