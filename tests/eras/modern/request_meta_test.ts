/**
 * Both eras on one stream (stdio framing over the memory pair): modern
 * requests before and after an `initialize`, legacy calls between them, and
 * the per-request `_meta` rules of revision 2026-07-28.
 */

import assert from "node:assert/strict";
import { definePrompt, defineTool } from "../../../mod.ts";
import {
  LEGACY_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSIONS,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "../../../src/core/lifecycle.ts";
import {
  chattyTool,
  echoTool,
  errorOf,
  isRecord,
  MODERN,
  modernMeta,
  modernRequest,
  notification,
  request,
  resultOf,
} from "../../_helpers/helpers.ts";
import {
  connectPeer,
  EMPTY,
  type Message,
  type Peer,
  testServer,
  textOf,
} from "../../_helpers/peer.ts";

const SERVER_INFO = "io.modelcontextprotocol/serverInfo";
const NAME_FORM = {
  type: "object",
  properties: { name: { type: "string" } },
  required: ["name"],
} as const;

/** A server whose tools ask the client, log at three levels and report progress. */
function eraServer() {
  const server = testServer({
    tools: [
      echoTool(),
      defineTool({
        name: "ask_name",
        description: "Asks the user for a name",
        inputSchema: EMPTY,
        handler: async (_args, ctx) => {
          const answer = await ctx.elicit("Your name?", NAME_FORM);
          return answer.action === "accept" ? `Hello, ${answer.content.name}` : "declined";
        },
      }),
      chattyTool(),
    ],
    resources: [{ uri: "test://hello", name: "hello", read: () => "hello" }],
    resourceTemplates: [{
      uriTemplate: "test://items/{id}",
      name: "items",
      read: ({ id }) => `item ${id}`,
    }],
    prompts: [definePrompt({
      name: "greet",
      description: "Greets",
      arguments: [{ name: "who", complete: () => ["world", "wide"] }],
      get: ({ who }) => `Say hello to ${who ?? "nobody"}`,
    })],
  });
  return server;
}

/** Sends `message` and takes the reply with its id. */
async function ask(peer: Peer, message: { id: number | string }): Promise<Message> {
  await peer.send(message);
  return peer.take(
    (reply) => reply.id === message.id && !("method" in reply),
    `reply ${String(message.id)}`,
  );
}

/** Checks the envelope every modern result carries. */
function assertModernResult(reply: Message, what: string): Record<string, unknown> {
  const result = resultOf(reply);
  assert.ok(typeof result.resultType === "string", `${what}: resultType`);
  assert.ok(isRecord(result._meta), `${what}: _meta`);
  assert.deepEqual(result._meta[SERVER_INFO], { name: "features", version: "1.0.0" }, what);
  return result;
}

function assertLegacyResult(reply: Message, what: string): Record<string, unknown> {
  const result = resultOf(reply);
  assert.equal(result.resultType, undefined, `${what}: no resultType in the legacy era`);
  assert.ok(
    !isRecord(result._meta) || result._meta[SERVER_INFO] === undefined,
    `${what}: no serverInfo _meta in the legacy era`,
  );
  return result;
}

Deno.test("one stream serves a modern request before initialize, legacy calls after it, and modern ones between", async () => {
  const server = eraServer();
  const peer = await connectPeer(server, { initialize: false });

  const before = assertModernResult(await ask(peer, modernRequest(1, "tools/list")), "before");
  assert.deepEqual((before.tools as Message[]).map((t) => t.name), ["ask_name", "chatty", "echo"]);
  assert.equal(before.resultType, "complete");

  const init = resultOf(
    await ask(
      peer,
      request(2, "initialize", {
        protocolVersion: "2025-06-18",
        capabilities: { elicitation: {} },
        clientInfo: { name: "legacy", version: "1" },
      }),
    ),
  );
  assert.equal(init.protocolVersion, "2025-06-18");
  await peer.send(notification("notifications/initialized"));

  const legacyCall = await ask(
    peer,
    request(3, "tools/call", { name: "echo", arguments: { text: "a" } }),
  );
  assertLegacyResult(legacyCall, "legacy call");
  assert.equal(textOf(legacyCall), "a");

  const modernCall = await ask(
    peer,
    modernRequest(4, "tools/call", { name: "echo", arguments: { text: "b" } }),
  );
  assertModernResult(modernCall, "modern call");
  assert.equal(textOf(modernCall), "b");

  // The session declared elicitation at initialize; the modern request did not: nothing carries over.
  const refused = errorOf(await ask(peer, modernRequest(5, "tools/call", { name: "ask_name" })));
  assert.equal(refused.code, -32021);
  assert.deepEqual(refused.data, { requiredCapabilities: { elicitation: {} } });

  // The same tool in the legacy session sends a real request and finishes with the answer.
  await peer.send(request(6, "tools/call", { name: "ask_name", arguments: {} }));
  const elicit = await peer.next("elicitation/create");
  assert.equal(typeof elicit.id, "number");
  await peer.answer(elicit, { action: "accept", content: { name: "Ada" } });
  const legacyAsk = await peer.take((m) => m.id === 6 && !("method" in m), "reply 6");
  assert.equal(textOf(legacyAsk), "Hello, Ada");
  assertLegacyResult(legacyAsk, "legacy ask");

  // Modern again, with the capability on this request: an input request, never a server request.
  const modernAsk = assertModernResult(
    await ask(peer, modernRequest(7, "tools/call", { name: "ask_name" }, { elicitation: {} })),
    "modern ask",
  );
  assert.equal(modernAsk.resultType, "input_required");
  assert.equal(peer.drain("elicitation/create").length, 0);

  // And a legacy list is still the legacy shape.
  assertLegacyResult(await ask(peer, request(8, "tools/list")), "legacy list");
  await peer.close();
  await server.close();
});

Deno.test("a modern request declares its capabilities and log level for itself only", async () => {
  const server = eraServer();
  const peer = await connectPeer(server, { initialize: false });
  const withAll = request(1, "tools/call", {
    name: "chatty",
    _meta: modernMeta({ elicitation: {} }, { "io.modelcontextprotocol/logLevel": "debug" }),
  });
  await ask(peer, withAll);
  assert.equal(peer.drain("notifications/message").length, 3);
  // The next request says neither: no log lines, no elicitation.
  await ask(peer, modernRequest(2, "tools/call", { name: "chatty" }));
  assert.equal(peer.drain("notifications/message").length, 0);
  const refused = errorOf(await ask(peer, modernRequest(3, "tools/call", { name: "ask_name" })));
  assert.equal(refused.code, -32021);
  await peer.close();
  await server.close();
});

Deno.test("a modern request with an unknown revision gets -32022 with supported and requested, echoing its id", async () => {
  const server = eraServer();
  const peer = await connectPeer(server, { initialize: false });
  for (const [id, version] of [[0, "2099-01-01"], ["abc", "2025-06-18"], [7, ""]] as const) {
    const message = request(id, "tools/list", {
      _meta: {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    });
    const reply = await ask(peer, message);
    assert.equal(reply.id, id);
    const error = errorOf(reply);
    assert.equal(error.code, -32022, version);
    assert.ok(isRecord(error.data));
    assert.deepEqual(error.data.supported, [...MODERN_PROTOCOL_VERSIONS]);
    assert.equal(error.data.requested, version);
  }
  await peer.close();
  await server.close();
});

Deno.test("a modern request without clientCapabilities or with a malformed version is -32602, echoing its id", async () => {
  const server = eraServer();
  const peer = await connectPeer(server, { initialize: false });
  const bad: Record<string, unknown>[] = [
    { "io.modelcontextprotocol/protocolVersion": MODERN },
    {
      "io.modelcontextprotocol/protocolVersion": MODERN,
      "io.modelcontextprotocol/clientCapabilities": null,
    },
    {
      "io.modelcontextprotocol/protocolVersion": MODERN,
      "io.modelcontextprotocol/clientCapabilities": [],
    },
    {
      "io.modelcontextprotocol/protocolVersion": null,
      "io.modelcontextprotocol/clientCapabilities": {},
    },
    {
      "io.modelcontextprotocol/protocolVersion": 20260728,
      "io.modelcontextprotocol/clientCapabilities": {},
    },
    modernMeta({}, { "io.modelcontextprotocol/logLevel": "loud" }),
  ];
  let id = 100;
  for (const meta of bad) {
    for (const method of ["tools/list", "tools/call", "server/discover", "subscriptions/listen"]) {
      const message = request(++id, method, { name: "echo", notifications: {}, _meta: meta });
      const reply = await ask(peer, message);
      assert.equal(reply.id, id);
      assert.equal(errorOf(reply).code, -32602, `${method} ${JSON.stringify(meta)}`);
    }
  }
  await peer.close();
  await server.close();
});

Deno.test("every modern result carries resultType and the server's identity", async () => {
  const server = eraServer();
  const peer = await connectPeer(server, { initialize: false });
  const calls: [string, Record<string, unknown>][] = [
    ["server/discover", {}],
    ["tools/list", {}],
    ["resources/list", {}],
    ["resources/templates/list", {}],
    ["prompts/list", {}],
    ["tools/call", { name: "echo", arguments: { text: "x" } }],
    ["tools/call", { name: "ask_name" }],
    ["resources/read", { uri: "test://hello" }],
    ["resources/read", { uri: "test://items/7" }],
    ["prompts/get", { name: "greet", arguments: { who: "you" } }],
    ["completion/complete", {
      ref: { type: "ref/prompt", name: "greet" },
      argument: { name: "who", value: "w" },
    }],
  ];
  let id = 0;
  for (const [method, params] of calls) {
    const result = assertModernResult(
      await ask(peer, modernRequest(++id, method, params, { elicitation: {} })),
      method,
    );
    assert.ok(["complete", "input_required"].includes(String(result.resultType)), method);
  }
  await peer.close();
  await server.close();
});

Deno.test("server/discover answers in both eras: with _meta, and without before and after initialize", async () => {
  const server = eraServer();
  const peer = await connectPeer(server, { initialize: false });
  const check = (result: Record<string, unknown>, what: string) => {
    assert.deepEqual(result.supportedVersions, [...SUPPORTED_PROTOCOL_VERSIONS], what);
    assert.ok(isRecord(result.capabilities), what);
    assert.ok(isRecord(result.capabilities.tools), what);
    assert.equal(result.resultType, "complete", what);
    assert.ok(isRecord(result._meta) && isRecord(result._meta[SERVER_INFO]), what);
  };
  assert.deepEqual(
    [...SUPPORTED_PROTOCOL_VERSIONS],
    [...MODERN_PROTOCOL_VERSIONS, ...LEGACY_PROTOCOL_VERSIONS],
  );
  const modern = resultOf(await ask(peer, modernRequest(1, "server/discover")));
  check(modern, "modern");
  assert.equal(modern.cacheScope, "public");
  assert.equal(typeof modern.ttlMs, "number");
  check(resultOf(await ask(peer, request(2, "server/discover"))), "legacy before initialize");
  resultOf(
    await ask(
      peer,
      request(3, "initialize", {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "c", version: "1" },
      }),
    ),
  );
  check(resultOf(await ask(peer, request(4, "server/discover"))), "legacy after initialize");
  check(resultOf(await ask(peer, modernRequest(5, "server/discover"))), "modern after initialize");
  await peer.close();
  await server.close();
});

Deno.test("methods revision 2026-07-28 removed are -32601 with modern _meta, and still work without", async () => {
  const server = eraServer();
  const peer = await connectPeer(server, { initialize: false });
  const removed: [string, Record<string, unknown>][] = [
    ["ping", {}],
    ["logging/setLevel", { level: "debug" }],
    ["resources/subscribe", { uri: "test://hello" }],
    ["resources/unsubscribe", { uri: "test://hello" }],
    ["initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "c", version: "1" },
    }],
    ["no/such/method", {}],
  ];
  let id = 0;
  for (const [method, params] of removed) {
    const reply = await ask(peer, modernRequest(++id, method, params));
    assert.equal(reply.id, id);
    assert.equal(errorOf(reply).code, -32601, method);
  }
  // The modern initialize opened nothing: a legacy one still does, and ping works there.
  const init = resultOf(await ask(peer, request(++id, "initialize", removed[4]?.[1])));
  assert.equal(init.protocolVersion, "2025-06-18");
  for (const [method, params] of removed.slice(0, 4)) {
    resultOf(await ask(peer, request(++id, method, params)));
  }
  await peer.close();
  await server.close();
});

Deno.test("a legacy-only server treats modern _meta as nothing special: no discover, no modern envelope", async () => {
  const server = testServer({
    eras: ["legacy"],
    tools: [echoTool()],
  });
  const peer = await connectPeer(server, { initialize: false });
  const discover = errorOf(await ask(peer, modernRequest(1, "server/discover")));
  assert.ok(![-32020, -32021, -32022].includes(discover.code), String(discover.code));
  const unknownVersion = await ask(
    peer,
    request(2, "tools/list", {
      _meta: { "io.modelcontextprotocol/protocolVersion": "2099-01-01" },
    }),
  );
  assertLegacyResult(unknownVersion, "an unknown version is not looked at");
  assertLegacyResult(await ask(peer, modernRequest(3, "tools/list")), "modern _meta ignored");
  await peer.close();
  await server.close();
});
