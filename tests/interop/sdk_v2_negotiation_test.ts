/**
 * Era negotiation of the official TypeScript SDK v2 client against Warden:
 * in its automatic mode it must settle on revision 2026-07-28 with a normal
 * server (no `initialize`) and fall back to `initialize` with an
 * `eras: ["legacy"]` one, over stdio and HTTP; pinned, it must refuse the
 * legacy-only server. Also: the client stays a test-only dependency.
 */

import assert from "node:assert/strict";
import { isRecord, within } from "../_helpers/helpers.ts";
import {
  AUTO,
  type Client,
  clientWith,
  CONFIRM,
  httpDesk,
  MODERN_REVISION,
  PINNED,
  SdkError,
  SdkErrorCode,
  stdioDesk,
  StreamableHTTPClientTransport,
} from "../_helpers/sdk_v2.ts";

/** Lists and calls through a connected client, the same in either era. */
async function listAndCall(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((tool) => tool.name), ["add", "cancel_ticket", "unlock_escalate"]);
  const sum = await client.callTool({ name: "add", arguments: { a: 20, b: 22 } });
  assert.deepEqual(sum.structuredContent, { sum: 42 });
}

Deno.test("SDK v2 in auto mode settles on 2026-07-28 with the desk over stdio, without initialize", async () => {
  const desk = stdioDesk();
  let received: string[][] = [];
  const { client } = clientWith(AUTO, CONFIRM);
  try {
    await within(client.connect(desk.transport), 20_000, "the SDK v2 client to connect");
    assert.equal(client.getProtocolEra(), "modern");
    assert.equal(client.getNegotiatedProtocolVersion(), MODERN_REVISION);
    await listAndCall(client);
  } finally {
    received = await desk.finish(client);
  }
  // The probe ran on a disposable sibling; the session child saw only modern requests.
  assert.deepEqual(received, [["server/discover"], ["tools/list", "tools/call"]]);
});

Deno.test("SDK v2 in auto mode falls back to initialize with a legacy-only desk over stdio", async () => {
  const desk = stdioDesk({ legacyOnly: true });
  let received: string[][] = [];
  const { client, asked } = clientWith(AUTO, CONFIRM);
  try {
    await within(client.connect(desk.transport), 20_000, "the SDK v2 client to connect");
    assert.equal(client.getProtocolEra(), "legacy");
    assert.equal(client.getNegotiatedProtocolVersion(), "2025-11-25");
    assert.equal(client.getDiscoverResult(), undefined);
    assert.deepEqual(client.getServerVersion(), { name: "sdk-v2-desk", version: "1.2.0" });
    await listAndCall(client);
    // The same handler asks through a real elicitation/create request in the legacy era.
    const cancelled = await client.callTool({
      name: "cancel_ticket",
      arguments: { ticket: "T-8" },
    });
    assert.deepEqual(cancelled.content, [{
      type: "text",
      text: "ticket T-8 cancelled: duplicate",
    }]);
    assert.equal(asked.length, 1);
  } finally {
    received = await desk.finish(client);
  }
  const [probe, session] = received;
  assert.deepEqual(probe, ["server/discover"]);
  assert.deepEqual(session, [
    "initialize",
    "notifications/initialized",
    "tools/list",
    "tools/call",
    "tools/call",
  ]);
});

Deno.test("SDK v2 in auto mode settles on 2026-07-28 with the desk over HTTP, without initialize", async () => {
  const http = httpDesk();
  const { client } = clientWith(AUTO, CONFIRM);
  try {
    await within(
      client.connect(new StreamableHTTPClientTransport(http.url)),
      10_000,
      "the SDK v2 client to connect",
    );
    assert.equal(client.getProtocolEra(), "modern");
    assert.equal(client.getNegotiatedProtocolVersion(), MODERN_REVISION);
    await listAndCall(client);
  } finally {
    await client.close();
    await http.stop();
  }
  assert.deepEqual(http.posts.map((post) => post.method), [
    "server/discover",
    "tools/list",
    "tools/call",
  ]);
});

Deno.test("SDK v2 in auto mode falls back to initialize with a legacy-only desk over HTTP", async () => {
  const http = httpDesk({ legacyOnly: true });
  const { client, asked } = clientWith(AUTO, CONFIRM);
  try {
    await within(
      client.connect(new StreamableHTTPClientTransport(http.url)),
      10_000,
      "the SDK v2 client to connect",
    );
    assert.equal(client.getProtocolEra(), "legacy");
    assert.equal(client.getNegotiatedProtocolVersion(), "2025-11-25");
    await listAndCall(client);
    const cancelled = await client.callTool({
      name: "cancel_ticket",
      arguments: { ticket: "T-9" },
    });
    assert.deepEqual(cancelled.content, [{
      type: "text",
      text: "ticket T-9 cancelled: duplicate",
    }]);
    assert.equal(asked.length, 1);
  } finally {
    await client.close();
    await http.stop();
  }
  const methods = http.posts.map((post) => post.method);
  assert.deepEqual(methods.slice(0, 3), [
    "server/discover",
    "initialize",
    "notifications/initialized",
  ]);
  const [probe, ...session] = http.posts;
  assert.equal(probe?.sessionId, null);
  // Everything after initialize rides the legacy session it created.
  for (const post of session.slice(1)) {
    assert.ok(post.sessionId !== null, `${post.method} in a session`);
  }
});

Deno.test("SDK v2 pinned to 2026-07-28 refuses a legacy-only desk with ERA_NEGOTIATION_FAILED", async (t) => {
  const expectEraFailure = (error: unknown): boolean => {
    assert.ok(error instanceof SdkError, `an SdkError, not ${error}`);
    assert.equal(error.code, SdkErrorCode.EraNegotiationFailed);
    assert.match(error.message, /pinned protocol version 2026-07-28/);
    return true;
  };
  await t.step("over stdio", async () => {
    const desk = stdioDesk({ legacyOnly: true });
    let received: string[][] = [];
    const { client } = clientWith(PINNED, CONFIRM);
    try {
      await assert.rejects(
        within(client.connect(desk.transport), 20_000, "connect"),
        expectEraFailure,
      );
    } finally {
      received = await desk.finish(client);
    }
    // Only the probe's sibling ran: the session child was never started.
    assert.deepEqual(received, [["server/discover"]]);
  });
  await t.step("over HTTP", async () => {
    const http = httpDesk({ legacyOnly: true });
    const { client } = clientWith(PINNED, CONFIRM);
    try {
      await assert.rejects(
        within(client.connect(new StreamableHTTPClientTransport(http.url)), 10_000, "connect"),
        expectEraFailure,
      );
    } finally {
      await client.close();
      await http.stop();
    }
    assert.deepEqual(http.posts.map((post) => post.method), ["server/discover"]);
  });
});

Deno.test("the SDK v2 client stays a test-only dependency: mod.ts never reaches it", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "mod.ts"],
    cwd: new URL("../..", import.meta.url),
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(output.success, new TextDecoder().decode(output.stderr));
  const graph: unknown = JSON.parse(new TextDecoder().decode(output.stdout));
  assert.ok(isRecord(graph) && Array.isArray(graph.modules), "deno info lists the modules");
  const specifiers = graph.modules.flatMap((module) =>
    isRecord(module) && typeof module.specifier === "string" ? [module.specifier] : []
  );
  assert.ok(specifiers.some((specifier) => specifier.endsWith("/src/server/create_server.ts")));
  // Static and dynamic imports both count: the library's whole graph, npm packages included.
  assert.deepEqual(
    specifiers.filter((specifier) => specifier.includes("@modelcontextprotocol")),
    [],
  );
  assert.deepEqual(specifiers.filter((specifier) => specifier.includes("/tests/")), []);
});
