/**
 * The resource-server fixture the OAuth tests share: a Warden server with
 * two tools (`whoami`, `refund_order`) protected by `oauthResourceServer()`
 * against the test authorization server, and small request helpers.
 */

import assert from "node:assert/strict";
import { createServer, defineTool, type Server, type ServerOptions } from "../../mod.ts";
import { oauthResourceServer } from "../../http.ts";
import { captureLog, isRecord, modernRequest, resultOf } from "./helpers.ts";
import { ENDPOINT, jsonOf } from "./http_helpers.ts";
import { startAuthServer, type TestAuthServer } from "./auth_server.ts";

/** The resource URI: the endpoint's URL. */
export const AUDIENCE = ENDPOINT; // http://localhost/mcp
export const METADATA_URL = "http://localhost/.well-known/oauth-protected-resource/mcp";

export function tools() {
  return [
    defineTool({
      name: "whoami",
      description: "The caller",
      inputSchema: { type: "object" },
      handler: (_args, context) => context.principal ?? "anonymous",
    }),
    defineTool({
      name: "refund_order",
      description: "Refunds an order",
      inputSchema: { type: "object", properties: { id: { type: "string" } } },
      handler: ({ id }) => `refunded ${id}`,
    }),
  ];
}

export function authServer(
  as: TestAuthServer,
  extra: Partial<Parameters<typeof oauthResourceServer>[0]> = {},
): { server: Server; lines: string[] } {
  const { lines, log } = captureLog();
  const auth = oauthResourceServer({
    issuer: as.issuer,
    audience: AUDIENCE,
    scopesSupported: ["orders:read"],
    requiredScopes: ["orders:read"],
    scopes: { tools: { "refund_*": ["orders:write"] } },
    timeoutMs: 1000,
    ...extra,
  });
  const server = createServer({
    name: "auth-fixture",
    version: "1.0.0",
    log,
    tools: tools(),
    http: { auth, keepAliveMs: 0 },
  });
  return { server, lines };
}

/** The endpoint options of a server whose `refund_*` tools need `orders:write`, no keep-alive. */
export function refundScopedHttp(as: TestAuthServer): NonNullable<ServerOptions["http"]> {
  return {
    auth: oauthResourceServer({
      issuer: as.issuer,
      audience: AUDIENCE,
      scopes: { tools: { "refund_*": ["orders:write"] } },
    }),
    keepAliveMs: 0,
  };
}

export const CALL_WHOAMI = modernRequest(1, "tools/call", { name: "whoami", arguments: {} });

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

export async function textOf(response: Response): Promise<string> {
  const body = await jsonOf(response);
  const content = resultOf(body).content;
  assert.ok(Array.isArray(content) && isRecord(content[0]), JSON.stringify(body));
  return String(content[0].text);
}

export async function withAs(run: (as: TestAuthServer) => Promise<void>): Promise<void> {
  const as = await startAuthServer();
  try {
    await run(as);
  } finally {
    await as.close();
  }
}
