/**
 * A real authorization server for the end-to-end OAuth tests:
 * `oauth2-mock-server` on 127.0.0.1, its tokens given the audience the
 * client asked for with RFC 8707 `resource` and the client id as subject,
 * as a production authorization server would.
 */

// A test-only dependency, pinned in tests/deno.lock; the library never loads it.
// deno-lint-ignore-file no-import-prefix

import { OAuth2Server } from "npm:oauth2-mock-server@9.3.0";

/** The running server, and the token requests it answered. */
export interface MockAuthorizationServer {
  /** Its issuer identifier, e.g. `http://localhost:PORT`. */
  readonly issuer: string;
  /** The form of each token request: grant type, scope, resource. */
  readonly tokenRequests: Record<string, string>[];
  stop(): Promise<void>;
}

/** Starts it on a free loopback port with a fresh RS256 key. */
export async function startMockAuthorizationServer(): Promise<MockAuthorizationServer> {
  const server = new OAuth2Server();
  await server.issuer.keys.generate("RS256");
  await server.start(0, "127.0.0.1");
  // Its default issuer names localhost; the tests may reach 127.0.0.1 only.
  server.issuer.url = `http://127.0.0.1:${server.address().port}`;
  const tokenRequests: Record<string, string>[] = [];
  server.service.on("beforeTokenSigning", (token, request) => {
    const body: Record<string, string> = { ...request.body };
    tokenRequests.push(body);
    const basic = request.headers.authorization?.replace(/^Basic /, "") ?? "";
    const fromHeader = basic === "" ? "" : decodeURIComponent(atob(basic).split(":")[0] ?? "");
    const clientId = body.client_id ?? fromHeader;
    if (body.resource !== undefined) token.payload.aud = body.resource;
    token.payload.sub = clientId === "" ? "anonymous" : clientId;
  });
  return {
    issuer: server.issuer.url ?? "",
    tokenRequests,
    stop: () => server.stop(),
  };
}
