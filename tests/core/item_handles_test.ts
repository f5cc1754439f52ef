import assert from "node:assert/strict";
import { createServer, type ItemHandle } from "../../mod.ts";
import { connectPeer, EMPTY, textOf } from "../_helpers/peer.ts";
import { resultOf } from "../_helpers/helpers.ts";

function names(reply: Record<string, unknown>, list: string, key = "name"): unknown[] {
  return (resultOf(reply)[list] as Record<string, unknown>[]).map((item) => item[key]);
}

Deno.test("server.tool() returns a handle to update, disable, enable and remove the tool, each change announced", async () => {
  const server = createServer({ name: "desk", version: "1.0.0" });
  const ping = server.tool({
    name: "ping",
    description: "Answers pong",
    inputSchema: EMPTY,
    handler: () => "pong",
  });
  await using peer = await connectPeer(server);
  const changes = () => peer.drain("notifications/tools/list_changed").length;

  ping.update({ description: "Answers pong, quickly", handler: () => "PONG" });
  await peer.settle();
  assert.equal(changes(), 1);
  const listed = resultOf(await peer.request("tools/list")).tools as Record<string, unknown>[];
  assert.equal(listed[0]?.description, "Answers pong, quickly");
  assert.equal(textOf(await peer.call("ping")), "PONG");

  ping.disable();
  await peer.settle();
  assert.equal(changes(), 1);
  assert.equal(ping.enabled, false);
  assert.deepEqual(names(await peer.request("tools/list"), "tools"), []);
  // A disabled tool is refused exactly like one that does not exist.
  const refused = await peer.call("ping");
  assert.equal((refused.error as { code: number }).code, -32601);

  ping.disable(); // no change, no notification
  ping.enable();
  await peer.settle();
  assert.equal(changes(), 1);
  assert.equal(textOf(await peer.call("ping")), "PONG");

  assert.equal(ping.remove(), true);
  assert.equal(ping.remove(), false);
  await peer.settle();
  assert.equal(changes(), 1);
  assert.equal(ping.registered, false);
  assert.throws(() => ping.enable(), /Cannot change tool 'ping': it was removed/);
  assert.throws(
    () => ping.update({ description: "x" }),
    /Cannot update tool 'ping': it was removed/,
  );
  // The name is free again.
  server.tool({ name: "ping", description: "New", inputSchema: EMPTY, handler: () => "new" });
  assert.equal(textOf(await peer.call("ping")), "new");
});

Deno.test("a handle's update() is validated like a registration and cannot change the key", () => {
  const server = createServer({ name: "desk", version: "1.0.0" });
  const tool = server.tool({
    name: "ping",
    description: "Answers pong",
    inputSchema: EMPTY,
    handler: () => "pong",
  });
  assert.throws(() => tool.update({ name: "pong" }), /its key cannot change/);
  assert.throws(
    // deno-lint-ignore no-explicit-any
    () => tool.update({ inputSchema: { type: "array" } as any }),
    /inputSchema must be a JSON Schema with type "object"/,
  );
  // A failed update leaves the tool as it was.
  assert.equal(tool.enabled, true);
});

Deno.test("resources, templates and prompts return handles too, each announcing on its own list", async () => {
  const server = createServer({ name: "desk", version: "1.0.0" });
  const handles: [ItemHandle<unknown>, string][] = [
    [server.resource({ uri: "memo://a", name: "a", read: () => "a" }), "resources"],
    [
      server.resourceTemplate({ uriTemplate: "memo://{id}", name: "memo", read: () => "m" }),
      "resources",
    ],
    [server.prompt({ name: "hello", description: "Greets", get: () => "hi" }), "prompts"],
  ];
  await using peer = await connectPeer(server);
  for (const [handle, list] of handles) {
    handle.disable();
    await peer.settle();
    assert.equal(peer.drain(`notifications/${list}/list_changed`).length, 1, handle.key);
    handle.enable();
    assert.equal(handle.remove(), true);
    await peer.settle();
    assert.equal(peer.drain(`notifications/${list}/list_changed`).length, 2, handle.key);
  }
  assert.deepEqual(names(await peer.request("resources/list"), "resources", "uri"), []);
  assert.deepEqual(names(await peer.request("prompts/list"), "prompts"), []);
});
