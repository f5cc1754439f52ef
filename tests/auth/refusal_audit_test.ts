/**
 * Authorization refusals in the audit log: every 401 (each rejection
 * reason), 403, 400, DPoP refusal and 503 of the resource server gets an
 * entry, in both eras, with the method and name its body gives, the
 * principal when one was proven, an outcome and a reason; and no token or
 * DPoP proof ever reaches the audit file.
 */

import assert from "node:assert/strict";
import { createServer, type Server } from "../../mod.ts";
import { oauthResourceServer } from "../../http.ts";
import { createGuardrails } from "../../guardrails.ts";
import { initialize, modernRequest, request } from "../_helpers/helpers.ts";
import { ENDPOINT, modernPost, openSession, post, send } from "../_helpers/http_helpers.ts";
import { jose, type TestAuthServer, testKey } from "../_helpers/auth_server.ts";
import { AUDIENCE, bearer, CALL_WHOAMI, tools, withAs } from "../_helpers/auth_fixture.ts";

type Options = Partial<Parameters<typeof oauthResourceServer>[0]>;

/** A protected server whose audit log goes to `file`. */
function auditedServer(as: TestAuthServer, file: string, extra: Options = {}): Server {
  return createServer({
    name: "audited",
    version: "1.0.0",
    log: () => {},
    tools: tools(),
    guardrails: createGuardrails({ audit: { file } }),
    http: {
      auth: oauthResourceServer({
        issuer: as.issuer,
        audience: AUDIENCE,
        requiredScopes: ["orders:read"],
        scopes: { tools: { "refund_*": ["orders:write"] } },
        timeoutMs: 300,
        ...extra,
      }),
      keepAliveMs: 0,
    },
  });
}

type Entry = Record<string, unknown> & { arguments: { auth?: Record<string, unknown> } };

/** The call entries of an audit file. */
async function entriesOf(file: string): Promise<Entry[]> {
  const text = await Deno.readTextFile(file);
  return text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line))
    .filter((entry) => entry.event === undefined);
}

/** Runs `body` against an audited server, then returns its entries and the audit text. */
async function audited(
  as: TestAuthServer,
  extra: Options,
  body: (server: Server) => Promise<void>,
): Promise<{ entries: Entry[]; text: string }> {
  const dir = await Deno.makeTempDir();
  const file = `${dir}/audit.jsonl`;
  const server = auditedServer(as, file, extra);
  try {
    await body(server);
  } finally {
    await server.close();
  }
  const text = await Deno.readTextFile(file).catch(() => "");
  const entries = text === "" ? [] : await entriesOf(file);
  await Deno.remove(dir, { recursive: true });
  return { entries, text };
}

/** The legacy-era form of a call: a plain request, no modern headers or `_meta`. */
const LEGACY_WHOAMI = request(1, "tools/call", { name: "whoami", arguments: {} });

/** Sends `token` in both eras; asserts the status; drains the replies. */
async function bothEras(server: Server, headers: Record<string, string>, status: number) {
  for (
    const response of [
      await modernPost(server, CALL_WHOAMI, headers),
      await post(server, LEGACY_WHOAMI, headers),
    ]
  ) {
    assert.equal(response.status, status);
    await response.body?.cancel();
  }
}

/** Asserts the two entries (modern, legacy) of one refusal. */
function assertPair(entries: Entry[], at: number, expected: Record<string, unknown>, what: string) {
  for (const entry of entries.slice(at, at + 2)) {
    const auth = entry.arguments.auth ?? {};
    assert.equal(entry.method, "tools/call", what);
    assert.equal(entry.name, "whoami", what);
    assert.equal(entry.error_code, -32600, what);
    assert.equal(auth.http_method, "POST", what);
    for (const [key, value] of Object.entries(expected)) {
      const actual = key in auth ? auth[key] : entry[key];
      assert.deepEqual(actual, value, `${what}: ${key}`);
    }
  }
}

Deno.test("every 401 rejection reason is audited in both eras, with its reason and never the token", async () => {
  await withAs(async (as) => {
    const now = Math.floor(Date.now() / 1000);
    const good = { sub: "alice", aud: AUDIENCE, scope: "orders:read" };
    const valid = await as.mint(good);
    const [head, body, signature] = valid.split(".");
    const unsigned = `${
      btoa(JSON.stringify({ alg: "none", typ: "JWT" })).replace(/=+$/, "")
    }.${body}.`;
    const cases: [string, string, string][] = [
      [
        "wrong audience",
        await as.mint({ ...good, aud: "https://api.example.com" }),
        "wrong_audience",
      ],
      ["no audience", await as.mint({ sub: "alice", scope: "orders:read" }), "wrong_audience"],
      ["wrong issuer", await as.mint({ ...good, iss: "http://127.0.0.1:1" }), "wrong_issuer"],
      ["expired", await as.mint({ ...good, exp: now - 120 }), "expired"],
      ["not yet valid", await as.mint({ ...good, nbf: now + 600 }), "not_yet_valid"],
      ["no expiry", await as.mint({ ...good, exp: undefined }), "missing_exp"],
      ["alg none", unsigned, "algorithm_not_allowed"],
      ["unknown kid", await as.mint(good, await testKey("k9")), "unknown_key"],
      ["another key", await as.mint(good, await testKey("k1")), "bad_signature"],
      ["tampered signature", `${head}.${body}.${signature?.slice(0, -4)}AAAA`, "bad_signature"],
      ["no subject", await as.mint({ aud: AUDIENCE, scope: "orders:read" }), "no_principal"],
      ["opaque without introspection", "opaque-token-value", "not_a_jwt"],
    ];
    const { entries, text } = await audited(as, {}, async (server) => {
      await bothEras(server, {}, 401);
      for (const [, token] of cases) await bothEras(server, bearer(token), 401);
    });
    assert.equal(entries.length, 2 * (cases.length + 1));
    assertPair(entries, 0, {
      principal: null,
      outcome: "denied",
      http_status: 401,
      error: null,
      reason: "no_token",
    }, "no token");
    cases.forEach(([what, , reason], index) => {
      assertPair(entries, 2 * (index + 1), {
        principal: null,
        outcome: "denied",
        http_status: 401,
        error: "invalid_token",
        reason,
      }, what);
    });
    for (const [what, token] of cases) {
      const secret = token.split(".")[2] || token;
      assert.ok(!text.includes(secret), `${what}: the audit holds the token`);
    }
  });
});

Deno.test("403 insufficient_scope is audited with the token's subject, the item and its arguments withheld", async () => {
  await withAs(async (as) => {
    const token = await as.mint({ sub: "alice", aud: AUDIENCE, scope: "orders:read" });
    const refund = { name: "refund_order", arguments: { id: "ORD-1" } };
    const narrow = await as.mint({ sub: "bob", aud: AUDIENCE, scope: "profile" });
    const { entries, text } = await audited(as, {}, async (server) => {
      const modern = await modernPost(
        server,
        modernRequest(7, "tools/call", refund),
        bearer(token),
      );
      const legacy = await post(server, request(8, "tools/call", refund), bearer(token));
      // A token without the scope every request needs is refused at authentication.
      const required = await modernPost(server, CALL_WHOAMI, bearer(narrow));
      for (const response of [modern, legacy, required]) {
        assert.equal(response.status, 403);
        await response.body?.cancel();
      }
    });
    assert.equal(entries.length, 3);
    entries.slice(0, 2).forEach((entry, index) => {
      assert.equal(entry.principal, "alice");
      assert.equal(entry.method, "tools/call");
      assert.equal(entry.name, "refund_order");
      assert.equal(entry.outcome, "denied");
      assert.equal(entry.request_id, 7 + index);
      assert.deepEqual(entry.arguments, {
        auth: {
          http_status: 403,
          error: "insufficient_scope",
          reason: "missing_scope",
          http_method: "POST",
        },
      });
    });
    assert.equal(entries[2]?.principal, "bob");
    assert.equal(entries[2]?.arguments.auth?.reason, "missing_scope");
    for (const used of [token, narrow]) assert.ok(!text.includes(used.split(".")[2] ?? ""));
  });
});

Deno.test("400 malformed credentials, a GET without a token and a body that is not JSON are audited", async () => {
  await withAs(async (as) => {
    const token = await as.mint({ sub: "alice", aud: AUDIENCE, scope: "orders:read" });
    const { entries, text } = await audited(as, {}, async (server) => {
      await bothEras(server, { authorization: `Bearer ${token}, Bearer ${token}` }, 400);
      const query = await post(
        server,
        LEGACY_WHOAMI,
        bearer(token),
        `${ENDPOINT}?access_token=${token}`,
      );
      assert.equal(query.status, 400);
      await query.body?.cancel();
      const get = await send(server, "GET", { accept: "text/event-stream" });
      assert.equal(get.status, 401);
      await get.body?.cancel();
      const junk = await post(server, "{not json", {});
      assert.equal(junk.status, 401);
      await junk.body?.cancel();
    });
    assert.equal(entries.length, 5);
    assertPair(entries, 0, {
      outcome: "invalid",
      http_status: 400,
      error: "invalid_request",
      reason: "malformed_credentials",
    }, "two tokens");
    assert.equal(entries[2]?.arguments.auth?.reason, "malformed_credentials");
    for (const [entry, method] of [[entries[3], "GET"], [entries[4], "POST"]] as const) {
      assert.equal(entry?.method, "");
      assert.equal(entry?.name, "");
      assert.equal(entry?.outcome, "denied");
      assert.equal(entry?.arguments.auth?.http_method, method);
      assert.equal(entry?.arguments.auth?.reason, "no_token");
    }
    assert.ok(!text.includes(token.split(".")[2] ?? ""), "the audit holds the token");
  });
});

Deno.test("an authorization server that fails is a 503 audited as internal_error, in both eras", async () => {
  for (const mode of ["fail", "stall"] as const) {
    await withAs(async (as) => {
      as.jwksMode = mode;
      const token = await as.mint({ sub: "alice", aud: AUDIENCE, scope: "orders:read" });
      const { entries, text } = await audited(as, {}, async (server) => {
        await bothEras(server, bearer(token), 503);
      });
      assert.equal(entries.length, 2, mode);
      assertPair(entries, 0, {
        principal: null,
        outcome: "internal_error",
        http_status: 503,
        error: null,
        reason: "authorization_server_failed",
      }, mode);
      assert.ok(!text.includes(token.split(".")[2] ?? ""), `${mode}: the audit holds the token`);
    });
  }
  await withAs(async (as) => {
    const token = "opaque-and-secret-token";
    const { entries, text } = await audited(as, {
      verifyToken: () => Promise.reject(new Error(`cannot check ${token}`)),
    }, async (server) => {
      await bothEras(server, bearer(token), 503);
    });
    assert.equal(entries[0]?.arguments.auth?.reason, "verify_token_failed");
    assert.ok(!text.includes(token));
  });
});

Deno.test("DPoP refusals are audited with the token's subject, never the token or the proof", async () => {
  await withAs(async (as) => {
    const { privateKey, publicKey } = await jose.generateKeyPair("ES256", { extractable: true });
    const jwk = await jose.exportJWK(publicKey);
    const jkt = await jose.calculateJwkThumbprint(jwk, "sha256");
    const token = await as.mint({
      sub: "dana",
      aud: AUDIENCE,
      scope: "orders:read",
      cnf: { jkt },
    });
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token));
    const proof = await new jose.SignJWT({
      htm: "POST",
      htu: ENDPOINT,
      iat: Math.floor(Date.now() / 1000),
      jti: crypto.randomUUID(),
      ath: jose.base64url.encode(new Uint8Array(digest)),
    }).setProtectedHeader({ alg: "ES256", typ: "dpop+jwt", jwk }).sign(privateKey);
    const dpop = { authorization: `DPoP ${token}`, dpop: proof };
    const { entries, text } = await audited(as, { dpop: {} }, async (server) => {
      const first = await modernPost(server, CALL_WHOAMI, dpop);
      assert.equal(first.status, 200);
      await first.body?.cancel();
      // The same proof again (replayed), in both eras; then the bound token as a bearer token.
      await bothEras(server, dpop, 401);
      await bothEras(server, bearer(token), 401);
    });
    const refusals = entries.filter((entry) => entry.arguments.auth !== undefined);
    assert.equal(refusals.length, 4);
    assertPair(refusals, 0, {
      principal: "dana",
      outcome: "denied",
      http_status: 401,
      error: "invalid_dpop_proof",
      reason: "invalid_dpop_proof",
    }, "replayed proof");
    assertPair(refusals, 2, {
      principal: "dana",
      error: "invalid_token",
      reason: "bound_token_as_bearer",
    }, "bound token as bearer");
    assert.ok(!text.includes(token.split(".")[2] ?? ""), "the audit holds the token");
    assert.ok(!text.includes(proof.split(".")[2] ?? ""), "the audit holds the proof");
  });
});

Deno.test("initialize refused for its token is audited too (legacy era)", async () => {
  await withAs(async (as) => {
    const { entries } = await audited(as, {}, async (server) => {
      const response = await post(server, initialize(), {});
      assert.equal(response.status, 401);
      await response.body?.cancel();
    });
    assert.equal(entries.length, 1);
    assert.equal(entries[0]?.method, "initialize");
    assert.equal(entries[0]?.outcome, "denied");
    assert.equal(entries[0]?.request_id, 0);
  });
});

Deno.test("a legacy session used with another subject's token is a 403 audited with that subject", async () => {
  await withAs(async (as) => {
    const alice = await as.mint({ sub: "alice", aud: AUDIENCE, scope: "orders:read" });
    const bob = await as.mint({ sub: "bob", aud: AUDIENCE, scope: "orders:read" });
    const { entries, text } = await audited(as, {}, async (server) => {
      const session = await openSession(server, { headers: bearer(alice) });
      const posted = await session.post(LEGACY_WHOAMI, bearer(bob));
      const streamed = await session.get(bearer(bob));
      for (const response of [posted, streamed]) {
        assert.equal(response.status, 403);
        await response.body?.cancel();
      }
    });
    const refusals = entries.filter((entry) => entry.arguments.auth !== undefined);
    assert.equal(refusals.length, 2);
    for (
      const [entry, method, httpMethod] of [
        [refusals[0], "tools/call", "POST"],
        [refusals[1], "", "GET"],
      ] as const
    ) {
      assert.equal(entry?.principal, "bob");
      assert.equal(entry?.method, method);
      assert.equal(entry?.outcome, "denied");
      assert.deepEqual(entry?.arguments.auth, {
        http_status: 403,
        error: null,
        reason: "session_of_another_principal",
        http_method: httpMethod,
      });
    }
    for (const used of [alice, bob]) assert.ok(!text.includes(used.split(".")[2] ?? ""));
  });
});
