/**
 * OAuth from the standard setup: `--auth-issuer`, `--auth-audience` and
 * `--auth-scopes`, and a policy file's `auth` section, end to end against
 * the test authorization server.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { createServer } from "../../mod.ts";
import { parseServerFlags, setupFromFlags } from "../../src/setup/flags.ts";
import { parsePolicy } from "../../src/setup/policy_file.ts";
import { startAuthServer } from "../_helpers/auth_server.ts";
import { ENDPOINT, jsonOf, post } from "../_helpers/http_helpers.ts";
import { echoFixtures, initialize } from "../_helpers/helpers.ts";

const IDENTITY = { name: "desk", version: "1.0.0" };

async function flagsOf(args: string[]) {
  const parsed = await parseServerFlags(args, IDENTITY);
  assert.equal(parsed.action, "run", JSON.stringify(parsed));
  return parsed.action === "run" ? parsed.flags : {};
}

Deno.test("--auth-issuer, --auth-audience and --auth-scopes protect the HTTP endpoint", async () => {
  const as = await startAuthServer();
  try {
    const flags = await flagsOf([
      "--http",
      "0",
      "--auth-issuer",
      as.issuer,
      "--auth-audience",
      ENDPOINT,
      "--auth-scopes",
      "orders:read",
    ]);
    const setup = await setupFromFlags(flags);
    assert.ok(setup.http?.auth !== undefined);
    const server = createServer({ ...IDENTITY, ...setup, ...echoFixtures() });
    const refused = await post(server, initialize());
    assert.equal(refused.status, 401);
    assert.match(refused.headers.get("www-authenticate") ?? "", /scope="orders:read"/);
    await refused.body?.cancel();
    const token = await as.mint({ sub: "alice", aud: ENDPOINT, scope: "orders:read" });
    const ok = await post(server, initialize(), { authorization: `Bearer ${token}` });
    assert.equal(ok.status, 200);
    await jsonOf(ok);
    await server.close();
  } finally {
    await as.close();
  }
});

Deno.test("a policy file's auth section configures OAuth; the flags override it", async () => {
  const as = await startAuthServer();
  const dir = await Deno.makeTempDir();
  try {
    const file = join(dir, "policy.jsonc");
    await Deno.writeTextFile(
      file,
      JSON.stringify({
        access: { tools: { allow: ["*"] } },
        auth: {
          issuer: "https://unused.example.com",
          audience: ENDPOINT,
          requiredScopes: ["desk"],
          scopes: { tools: { "echo": ["desk:echo"] } },
        },
      }),
    );
    const setup = await setupFromFlags(
      await flagsOf(["--policy", file, "--http", "0", "--auth-issuer", as.issuer]),
    );
    const server = createServer({ ...IDENTITY, ...setup, ...echoFixtures() });
    const token = await as.mint({ sub: "alice", aud: ENDPOINT, scope: "desk" });
    const auth = { authorization: `Bearer ${token}` };
    const init = await post(server, initialize(), auth);
    assert.equal(init.status, 200);
    const session = init.headers.get("mcp-session-id") ?? "";
    await init.body?.cancel();
    const call = {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "echo", arguments: { text: "hi" } },
    };
    const denied = await post(server, call, { ...auth, "mcp-session-id": session });
    assert.equal(denied.status, 403);
    assert.match(denied.headers.get("www-authenticate") ?? "", /scope="desk desk:echo"/);
    await denied.body?.cancel();
    await server.close();
  } finally {
    await as.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("OAuth setup mistakes are refused before the server starts", async () => {
  const cases: [string[], RegExp][] = [
    [
      ["--auth-issuer", "https://a.example.com", "--auth-audience", "https://d.example.com/mcp"],
      /--http/,
    ],
    [["--http", "0", "--auth-issuer", "https://a.example.com"], /both an issuer and an audience/],
    [[
      "--http",
      "0",
      "--auth-issuer",
      "https://a.example.com",
      "--auth-audience",
      "http://d.example.com/mcp",
    ], /https/],
  ];
  for (const [args, message] of cases) {
    await assert.rejects(setupFromFlags(await flagsOf(args)), message, args.join(" "));
  }
  await assert.rejects(
    parsePolicy('{ "auth": { "issuer": "https://a.example.com", "audience": "x" } }', "p.jsonc"),
    /auth is read by serverSetup/,
  );
  const { readPolicy } = await import("../../src/setup/policy_file.ts");
  await assert.rejects(
    readPolicy('{ "auth": { "issuer": "https://a.example.com", "audiance": "x" } }', "p.jsonc"),
    /unknown key "audiance"/,
  );
});

Deno.test("asking for OAuth without an issuer and an audience is refused, not ignored (fail closed)", async () => {
  // --auth-scopes alone: the operator means to require a scope; silently serving unprotected is wrong.
  await assert.rejects(
    setupFromFlags(await flagsOf(["--http", "0", "--auth-scopes", "orders:read"])),
    /both an issuer and an audience/,
  );
  // An auth section that names neither (a misplaced or forgotten field) must not leave the endpoint open.
  const dir = await Deno.makeTempDir();
  for (const section of ['{ "requiredScopes": ["orders:read"] }', "{}"]) {
    const file = join(dir, "policy.jsonc");
    await Deno.writeTextFile(file, `{ "auth": ${section} }`);
    await assert.rejects(
      setupFromFlags(await flagsOf(["--http", "0", "--policy", file])),
      /both an issuer and an audience/,
      section,
    );
  }
});
