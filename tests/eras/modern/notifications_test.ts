/**
 * Notifications in revision 2026-07-28 on one stream (stdio framing over the
 * memory pair): log messages only at the level a request asks for, progress
 * with its token, and legacy notifications that mean nothing per request.
 */

import assert from "node:assert/strict";
import { defineTool } from "../../../mod.ts";
import {
  chattyTool,
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

/** A server whose tool logs at debug, warning and error, and reports progress. */
function eraServer() {
  return testServer({
    tools: [
      chattyTool(),
    ],
  });
}

/** Sends `message` and takes the reply with its id. */
async function ask(peer: Peer, message: { id: number | string }): Promise<Message> {
  await peer.send(message);
  return peer.take(
    (reply) => reply.id === message.id && !("method" in reply),
    `reply ${String(message.id)}`,
  );
}

Deno.test("modern log messages only go out when the request names a level, and honour it", async () => {
  const server = eraServer();
  const peer = await connectPeer(server, { initialize: false });
  const levels: [string | undefined, string[]][] = [
    [undefined, []],
    ["debug", ["debug", "warning", "error"]],
    ["warning", ["warning", "error"]],
    ["error", ["error"]],
    ["emergency", []],
  ];
  let id = 0;
  for (const [level, expected] of levels) {
    const extra = level === undefined ? {} : { "io.modelcontextprotocol/logLevel": level };
    const message = request(++id, "tools/call", { name: "chatty", _meta: modernMeta({}, extra) });
    const reply = await ask(peer, message);
    assert.equal(textOf(reply), "chatted");
    // Notifications of a request are written before its reply on the one stream.
    const got = peer.drain("notifications/message").map((m) => (m.params as Message).level);
    assert.deepEqual(got, expected, String(level));
  }
  // A legacy session's default level does not leak into modern requests either.
  resultOf(
    await ask(
      peer,
      request(++id, "initialize", {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "c", version: "1" },
      }),
    ),
  );
  resultOf(await ask(peer, request(++id, "logging/setLevel", { level: "debug" })));
  await ask(peer, modernRequest(++id, "tools/call", { name: "chatty" }));
  assert.deepEqual(peer.drain("notifications/message"), []);
  await peer.close();
  await server.close();
});

Deno.test("modern progress notifications carry the request's token, and none go out without one", async () => {
  const server = eraServer();
  const peer = await connectPeer(server, { initialize: false });
  for (const token of ["tok-1", 0, 42]) {
    const message = request(String(token), "tools/call", {
      name: "chatty",
      _meta: modernMeta({}, { progressToken: token }),
    });
    await ask(peer, message);
    const progress = peer.drain("notifications/progress").map((m) => m.params as Message);
    assert.deepEqual(progress.map((p) => [p.progressToken, p.progress, p.total]), [
      [token, 1, 2],
      [token, 2, 2],
    ]);
  }
  await ask(peer, modernRequest("none", "tools/call", { name: "chatty" }));
  assert.deepEqual(peer.drain("notifications/progress"), []);
  await peer.close();
  await server.close();
});

Deno.test("a modern notifications/roots/list_changed is ignored; a legacy session's still reaches listeners", async () => {
  const server = eraServer();
  const seen: string[] = [];
  server.onRootsListChanged((session) => seen.push(session.client.protocolVersion));
  const peer = await connectPeer(server, { initialize: false });
  await peer.send(notification("notifications/roots/list_changed", { _meta: modernMeta() }));
  await ask(peer, modernRequest(1, "tools/list"));
  assert.deepEqual(seen, []);
  resultOf(
    await ask(
      peer,
      request(2, "initialize", {
        protocolVersion: "2025-06-18",
        capabilities: { roots: { listChanged: true } },
        clientInfo: { name: "c", version: "1" },
      }),
    ),
  );
  await peer.send(notification("notifications/roots/list_changed", { _meta: modernMeta() }));
  await peer.send(notification("notifications/roots/list_changed"));
  await ask(peer, request(3, "tools/list"));
  assert.deepEqual(seen, ["2025-06-18"]);
  await peer.close();
  await server.close();
});

Deno.test("a modern notifications/initialized opens no session: list changes go only to subscriptions", async () => {
  const server = eraServer();
  const peer = await connectPeer(server, { initialize: false });
  await peer.send(notification("notifications/initialized", { _meta: modernMeta() }));
  await ask(peer, modernRequest(1, "tools/list"));
  server.tool(
    defineTool({ name: "late", description: "late", inputSchema: EMPTY, handler: () => "" }),
  );
  await ask(peer, modernRequest(2, "tools/list"));
  assert.deepEqual(peer.drain("notifications/tools/list_changed"), []);
  await peer.close();
  await server.close();
});
