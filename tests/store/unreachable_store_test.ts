/**
 * A permission error is never an outage: `isPermissionError()` over the
 * shapes Deno and its Node layer give one, and a Redis store that meets
 * one stops retrying and refuses every call with it; a server on a store
 * that never connected still closes at once.
 */

import assert from "node:assert/strict";
import { createServer } from "../../mod.ts";
import { describeUrl, isPermissionError } from "../../src/store/outage.ts";
import { RedisStore, StoreUnavailableError } from "../../store.ts";

Deno.test("isPermissionError() tells a refused permission from a transient failure", () => {
  const rewrapped = new Error(
    'Requires net access to "127.0.0.1:6379", run again with --allow-net',
  );
  const named = new Error("denied");
  named.name = "NotCapable";
  const cases: [unknown, boolean][] = [
    [new Deno.errors.NotCapable("no"), true],
    [new Deno.errors.PermissionDenied("no"), true],
    [rewrapped, true],
    [named, true],
    [new Error("connect ECONNREFUSED 127.0.0.1:6379"), false],
    [new Error("Socket closed unexpectedly"), false],
    ["Requires net access", false],
    [undefined, false],
  ];
  for (const [error, expected] of cases) {
    assert.equal(isPermissionError(error), expected, String(error));
  }
});

Deno.test({
  name: "a RedisStore refused the network fails ready() at once, logs nothing, and refuses calls",
  permissions: { net: false, read: true, env: true },
  fn: async () => {
    const logged: string[] = [];
    const store = new RedisStore("redis://127.0.0.1:6399/0", { log: (m) => logged.push(m) });
    const started = Date.now();
    const failure = await store.ready(10_000).catch((error: unknown) => error);
    assert.ok(failure instanceof StoreUnavailableError, String(failure));
    assert.match(failure.message, /Requires net access.*not retried/);
    assert.ok(Date.now() - started < 5000, "a permission error is not waited out");
    // Later calls fail with the same reason; nothing reconnects, nothing is reported as an outage.
    await assert.rejects(store.get("k"), /not retried/);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(logged, []);
    await store.close();
  },
});

Deno.test("server.close() with a Redis store that never connected ends at once and leaves nothing running", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  const logged: string[] = [];
  const store = new RedisStore(`redis://127.0.0.1:${port}/0`, { log: (m) => logged.push(m) });
  const server = createServer({ name: "dead-store", version: "1.0.0", store, log: () => {} });
  // Long enough for the task runner and the change bus to be stuck subscribing.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const started = Date.now();
  await server.close();
  assert.ok(Date.now() - started < 2000, `close took ${Date.now() - started} ms`);
  assert.match(logged.join("\n"), /ECONNREFUSED/);
  // The test's sanitizers fail it if a socket or a reconnect timer is left behind.
  await new Promise((resolve) => setTimeout(resolve, 300));
});

Deno.test("describeUrl() hides the whole user information, an '@' in the password included", () => {
  // A URL parser takes the last '@' of the authority as its end, so a password may hold one.
  const cases: [string, string][] = [
    ["redis://:s3cr@t@127.0.0.1:6379/0", "redis://***@127.0.0.1:6379/0"],
    ["rediss://user:a@b@c@cache.example.com:6380/1", "rediss://***@cache.example.com:6380/1"],
    ["redis://user:pw@127.0.0.1:6379/0", "redis://***@127.0.0.1:6379/0"],
    ["redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/0"],
    ["redis://127.0.0.1:6379/0?x=a@b", "redis://127.0.0.1:6379/0?x=a@b"],
  ];
  for (const [url, shown] of cases) {
    assert.equal(new URL(url).hostname.includes("@"), false, url);
    assert.equal(describeUrl(url), shown, url);
  }
});
