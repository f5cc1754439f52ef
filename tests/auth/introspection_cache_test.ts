/**
 * Introspection answers are cached: an active one until the token's `exp`
 * or `cacheSeconds`, whichever is first, an inactive one 5 s at most, a
 * bounded number of them, one call for concurrent uses of a token, and
 * nothing for a failed call. End to end against the test authorization
 * server, with the clock injected.
 */

import assert from "node:assert/strict";
import { modernPost } from "../_helpers/http_helpers.ts";
import { AUDIENCE, authServer, bearer, CALL_WHOAMI, withAs } from "../_helpers/auth_fixture.ts";
import type { TestAuthServer } from "../_helpers/auth_server.ts";
import { IntrospectionCache } from "../../src/auth/introspection_cache.ts";
import { UpstreamError } from "../../src/auth/fetch_json.ts";

/** A clock the test moves. */
function clock(): { now: () => number; advance: (ms: number) => void } {
  let time = Date.now();
  return { now: () => time, advance: (ms) => (time += ms) };
}

/** A server introspecting opaque tokens, with `cacheSeconds` and `cacheSize`. */
function introspecting(
  as: TestAuthServer,
  now: () => number,
  cacheSeconds = 60,
  cacheSize = 10_000,
) {
  return authServer(as, {
    now,
    introspection: { clientId: "warden", clientSecret: "s3cret", cacheSeconds, cacheSize },
  }).server;
}

/** The status of a call with `token`. */
async function statusWith(server: Awaited<ReturnType<typeof introspecting>>, token: string) {
  const response = await modernPost(server, CALL_WHOAMI, bearer(token));
  await response.body?.cancel();
  return response.status;
}

function activeToken(as: TestAuthServer, token: string, expSeconds: number): void {
  as.opaque.set(token, { sub: "carol", aud: AUDIENCE, scope: "orders:read", exp: expSeconds });
}

Deno.test("an active answer is reused until cacheSeconds, then asked again (a revocation shows then)", async () => {
  await withAs(async (as) => {
    const time = clock();
    const server = introspecting(as, time.now, 30);
    activeToken(as, "opaque-a", Math.floor(time.now() / 1000) + 3600);
    assert.equal(await statusWith(server, "opaque-a"), 200);
    assert.equal(await statusWith(server, "opaque-a"), 200);
    assert.equal(as.introspectionAuth.length, 1, "the second use is served from the cache");
    as.opaque.delete("opaque-a"); // revoked at the authorization server
    time.advance(29_000);
    assert.equal(await statusWith(server, "opaque-a"), 200, "cached up to cacheSeconds");
    time.advance(2_000);
    assert.equal(await statusWith(server, "opaque-a"), 401, "asked again after cacheSeconds");
    assert.equal(as.introspectionAuth.length, 2);
    await server.close();
  });
});

Deno.test("an answer is never kept past the token's exp", async () => {
  await withAs(async (as) => {
    const time = clock();
    const server = introspecting(as, time.now, 3600);
    activeToken(as, "opaque-short", Math.floor(time.now() / 1000) + 10);
    assert.equal(await statusWith(server, "opaque-short"), 200);
    time.advance(5_000);
    assert.equal(await statusWith(server, "opaque-short"), 200);
    assert.equal(as.introspectionAuth.length, 1);
    // Past exp (and the clock skew): asked again, and refused as expired.
    time.advance(40_000);
    assert.equal(await statusWith(server, "opaque-short"), 401);
    assert.equal(as.introspectionAuth.length, 2);
    await server.close();
  });
});

Deno.test("an inactive answer is kept 5 s at most; cacheSeconds 0 turns the cache off", async () => {
  await withAs(async (as) => {
    const time = clock();
    const server = introspecting(as, time.now, 60);
    assert.equal(await statusWith(server, "opaque-unknown"), 401);
    assert.equal(await statusWith(server, "opaque-unknown"), 401);
    assert.equal(as.introspectionAuth.length, 1);
    // Issued meanwhile: accepted once the negative answer is gone.
    activeToken(as, "opaque-unknown", Math.floor(time.now() / 1000) + 3600);
    time.advance(5_001);
    assert.equal(await statusWith(server, "opaque-unknown"), 200);
    assert.equal(as.introspectionAuth.length, 2);
    await server.close();
    const uncached = introspecting(as, time.now, 0);
    for (let i = 0; i < 3; i++) assert.equal(await statusWith(uncached, "opaque-unknown"), 200);
    assert.equal(as.introspectionAuth.length, 5);
    await uncached.close();
  });
});

Deno.test("the cache is bounded, and concurrent uses of one token share one call", async () => {
  await withAs(async (as) => {
    const time = clock();
    const server = introspecting(as, time.now, 60, 2);
    const exp = Math.floor(time.now() / 1000) + 3600;
    for (const token of ["opaque-1", "opaque-2", "opaque-3"]) activeToken(as, token, exp);
    const statuses = await Promise.all(
      Array.from({ length: 5 }, () => statusWith(server, "opaque-1")),
    );
    assert.deepEqual(statuses, [200, 200, 200, 200, 200]);
    assert.equal(as.introspectionAuth.length, 1, "one call for five concurrent uses");
    assert.equal(await statusWith(server, "opaque-2"), 200);
    assert.equal(await statusWith(server, "opaque-3"), 200); // evicts opaque-1, the oldest
    assert.equal(as.introspectionAuth.length, 3);
    assert.equal(await statusWith(server, "opaque-1"), 200);
    assert.equal(as.introspectionAuth.length, 4, "the evicted answer is asked again");
    await server.close();
  });
});

Deno.test("IntrospectionCache keeps no failed call and holds at most its size", async () => {
  let now = 1_000_000;
  const cache = new IntrospectionCache(60_000, 3, () => now);
  let calls = 0;
  const failing = () => {
    calls++;
    return Promise.reject(new UpstreamError("down"));
  };
  await assert.rejects(cache.answer("t", failing), UpstreamError);
  await assert.rejects(cache.answer("t", failing), UpstreamError);
  assert.equal(calls, 2, "a failure is not cached");
  assert.equal(cache.size, 0);
  const active = () => {
    calls++;
    return Promise.resolve({ active: true, exp: now / 1000 + 3600 });
  };
  for (let i = 0; i < 10; i++) await cache.answer(`token-${i}`, active);
  assert.equal(cache.size, 3);
  now += 61_000;
  await cache.answer("token-9", active);
  assert.equal(calls, 13, "expired after the cache's max age");
  // An answer without exp is not kept at all.
  await cache.answer("no-exp", () => Promise.resolve({ active: true }));
  let asked = false;
  await cache.answer("no-exp", () => {
    asked = true;
    return Promise.resolve({ active: true });
  });
  assert.ok(asked);
});
