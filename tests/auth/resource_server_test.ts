/**
 * Warden as an OAuth 2.1 resource server, end to end over `server.fetch`
 * with a real authorization server on 127.0.0.1 and tokens signed by the
 * test with `jose`: the metadata, the challenges, every rejection, scopes
 * in both eras, an authorization server that fails, and where tokens
 * must never appear. DPoP is in dpop_test.ts.
 */

import assert from "node:assert/strict";
import { createServer, defineTool, serveHttp } from "../../mod.ts";
import { oauthResourceServer } from "../../http.ts";
import { createGuardrails } from "../../guardrails.ts";
import {
  captureLog,
  initialize,
  isRecord,
  modernRequest,
  request,
  resultOf,
} from "../_helpers/helpers.ts";
import { ENDPOINT, jsonOf, modernPost, openSession, post, send } from "../_helpers/http_helpers.ts";
import { jose, testKey } from "../_helpers/auth_server.ts";
import {
  AUDIENCE,
  authServer,
  bearer,
  CALL_WHOAMI,
  METADATA_URL,
  refundScopedHttp,
  textOf,
  tools,
  withAs,
} from "../_helpers/auth_fixture.ts";

Deno.test("the endpoint serves its Protected Resource Metadata at the path-suffixed and root well-known paths", async () => {
  await withAs(async (as) => {
    const { server } = authServer(as);
    for (
      const path of [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
      ]
    ) {
      const response = await server.fetch(new Request(`http://localhost${path}`));
      assert.equal(response.status, 200, path);
      assert.deepEqual(await response.json(), {
        resource: AUDIENCE,
        authorization_servers: [as.issuer],
        bearer_methods_supported: ["header"],
        scopes_supported: ["orders:read"],
      });
    }
    const other = await server.fetch(
      new Request("http://localhost/.well-known/oauth-protected-resource/other"),
    );
    assert.equal(other.status, 404);
    await server.close();
  });
});

Deno.test("a request without a token gets 401 with resource_metadata and the scope it needs", async () => {
  await withAs(async (as) => {
    const { server } = authServer(as);
    for (
      const response of [await modernPost(server, CALL_WHOAMI), await post(server, initialize())]
    ) {
      assert.equal(response.status, 401);
      assert.equal(
        response.headers.get("www-authenticate"),
        `Bearer scope="orders:read", resource_metadata="${METADATA_URL}"`,
      );
      await response.body?.cancel();
    }
    await server.close();
  });
});

Deno.test("a valid token makes its subject the principal, in both eras", async () => {
  await withAs(async (as) => {
    const { server } = authServer(as);
    const token = await as.mint({ sub: "alice", aud: AUDIENCE, scope: "orders:read" });
    assert.equal(await textOf(await modernPost(server, CALL_WHOAMI, bearer(token))), "alice");
    const session = await openSession(server, { headers: bearer(token) });
    const reply = await session.post(request(2, "tools/call", { name: "whoami", arguments: {} }));
    assert.equal(await textOf(reply), "alice");
    // A legacy session stays its principal's: another subject's token cannot use it.
    const bob = await as.mint({ sub: "bob", aud: AUDIENCE, scope: "orders:read" });
    const hijack = await session.post(
      request(3, "tools/call", { name: "whoami", arguments: {} }),
      bearer(bob),
    );
    assert.equal(hijack.status, 403);
    await hijack.body?.cancel();
    await server.close();
  });
});

Deno.test("every token not meant for this server is refused with 401 invalid_token", async () => {
  await withAs(async (as) => {
    const { server, lines } = authServer(as);
    const now = Math.floor(Date.now() / 1000);
    const good = { sub: "alice", aud: AUDIENCE, scope: "orders:read" };
    const stranger = await testKey("k1"); // same kid, another key: a forged signature
    const unknown = await testKey("k9");
    const valid = await as.mint(good);
    const [head, body, signature] = valid.split(".");
    const tamperedBody = btoa(
      JSON.stringify({ ...good, sub: "admin", iss: as.issuer, exp: now + 300 }),
    )
      .replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
    const unsigned = `${
      btoa(JSON.stringify({ alg: "none", typ: "JWT" })).replace(/=+$/, "")
    }.${body}.`;
    const cases: [string, string][] = [
      ["wrong audience", await as.mint({ ...good, aud: "http://localhost/other" })],
      ["audience of another server", await as.mint({ ...good, aud: "https://api.example.com" })],
      ["no audience", await as.mint({ sub: "alice", scope: "orders:read" })],
      ["wrong issuer", await as.mint({ ...good, iss: "http://127.0.0.1:1" })],
      ["expired", await as.mint({ ...good, exp: now - 120 })],
      ["not yet valid", await as.mint({ ...good, nbf: now + 600 })],
      ["no expiry", await as.mint({ ...good, exp: undefined })],
      ["alg none", unsigned],
      ["unknown kid", await as.mint(good, unknown)],
      ["signed by another key", await as.mint(good, stranger)],
      ["tampered payload", `${head}.${tamperedBody}.${signature}`],
      ["tampered signature", `${head}.${body}.${signature?.slice(0, -4)}AAAA`],
      ["no subject", await as.mint({ aud: AUDIENCE, scope: "orders:read" })],
    ];
    for (const [what, token] of cases) {
      const response = await modernPost(server, CALL_WHOAMI, bearer(token));
      assert.equal(response.status, 401, what);
      const challenge = response.headers.get("www-authenticate") ?? "";
      assert.match(challenge, /^Bearer error="invalid_token"/, what);
      assert.ok(challenge.includes(`resource_metadata="${METADATA_URL}"`), what);
      const text = await response.text();
      assert.ok(!text.includes(token), `${what}: the reply repeats the token`);
    }
    assert.ok(lines.every((line) => cases.every(([, token]) => !line.includes(token))));
    await server.close();
  });
});

Deno.test("an HMAC token signed with the public key as secret is refused (algorithm confusion)", async () => {
  await withAs(async (as) => {
    const { server } = authServer(as);
    const secret = new TextEncoder().encode(JSON.stringify(as.keys[0]?.jwk));
    const now = Math.floor(Date.now() / 1000);
    const token = await new jose.SignJWT({
      sub: "alice",
      aud: AUDIENCE,
      iss: as.issuer,
      exp: now + 60,
      scope: "orders:read",
    })
      .setProtectedHeader({ alg: "HS256", kid: "k1" })
      .sign(secret);
    const response = await modernPost(server, CALL_WHOAMI, bearer(token));
    assert.equal(response.status, 401);
    await response.body?.cancel();
    await server.close();
  });
});

Deno.test("a call whose tool needs a scope the token lacks is 403 insufficient_scope naming every scope, and the list hides it", async () => {
  await withAs(async (as) => {
    const { server } = authServer(as);
    const reader = await as.mint({ sub: "alice", aud: AUDIENCE, scope: "orders:read" });
    const writer = await as.mint({
      sub: "alice",
      aud: AUDIENCE,
      scope: "orders:read orders:write",
    });
    const refund = modernRequest(2, "tools/call", { name: "refund_order", arguments: { id: "7" } });
    const refused = await modernPost(server, refund, bearer(reader));
    assert.equal(refused.status, 403);
    assert.equal(
      refused.headers.get("www-authenticate"),
      `Bearer error="insufficient_scope", scope="orders:read orders:write", resource_metadata="${METADATA_URL}", error_description="the access token lacks a scope this request needs"`,
    );
    await refused.body?.cancel();
    assert.equal(await textOf(await modernPost(server, refund, bearer(writer))), "refunded 7");
    const names = async (token: string): Promise<string[]> => {
      const body = await jsonOf(
        await modernPost(server, modernRequest(3, "tools/list", {}), bearer(token)),
      );
      const listed = resultOf(body).tools;
      assert.ok(Array.isArray(listed));
      return listed.map((tool) => (isRecord(tool) ? String(tool.name) : ""));
    };
    assert.deepEqual(await names(reader), ["whoami"]);
    assert.deepEqual(await names(writer), ["refund_order", "whoami"]);
    // The same in a legacy session, which steps up on the same session with a wider token.
    const session = await openSession(server, { headers: bearer(reader) });
    const legacyRefund = request(4, "tools/call", { name: "refund_order", arguments: { id: "8" } });
    const denied = await session.post(legacyRefund);
    assert.equal(denied.status, 403);
    await denied.body?.cancel();
    const list = await jsonOf(await session.post(request(5, "tools/list", {})));
    assert.deepEqual((resultOf(list).tools as { name: string }[]).map((tool) => tool.name), [
      "whoami",
    ]);
    assert.equal(await textOf(await session.post(legacyRefund, bearer(writer))), "refunded 8");
    // A token without the scope every request needs is 403 too.
    const none = await as.mint({ sub: "alice", aud: AUDIENCE, scope: "profile" });
    const bare = await modernPost(server, CALL_WHOAMI, bearer(none));
    assert.equal(bare.status, 403);
    await bare.body?.cancel();
    await server.close();
  });
});

Deno.test("a rotated key is found by fetching the JWKS again on an unknown kid", async () => {
  await withAs(async (as) => {
    let clock = Date.now();
    const { server } = authServer(as, { now: () => clock });
    const first = await as.mint({ sub: "alice", aud: AUDIENCE, scope: "orders:read" });
    assert.equal(await textOf(await modernPost(server, CALL_WHOAMI, bearer(first))), "alice");
    // Within the cool-down after a fetch an unknown kid is refused without asking again.
    const rotated = await testKey("k2");
    as.keys = [rotated];
    const early = await as.mint({ sub: "bob", aud: AUDIENCE, scope: "orders:read" }, rotated);
    const refused = await modernPost(server, CALL_WHOAMI, bearer(early));
    assert.equal(refused.status, 401);
    await refused.body?.cancel();
    assert.equal(as.jwksFetches, 1);
    clock += 31_000;
    const second = await as.mint({ sub: "bob", aud: AUDIENCE, scope: "orders:read" }, rotated);
    assert.equal(await textOf(await modernPost(server, CALL_WHOAMI, bearer(second))), "bob");
    assert.equal(as.jwksFetches, 2);
    // Unknown kids do not make the server hammer the JWKS: one refresh per cool-down.
    const stranger = await testKey("k3");
    for (let i = 0; i < 5; i++) {
      const response = await modernPost(
        server,
        CALL_WHOAMI,
        bearer(await as.mint({ sub: "eve", aud: AUDIENCE, scope: "orders:read" }, stranger)),
      );
      assert.equal(response.status, 401);
      await response.body?.cancel();
    }
    assert.equal(as.jwksFetches, 2);
    await server.close();
  });
});

Deno.test("an authorization server that fails, stalls or answers too much fails closed with 503, logged without the token", async () => {
  for (const mode of ["fail", "stall", "huge"] as const) {
    await withAs(async (as) => {
      as.jwksMode = mode;
      const { server, lines } = authServer(as, { timeoutMs: 300 });
      const token = await as.mint({ sub: "alice", aud: AUDIENCE, scope: "orders:read" });
      const started = Date.now();
      const response = await modernPost(server, CALL_WHOAMI, bearer(token));
      assert.equal(response.status, 503, mode);
      assert.ok(Date.now() - started < 3000, `${mode}: answered within bounds`);
      await response.body?.cancel();
      assert.ok(lines.some((line) => line.includes("cannot verify an access token")), mode);
      assert.ok(lines.every((line) => !line.includes(token)), `${mode}: the log holds the token`);
      // The server keeps answering: the metadata, and the next request.
      const metadata = await server.fetch(
        new Request("http://localhost/.well-known/oauth-protected-resource"),
      );
      assert.equal(metadata.status, 200);
      await metadata.body?.cancel();
      await server.close();
    });
  }
});

Deno.test("opaque tokens are introspected: active and for this server, else 401", async () => {
  await withAs(async (as) => {
    const { server } = authServer(as, {
      introspection: { clientId: "warden", clientSecret: "s3cret" },
    });
    const exp = Math.floor(Date.now() / 1000) + 300;
    as.opaque.set("opaque-good", {
      sub: "carol",
      aud: AUDIENCE,
      scope: "orders:read",
      exp,
      iss: as.issuer,
    });
    as.opaque.set("opaque-other", {
      sub: "carol",
      aud: "https://other.example",
      scope: "orders:read",
      exp,
    });
    as.opaque.set("opaque-expired", {
      sub: "carol",
      aud: AUDIENCE,
      scope: "orders:read",
      exp: exp - 1000,
    });
    assert.equal(
      await textOf(await modernPost(server, CALL_WHOAMI, bearer("opaque-good"))),
      "carol",
    );
    assert.equal(as.introspectionAuth[0], `Basic ${btoa("warden:s3cret")}`);
    for (const token of ["opaque-other", "opaque-expired", "opaque-unknown"]) {
      const response = await modernPost(server, CALL_WHOAMI, bearer(token));
      assert.equal(response.status, 401, token);
      await response.body?.cancel();
    }
    await server.close();
  });
});

Deno.test("malformed credentials are 400, a token in the query is refused, other schemes are challenged", async () => {
  await withAs(async (as) => {
    const { server } = authServer(as);
    const token = await as.mint({ sub: "alice", aud: AUDIENCE, scope: "orders:read" });
    const cases: [string, Record<string, string>, string, number][] = [
      ["two tokens", { authorization: `Bearer ${token}, Bearer ${token}` }, ENDPOINT, 400],
      ["a space in the token", { authorization: "Bearer a b" }, ENDPOINT, 400],
      ["a token in the query", bearer(token), `${ENDPOINT}?access_token=${token}`, 400],
      ["Basic", { authorization: "Basic dXNlcjpwYXNz" }, ENDPOINT, 401],
    ];
    for (const [what, headers, url, status] of cases) {
      const response = await post(server, CALL_WHOAMI, {
        ...headers,
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "whoami",
      }, url);
      assert.equal(response.status, status, what);
      assert.ok(!(await response.text()).includes(token), what);
    }
    await server.close();
  });
});

Deno.test("unsafe options are refused at start-up", () => {
  const base = { issuer: "https://auth.example.com", audience: "https://desk.example.com/mcp" };
  const bad: [string, Parameters<typeof oauthResourceServer>[0]][] = [
    ["alg none", { ...base, algorithms: ["none"] }],
    ["an HMAC", { ...base, algorithms: ["HS256"] }],
    ["no algorithms", { ...base, algorithms: [] }],
    ["a plain-http audience", { ...base, audience: "http://desk.example.com/mcp" }],
    ["a fragment", { ...base, audience: "https://desk.example.com/mcp#x" }],
    ["a query", { ...base, audience: "https://desk.example.com/mcp?tenant=a" }],
    ["a relative issuer", { ...base, issuer: "/auth" }],
    ["a scope with a space", { ...base, requiredScopes: ["a b"] }],
    ["an empty scope rule", { ...base, scopes: { tools: { "x": [] } } }],
    ["DPoP with no proof algorithm", {
      ...base,
      algorithms: ["Ed25519"],
      dpop: { required: true },
    }],
  ];
  for (const [what, options] of bad) {
    assert.throws(() => oauthResourceServer(options), TypeError, what);
  }
  assert.throws(
    () =>
      createServer({
        name: "x",
        version: "1",
        http: { auth: oauthResourceServer(base), authenticate: () => "x" },
      }),
    TypeError,
  );
});

Deno.test("without OAuth the well-known paths are 404 and no challenge is sent", async () => {
  const server = createServer({ name: "plain", version: "1.0.0", tools: tools() });
  const response = await server.fetch(
    new Request("http://localhost/.well-known/oauth-protected-resource"),
  );
  assert.equal(response.status, 404);
  await response.body?.cancel();
  const ok = await send(server, "DELETE");
  assert.notEqual(ok.status, 401);
  await ok.body?.cancel();
  await server.close();
});

Deno.test("tokens never reach replies, the log or the audit log; the audit names the token's subject", async () => {
  await withAs(async (as) => {
    const dir = await Deno.makeTempDir();
    const file = `${dir}/audit.jsonl`;
    const { lines, log } = captureLog();
    const server = createServer({
      name: "audited",
      version: "1.0.0",
      log,
      tools: tools(),
      guardrails: createGuardrails({ audit: { file }, access: { tools: { deny: ["nothing"] } } }),
      http: refundScopedHttp(as),
    });
    const token = await as.mint({ sub: "alice", aud: AUDIENCE, scope: "orders:read" });
    const expired = await as.mint({ sub: "alice", aud: AUDIENCE, exp: 1 });
    const foreign = await as.mint({
      sub: "alice",
      aud: "https://other.example",
      scope: "orders:read",
    });
    const replies: string[] = [];
    const calls = [
      CALL_WHOAMI,
      modernRequest(2, "tools/call", { name: "refund_order", arguments: { id: "1" } }),
      modernRequest(3, "tools/list", {}),
    ];
    for (const used of [token, expired]) {
      for (const call of calls) {
        replies.push(await (await modernPost(server, call, bearer(used))).text());
      }
      const session = await post(server, initialize(), bearer(used));
      replies.push(await session.text());
    }
    // Every other refusal kind the audit records: 400 (two tokens, a token in the URL),
    // 401 on a GET, 401 for another audience, and 403 insufficient_scope (above).
    const refusals: [Record<string, string>, string][] = [
      [{ authorization: `Bearer ${token}, Bearer ${token}` }, ENDPOINT],
      [bearer(token), `${ENDPOINT}?access_token=${token}`],
      [bearer(foreign), ENDPOINT],
    ];
    for (const [headers, url] of refusals) {
      replies.push(await (await post(server, CALL_WHOAMI, headers, url)).text());
    }
    replies.push(await (await send(server, "GET", bearer(expired))).text());
    await server.close();
    const audit = await Deno.readTextFile(file);
    await Deno.remove(dir, { recursive: true });
    assert.match(audit, /"principal":"alice"/);
    for (const reason of ["missing_scope", "expired", "malformed_credentials", "wrong_audience"]) {
      assert.ok(audit.includes(`"reason":"${reason}"`), `the audit misses ${reason}`);
    }
    for (const used of [token, expired, foreign]) {
      const [, , signature = ""] = used.split(".");
      const places: [string, string][] = [
        ["audit", audit],
        ["log", lines.join("\n")],
        ["replies", replies.join("\n")],
      ];
      for (const [where, text] of places) {
        assert.ok(!text.includes(signature), `${where} holds a token`);
      }
    }
  });
});

Deno.test("a 2026-07-28 listen stream for a resource the token's scopes do not cover is 403", async () => {
  await withAs(async (as) => {
    const { server } = authServer(as, {
      requiredScopes: [],
      scopes: { resources: { "notes://private/*": ["notes:read"] } },
    });
    const token = await as.mint({ sub: "alice", aud: AUDIENCE, scope: "orders:read" });
    const listen = modernRequest(5, "subscriptions/listen", {
      notifications: { resourceSubscriptions: ["notes://private/1"] },
    });
    const refused = await modernPost(server, listen, bearer(token));
    assert.equal(refused.status, 403);
    assert.match(refused.headers.get("www-authenticate") ?? "", /scope="notes:read"/);
    await refused.body?.cancel();
    await server.close();
  });
});

Deno.test("serveHttp() refuses options carrying OAuth that the server was not created with", async () => {
  const auth = oauthResourceServer({
    issuer: "https://auth.example.com",
    audience: "https://desk.example.com/mcp",
  });
  const open = createServer({ name: "open", version: "1.0.0", tools: tools() });
  const options = { port: 0, handleSignals: false, auth };
  await assert.rejects(serveHttp(open, options), /created without it/);
  await open.close();
  const guarded = createServer({ name: "guarded", version: "1.0.0", http: { auth } });
  const listener = await serveHttp(guarded, options);
  await listener.shutdown();
});

Deno.test("a verifyToken hook decides alone; its throw is a 503 whose log line never quotes the token", async () => {
  await withAs(async (as) => {
    const { server, lines } = authServer(as, {
      requiredScopes: [],
      verifyToken: (token) => {
        if (token === "key-for-erin") return Promise.resolve({ sub: "erin", scope: "orders:read" });
        if (token === "key-boom") return Promise.reject(new Error(`bad key ${token}`));
        return Promise.resolve(null);
      },
    });
    assert.equal(
      await textOf(await modernPost(server, CALL_WHOAMI, bearer("key-for-erin"))),
      "erin",
    );
    const unknown = await modernPost(server, CALL_WHOAMI, bearer("key-other"));
    assert.equal(unknown.status, 401);
    await unknown.body?.cancel();
    const boom = await modernPost(server, CALL_WHOAMI, bearer("key-boom"));
    assert.equal(boom.status, 503);
    await boom.body?.cancel();
    assert.ok(lines.some((line) => line.includes("bad key [token]")), lines.join("\n"));
    assert.ok(lines.every((line) => !line.includes("key-boom")));
    await server.close();
  });
});

Deno.test("handlers and guardrails see the token's scopes and only the claims the server asked for, in both eras", async () => {
  await withAs(async (as) => {
    const seen: unknown[] = [];
    const { lines, log } = captureLog();
    const server = createServer({
      name: "claims",
      version: "1.0.0",
      log,
      tools: [
        defineTool({
          name: "grant",
          description: "What the token grants",
          inputSchema: { type: "object" },
          handler: (_args, context) => JSON.stringify(context.auth ?? null),
        }),
      ],
      guardrails: [{
        name: "spy",
        stage: "custom",
        run: (call, next) => {
          seen.push(call.context.auth);
          return next(call);
        },
      }],
      http: {
        auth: oauthResourceServer({
          issuer: as.issuer,
          audience: AUDIENCE,
          claims: ["email", "__proto__"],
        }),
        keepAliveMs: 0,
      },
    });
    const token = await as.mint({
      sub: "alice",
      aud: AUDIENCE,
      scope: "orders:read orders:write",
      email: "alice@example.com",
      salary: 1,
    });
    const expected = {
      scopes: ["orders:read", "orders:write"],
      claims: { email: "alice@example.com" },
    };
    const call = modernRequest(1, "tools/call", { name: "grant", arguments: {} });
    assert.deepEqual(
      JSON.parse(await textOf(await modernPost(server, call, bearer(token)))),
      expected,
    );
    const session = await openSession(server, { headers: bearer(token) });
    const legacy = await session.post(request(2, "tools/call", { name: "grant", arguments: {} }));
    assert.deepEqual(JSON.parse(await textOf(legacy)), expected);
    assert.equal(seen.length, 2);
    for (const grant of seen) assert.deepEqual(grant, expected);
    // Without OAuth there is no grant at all.
    const plain = createServer({
      name: "plain",
      version: "1.0.0",
      tools: [defineTool({
        name: "grant",
        description: "d",
        inputSchema: { type: "object" },
        handler: (_args, context) => JSON.stringify(context.auth ?? null),
      })],
    });
    assert.equal(await textOf(await modernPost(plain, call)), "null");
    assert.ok(lines.every((line) => !line.includes("salary")));
    await plain.close();
    await server.close();
  });
});
