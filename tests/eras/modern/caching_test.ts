/**
 * Cache hints of revision 2026-07-28: `ttlMs` from the server and the
 * items, `cacheScope` private whenever a result can differ by caller, and
 * nothing cacheable about a multi round-trip retry.
 */

import assert from "node:assert/strict";
import { defineTool, type ServerOptions } from "../../../mod.ts";
import { accessPolicy, rateLimit } from "../../../guardrails.ts";
import { oauthResourceServer } from "../../../http.ts";
import { modernRequest, resultOf } from "../../_helpers/helpers.ts";
import { post } from "../../_helpers/http_helpers.ts";
import { connectPeer, EMPTY, type Message, testServer } from "../../_helpers/peer.ts";

const LISTS = ["tools/list", "resources/list", "resources/templates/list", "prompts/list"];

function items(): Partial<ServerOptions> {
  return {
    tools: [
      defineTool({ name: "a", description: "a", inputSchema: EMPTY, handler: () => "a" }),
      defineTool({
        name: "b",
        description: "b",
        inputSchema: EMPTY,
        cache: { ttlMs: 1_000 },
        handler: () => "b",
      }),
    ],
    resources: [
      { uri: "test://plain", name: "plain", read: () => "plain" },
      {
        uri: "test://shared",
        name: "shared",
        cache: { ttlMs: 300, scope: "public" },
        read: () => "shared",
      },
      {
        uri: "test://asks",
        name: "asks",
        cache: { ttlMs: 9_000, scope: "public" },
        read: async (ctx) => (await ctx.roots()).map((root) => root.uri).join(","),
      },
    ],
    resourceTemplates: [{
      uriTemplate: "test://items/{id}",
      name: "items",
      cache: { ttlMs: 700, scope: "public" },
      read: ({ id }) => `item ${id}`,
    }],
    prompts: [{ name: "p", description: "p", cache: { ttlMs: 250 }, get: () => "p" }],
  };
}

/** The hints of each modern request, in order. */
async function hintsOf(
  options: Partial<ServerOptions>,
  calls: readonly [string, Record<string, unknown>?, Record<string, unknown>?][],
): Promise<Record<string, unknown>[]> {
  const server = testServer({ ...items(), ...options });
  const peer = await connectPeer(server, { initialize: false });
  const hints: Record<string, unknown>[] = [];
  let id = 0;
  for (const [method, params, capabilities] of calls) {
    await peer.send(modernRequest(++id, method, params ?? {}, capabilities ?? {}));
    const reply = await peer.take((m: Message) => m.id === id, `reply ${id}`);
    const result = resultOf(reply);
    hints.push({ ttlMs: result.ttlMs, cacheScope: result.cacheScope });
  }
  await peer.close();
  await server.close();
  return hints;
}

Deno.test("lists and discover are public with no caller-dependent guardrail, with the server's TTL or a shorter item's", async () => {
  const calls = [["server/discover"], ...LISTS.map((method) => [method])] as [string][];
  for (const [options, ttl] of [[{}, 60_000], [{ cache: { ttlMs: 5_000 } }, 5_000]] as const) {
    const hints = await hintsOf(options, calls);
    assert.deepEqual(hints, [
      { ttlMs: ttl, cacheScope: "public" },
      { ttlMs: 1_000, cacheScope: "public" }, // tool b
      { ttlMs: 300, cacheScope: "public" }, // test://shared
      { ttlMs: 700, cacheScope: "public" }, // the template
      { ttlMs: 250, cacheScope: "public" }, // prompt p
    ]);
  }
  // A server TTL below every item's wins.
  const short = await hintsOf({ cache: { ttlMs: 10 } }, calls);
  assert.ok(short.every((hint) => hint.ttlMs === 10 && hint.cacheScope === "public"));
  // A rate limiter hides nothing: still public.
  const limited = await hintsOf({
    guardrails: [rateLimit({ rules: [{ scope: "global", capacity: 99, refillPerSecond: 1 }] })],
  }, calls);
  assert.ok(limited.every((hint) => hint.cacheScope === "public"));
});

Deno.test("each page of a list takes the minimum TTL of its own items, one scope for all pages", async () => {
  const server = testServer({ ...items(), pageSize: 1, cache: { ttlMs: 5_000 } });
  const peer = await connectPeer(server, { initialize: false });
  const pages: Record<string, unknown>[] = [];
  let cursor: unknown;
  let id = 0;
  do {
    await peer.send(modernRequest(++id, "tools/list", cursor === undefined ? {} : { cursor }));
    const result = resultOf(await peer.take((m) => m.id === id, "page"));
    pages.push({ ttlMs: result.ttlMs, cacheScope: result.cacheScope });
    cursor = result.nextCursor;
  } while (cursor !== undefined);
  assert.deepEqual(pages, [
    { ttlMs: 5_000, cacheScope: "public" },
    { ttlMs: 1_000, cacheScope: "public" },
  ]);
  await peer.close();
  await server.close();
});

Deno.test("an access policy, authentication or OAuth makes every list and read private", async () => {
  const reads: [string, Record<string, unknown>][] = [
    ["resources/read", { uri: "test://shared" }],
    ["resources/read", { uri: "test://items/1" }],
  ];
  const calls = [...LISTS.map((method) => [method] as [string]), ...reads];
  for (
    const options of [
      { guardrails: [accessPolicy({ principals: { bob: { tools: { deny: ["a"] } } } })] },
      { http: { authenticate: () => "someone" } },
      {
        http: {
          auth: oauthResourceServer({
            issuer: "https://auth.example.com",
            audience: "https://desk.example.com/mcp",
          }),
        },
      },
    ]
  ) {
    const hints = await hintsOf(options, calls);
    assert.ok(hints.every((hint) => hint.cacheScope === "private"), JSON.stringify(hints));
    // The TTLs stay the items'.
    assert.deepEqual(hints.map((hint) => hint.ttlMs), [1_000, 300, 700, 250, 300, 700]);
  }
  // server/discover does not depend on the caller.
  const [discover] = await hintsOf({ http: { authenticate: () => "x" } }, [["server/discover"]]);
  assert.equal(discover?.cacheScope, "public");
});

Deno.test("authentication over HTTP makes lists private too", async () => {
  const server = testServer({
    ...items(),
    http: { authenticate: () => "someone", keepAliveMs: 0 },
  });
  const response = await post(server, modernRequest(1, "tools/list"), {
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/list",
  });
  assert.equal(response.status, 200);
  const result = resultOf(await response.json());
  assert.equal(result.cacheScope, "private");
  await server.close();
});

Deno.test("resources/read uses the item's TTL and scope, else the server's read TTL and private", async () => {
  const reads = [
    ["resources/read", { uri: "test://plain" }],
    ["resources/read", { uri: "test://shared" }],
    ["resources/read", { uri: "test://items/9" }],
  ] as [string, Record<string, unknown>][];
  assert.deepEqual(await hintsOf({}, reads), [
    { ttlMs: 0, cacheScope: "private" },
    { ttlMs: 300, cacheScope: "public" },
    { ttlMs: 700, cacheScope: "public" },
  ]);
  assert.deepEqual((await hintsOf({ cache: { readTtlMs: 2_000 } }, reads))[0], {
    ttlMs: 2_000,
    cacheScope: "private",
  });
});

Deno.test("retries are never cacheable and input_required results carry no hints", async () => {
  const server = testServer(items());
  const peer = await connectPeer(server, { initialize: false });
  const roots = { roots: {} };
  const read = (id: number, extra: Record<string, unknown>) =>
    peer.send(modernRequest(id, "resources/read", { uri: "test://asks", ...extra }, roots));
  const take = (id: number) => peer.take((m) => m.id === id, `reply ${id}`).then(resultOf);

  await read(1, {});
  const first = await take(1);
  assert.equal(first.resultType, "input_required");
  assert.equal(first.ttlMs, undefined);
  assert.equal(first.cacheScope, undefined);
  const [key] = Object.keys(first.inputRequests as Message);
  assert.ok(key !== undefined);

  const answer = { [key]: { roots: [{ uri: "file:///r" }] } };
  // With the state, with answers alone, and with unrelated answers to a read that asks nothing.
  await read(2, { inputResponses: answer, requestState: first.requestState });
  const done = await take(2);
  assert.equal(done.resultType, "complete");
  assert.deepEqual([done.ttlMs, done.cacheScope], [0, "private"]);
  await read(3, { inputResponses: answer });
  const answered = await take(3);
  assert.equal(answered.contents !== undefined, true);
  assert.deepEqual([answered.ttlMs, answered.cacheScope], [0, "private"]);
  await peer.send(
    modernRequest(4, "resources/read", { uri: "test://shared", inputResponses: {} }, roots),
  );
  const shared = await take(4);
  assert.deepEqual([shared.ttlMs, shared.cacheScope], [0, "private"]);
  await peer.close();
  await server.close();
});
