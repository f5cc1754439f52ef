/**
 * Refusals per era, as a table: the same guardrails and the same registry
 * answer a legacy session with the codes it always had, and a revision
 * 2026-07-28 request with codes outside the range that revision reserves.
 */

import assert from "node:assert/strict";
import { defineTool, type Server } from "../../mod.ts";
import { accessPolicy, rateLimit } from "../../guardrails.ts";
import { errorOf, isRecord, modernRequest, request, resultOf } from "../_helpers/helpers.ts";
import { connectPeer, EMPTY, type Message, type Peer, testServer } from "../_helpers/peer.ts";

type Era = "legacy" | "modern";
const ERAS: readonly Era[] = ["legacy", "modern"];

/** The three guarded methods, each on an item that exists. */
const GUARDED: readonly [string, Record<string, unknown>][] = [
  ["tools/call", { name: "open", arguments: {} }],
  ["resources/read", { uri: "test://open" }],
  ["prompts/get", { name: "open" }],
];

function items(): Parameters<typeof testServer>[0] {
  return {
    tools: ["open", "secret"].map((name) =>
      defineTool({ name, description: name, inputSchema: EMPTY, handler: () => name })
    ),
    resources: ["open", "secret"].map((name) => ({
      uri: `test://${name}`,
      name,
      read: () => name,
    })),
    prompts: ["open", "secret"].map((name) => ({ name, description: name, get: () => name })),
  };
}

let nextId = 1;

/** Sends `method` in `era` on `peer` (a legacy session that was initialized). */
async function callIn(
  peer: Peer,
  era: Era,
  method: string,
  params: Record<string, unknown>,
): Promise<Message> {
  const id = nextId++;
  await peer.send(
    era === "modern" ? modernRequest(id, method, params) : request(id, method, params),
  );
  return peer.take((reply) => reply.id === id && !("method" in reply), `reply ${id}`);
}

async function withPeer(
  server: Server,
  principal: string | undefined,
  run: (peer: Peer) => Promise<void>,
): Promise<void> {
  const peer = await connectPeer(server, principal === undefined ? {} : { principal });
  try {
    await run(peer);
  } finally {
    await peer.close();
  }
}

const DENIED: Record<Era, number> = { legacy: -32001, modern: -31001 };
const LIMITED: Record<Era, number> = { legacy: -32002, modern: -31002 };

Deno.test("access denied is -32001 in a legacy session and -31001 in the modern era, same message", async () => {
  const server = testServer({
    ...items(),
    guardrails: [accessPolicy({
      principals: {
        bob: {
          tools: { deny: ["open"] },
          resources: { deny: ["test://open"] },
          prompts: { deny: ["open"] },
        },
      },
    })],
  });
  await withPeer(server, "bob", async (peer) => {
    for (const [method, params] of GUARDED) {
      const messages = new Set<string>();
      for (const era of ERAS) {
        const error = errorOf(await callIn(peer, era, method, params));
        assert.equal(error.code, DENIED[era], `${era} ${method}`);
        assert.equal(error.data, undefined);
        messages.add(error.message);
      }
      assert.equal(messages.size, 1, `${method}: one message in both eras`);
    }
  });
  // Alice is not denied: the same calls succeed in both eras.
  await withPeer(server, "alice", async (peer) => {
    for (const [method, params] of GUARDED) {
      for (const era of ERAS) resultOf(await callIn(peer, era, method, params));
    }
  });
  await server.close();
});

Deno.test("rate limited is -32002 in a legacy session and -31002 in the modern era, with retry_after_seconds", async () => {
  for (const first of ERAS) {
    const server = testServer({
      ...items(),
      guardrails: [rateLimit({
        rules: [{
          scope: "tool",
          capacity: 1,
          refillPerSecond: 0.25,
          kinds: ["tool", "resource", "prompt"],
        }],
      }, { now: () => 1_000 })],
    });
    await withPeer(server, undefined, async (peer) => {
      for (const [method, params] of GUARDED) {
        // The first call, in either era, takes the token; both eras then see the empty bucket.
        resultOf(await callIn(peer, first, method, params));
        for (const era of ERAS) {
          const error = errorOf(await callIn(peer, era, method, params));
          assert.equal(error.code, LIMITED[era], `${era} ${method} after a ${first} call`);
          assert.deepEqual(error.data, { retry_after_seconds: 4 });
          assert.match(error.message, /^Rate limit exceeded: .*, retry in 4 s$/);
        }
      }
    });
    await server.close();
  }
});

Deno.test("unknown items: -32601 in a legacy session; -32602 in the modern era, with data.uri for resources", async () => {
  const server = testServer(items());
  await withPeer(server, undefined, async (peer) => {
    const unknown: [string, Record<string, unknown>][] = [
      ["tools/call", { name: "nope", arguments: {} }],
      ["resources/read", { uri: "test://nope" }],
      ["prompts/get", { name: "nope" }],
    ];
    for (const [method, params] of unknown) {
      assert.equal(errorOf(await callIn(peer, "legacy", method, params)).code, -32601, method);
      const modern = errorOf(await callIn(peer, "modern", method, params));
      assert.equal(modern.code, -32602, method);
      if (method === "resources/read") assert.deepEqual(modern.data, { uri: "test://nope" });
    }
  });
  await server.close();
});

Deno.test("no modern reply ever carries a code the revision reserves or forbids", async () => {
  const server = testServer({
    ...items(),
    guardrails: [
      accessPolicy({ tools: { deny: ["secret"] }, resources: { deny: ["test://secret"] } }),
      rateLimit({
        rules: [{ scope: "global", capacity: 2, refillPerSecond: 0.001, kinds: ["prompt"] }],
      }),
    ],
  });
  await withPeer(server, undefined, async (peer) => {
    const calls: [string, Record<string, unknown>][] = [
      ...GUARDED,
      ["tools/call", { name: "secret" }],
      ["resources/read", { uri: "test://secret" }],
      ["resources/read", { uri: "test://missing" }],
      ["prompts/get", { name: "open" }],
      ["prompts/get", { name: "open" }],
      ["tools/call", { name: 5 }],
      ["resources/read", {}],
    ];
    for (const [method, params] of calls) {
      const reply = await callIn(peer, "modern", method, params);
      if (!isRecord(reply.error)) continue;
      const code = Number(reply.error.code);
      assert.ok(code !== -32002 && code !== -32042, `${method}: ${code}`);
      assert.ok(
        code < -32099 || code > -32000 || [-32020, -32021, -32022].includes(code),
        `${code}`,
      );
    }
  });
  await server.close();
});

Deno.test("lists are filtered by the access policy in both eras", async () => {
  const server = testServer({
    ...items(),
    guardrails: [accessPolicy({
      tools: { deny: ["secret"] },
      resources: { deny: ["test://secret"] },
      prompts: { deny: ["secret"] },
      principals: { root: { tools: { allow: ["*"] } } },
    })],
  });
  const lists: [string, string, string][] = [
    ["tools/list", "tools", "name"],
    ["resources/list", "resources", "uri"],
    ["prompts/list", "prompts", "name"],
  ];
  for (const principal of [undefined, "root"]) {
    await withPeer(server, principal, async (peer) => {
      for (const [method, key, field] of lists) {
        for (const era of ERAS) {
          const listed = resultOf(await callIn(peer, era, method, {}))[key];
          assert.ok(Array.isArray(listed));
          const names = listed.map((item) => (item as Message)[field]);
          assert.ok(names.length === 1, `${era} ${method} for ${principal}: ${names}`);
          assert.match(String(names[0]), /open$/);
        }
      }
    });
  }
  await server.close();
});

Deno.test("completion/complete is refused with each era's codes too", async () => {
  const server = testServer({
    prompts: [{
      name: "secret",
      description: "secret",
      arguments: [{ name: "who", complete: () => ["x"] }],
      get: () => "secret",
    }],
    guardrails: [accessPolicy({ prompts: { deny: ["secret"] } })],
  });
  await withPeer(server, undefined, async (peer) => {
    const params = {
      ref: { type: "ref/prompt", name: "secret" },
      argument: { name: "who", value: "" },
    };
    for (const era of ERAS) {
      const error = errorOf(await callIn(peer, era, "completion/complete", params));
      assert.equal(error.code, DENIED[era], era);
    }
  });
  await server.close();
});
