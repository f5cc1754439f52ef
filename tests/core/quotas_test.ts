/**
 * The quota of calls in flight per principal: one principal at its bound is
 * refused (and audited), another is not, in both eras, over the in-memory
 * pair and over HTTP.
 */

import assert from "node:assert/strict";
import { createServer, defineTool, type Server } from "../../mod.ts";
import { type AuditEntry, auditLog, callbackAuditSink } from "../../guardrails.ts";
import { PrincipalCounts, resolveQuotas } from "../../src/core/quotas.ts";
import { captureLog, errorOf, modernMeta, request, resultOf } from "../_helpers/helpers.ts";
import { gate, jsonOf, modernPost, openSession } from "../_helpers/http_helpers.ts";
import { connectPeer, type Peer } from "../_helpers/peer.ts";

/** A server whose `hold` tool waits for the test, at most two calls in flight per principal. */
function holding(): {
  server: Server;
  audit: AuditEntry[];
  release: () => void;
  entered: (n: number) => Promise<void>;
} {
  const audit: AuditEntry[] = [];
  const held = gate();
  let inside = 0;
  const server = createServer({
    name: "quotas",
    version: "1.0.0",
    log: captureLog().log,
    quotas: { inflightCalls: 2 },
    http: { keepAliveMs: 0, authenticate: (r) => r.headers.get("x-user") ?? undefined },
    guardrails: [auditLog({ sink: callbackAuditSink((entry) => void audit.push(entry)) })],
    tools: [defineTool({
      name: "hold",
      description: "Waits for the test",
      inputSchema: { type: "object" },
      handler: async () => {
        inside++;
        await held.promise;
        return "done";
      },
    })],
  });
  const entered = async (n: number): Promise<void> => {
    for (let i = 0; inside < n; i++) {
      if (i > 200) throw new Error(`only ${inside} of ${n} calls reached the handler`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  return { server, audit, release: () => held.open(), entered };
}

const MODERN_CALL = { name: "hold", arguments: {}, _meta: modernMeta() };

/** What one era sends over the in-memory pair. */
const ERAS = [
  { era: "legacy", code: -32002, initialize: true, params: { name: "hold", arguments: {} } },
  { era: "modern", code: -31002, initialize: false, params: MODERN_CALL },
] as const;

for (const { era, code, initialize, params } of ERAS) {
  Deno.test(`in flight (${era}, in-memory): one principal at its quota is refused, another is served`, async () => {
    const { server, audit, release, entered } = holding();
    const alice: Peer = await connectPeer(server, { principal: "alice", initialize });
    const bob: Peer = await connectPeer(server, { principal: "bob", initialize });
    const first = [alice.request("tools/call", params), alice.request("tools/call", params)];
    await entered(2);
    const refused = errorOf(await alice.request("tools/call", params));
    assert.equal(refused.code, code);
    assert.deepEqual(refused.data, { quota: "inflightCalls", limit: 2 });
    assert.match(refused.message, /^Quota exceeded: at most 2 calls in flight per principal$/);
    // Bob holds nothing: his calls pass while Alice's two still hold.
    const bobs = [bob.request("tools/call", params), bob.request("tools/call", params)];
    release();
    for (const reply of [...first, ...bobs]) assert.equal(resultOf(await reply).isError, undefined);
    // Once hers ended, Alice is served again.
    assert.equal(resultOf(await alice.request("tools/call", params)).isError, undefined);
    const quota = audit.filter((entry) => entry.outcome === "quota_exceeded");
    assert.equal(quota.length, 1);
    // The audit records the code the client was sent, in each era.
    assert.equal(quota[0]?.error_code, code);
    assert.equal(quota[0]?.principal, "alice");
    assert.equal(quota[0]?.name, "hold");
    assert.equal(audit.filter((entry) => entry.outcome === "ok").length, 5);
    await alice.close();
    await bob.close();
    await server.close();
  });
}

Deno.test("in flight (modern, HTTP): one principal at its quota is refused, another is served", async () => {
  const { server, audit, release, entered } = holding();
  const body = request(1, "tools/call", MODERN_CALL);
  const as = (user: string) => modernPost(server, body, { "x-user": user });
  const first = [as("alice"), as("alice")];
  await entered(2);
  const refused = await as("alice");
  assert.equal(refused.status, 200);
  const error = errorOf(await jsonOf(refused));
  assert.equal(error.code, -31002);
  assert.deepEqual(error.data, { quota: "inflightCalls", limit: 2 });
  const bobs = [as("bob"), as("bob")];
  release();
  for (const response of [...first, ...bobs]) {
    const reply = await jsonOf(await response);
    assert.equal(resultOf(reply).isError, undefined);
  }
  assert.deepEqual(
    audit.filter((entry) => entry.outcome === "quota_exceeded").map((entry) => entry.principal),
    ["alice"],
  );
  await server.close();
});

Deno.test("in flight (legacy, HTTP sessions): the quota is the principal's, across its sessions", async () => {
  const { server, audit, release, entered } = holding();
  const aliceHeaders = { "x-user": "alice" };
  const one = await openSession(server, { headers: aliceHeaders });
  const two = await openSession(server, { headers: aliceHeaders });
  const bob = await openSession(server, { headers: { "x-user": "bob" } });
  const call = (id: number) => request(id, "tools/call", { name: "hold", arguments: {} });
  const first = [one.post(call(1)), two.post(call(1))];
  await entered(2);
  const refused = errorOf(await jsonOf(await two.post(call(2))));
  assert.equal(refused.code, -32002);
  assert.deepEqual(refused.data, { quota: "inflightCalls", limit: 2 });
  const bobs = bob.post(call(1));
  release();
  for (const response of [...first, bobs]) {
    const text = await (await response).text();
    assert.match(text, /"done"/);
  }
  assert.deepEqual(
    audit.filter((entry) => entry.outcome === "quota_exceeded").map((entry) => entry.principal),
    ["alice"],
  );
  await server.close();
});

Deno.test("PrincipalCounts keeps each principal to its limit and forgets one holding nothing", () => {
  const counts = new PrincipalCounts(2);
  assert.equal(counts.take("a"), true);
  assert.equal(counts.take("a"), true);
  assert.equal(counts.take("a"), false);
  assert.equal(counts.take(undefined), true);
  assert.equal(counts.take("b"), true);
  counts.release("a");
  assert.equal(counts.held("a"), 1);
  assert.equal(counts.take("a"), true);
  counts.release("a");
  counts.release("a");
  counts.release("a");
  assert.equal(counts.held("a"), 0);
});

Deno.test("PrincipalCounts keeps idle entries for reuse, but only up to a bound", () => {
  const counts = new PrincipalCounts(1);
  assert.equal(counts.take("holder"), true);
  for (let i = 0; i < 5000; i++) {
    assert.equal(counts.take(`p${i}`), true);
    counts.release(`p${i}`);
    assert.ok(counts.size <= 1026, `${counts.size} entries after ${i + 1} idle principals`);
  }
  assert.equal(counts.held("holder"), 1, "a principal holding something is never swept");
  assert.equal(counts.take("holder"), false);
  // One principal taking and giving back again and again keeps one entry.
  for (let i = 0; i < 100; i++) {
    assert.equal(counts.take("again"), true);
    counts.release("again");
  }
  assert.equal(counts.held("again"), 0);
  assert.equal(counts.take("again"), true);
  assert.equal(counts.take("again"), false, "its reused entry still counts to the limit");
});

Deno.test("createServer() refuses a quota that is not a positive integer, naming it", () => {
  assert.deepEqual(resolveQuotas(undefined), {
    tasks: 100,
    listenStreams: 16,
    inflightCalls: 64,
    requestStates: 1000,
  });
  for (const bad of [0, -1, 1.5, Number.NaN, "3"]) {
    assert.throws(
      () =>
        createServer({
          name: "q",
          version: "1",
          quotas: { listenStreams: bad as number },
        }),
      /quotas\.listenStreams must be a positive integer/,
    );
  }
});
