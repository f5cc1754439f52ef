/**
 * `serverSetup()`'s result spreads into `createServer()` as the README shows:
 * a type-level test (`deno check` fails on this file if a `ServerSetup` field
 * stops being a `ServerOptions` field) plus the spread run for real.
 */

import assert from "node:assert/strict";
import {
  createServer,
  type HttpOptions,
  serveHttp,
  type ServerOptions,
  serveStdio,
} from "../../mod.ts";
import { type ServerSetup, serverSetup } from "../../setup.ts";
import { setupFromFlags } from "../../src/setup/flags.ts";

type Assert<T extends true> = T;
type Extends<A, B> = [A] extends [B] ? true : false;

// Every field of the setup is a ServerOptions field of the same type.
const _spreads: Assert<Extends<ServerSetup, Partial<ServerOptions>>> = true;
const _http: Assert<Extends<NonNullable<ServerSetup["http"]>, HttpOptions>> = true;
// And `http` is still the address serveHttp() listens on.
const _listen: Assert<
  Extends<NonNullable<ServerSetup["http"]>, Parameters<typeof serveHttp>[1] & object>
> = true;

/** The setup spread whole into createServer(), compiled (never called: it would read this process's flags). */
async function _readme(): Promise<void> {
  const setup = await serverSetup(Deno.args, { name: "desk", version: "1.0.0" });
  const server = createServer({ name: "desk", version: "1.0.0", ...setup /* tools… */ });
  await serveStdio(server);
}

/** The example's split: the listen address to serveHttp(), the rest to createServer(). */
async function _split(): Promise<void> {
  const { http, ...options } = await serverSetup(Deno.args, { name: "desk", version: "1.0.0" });
  const server = createServer({ name: "desk", version: "1.0.0", ...options });
  if (http === undefined) await serveStdio(server);
  else serveHttp(server, http);
}

Deno.test("a setup with --http and --principal spreads into createServer()", async () => {
  const setup = await setupFromFlags({ http: "127.0.0.1:0", principal: "alice" });
  assert.deepEqual(setup.http, { hostname: "127.0.0.1", port: 0 });
  const server = createServer({ name: "desk", version: "1.0.0", ...setup });
  const reply = await server.handle({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "setup-test", version: "1.0.0" },
    },
  });
  assert.ok(reply !== undefined && !Array.isArray(reply) && "result" in reply, "initialize failed");
  await server.close();
});
