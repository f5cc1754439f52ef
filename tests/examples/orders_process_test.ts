/**
 * The order-desk example as a real child process: `deno run examples/orders.ts`
 * with no permission flags, spoken to over its stdin and stdout pipes.
 */

import assert from "node:assert/strict";
import { errorOf, isRecord, resultOf, within } from "../_helpers/helpers.ts";
import { spawnServer } from "../_helpers/subprocess.ts";

function listOf(result: Record<string, unknown>, key: string): Record<string, unknown>[] {
  const list = result[key];
  assert.ok(Array.isArray(list), `result.${key} is not a list: ${JSON.stringify(result)}`);
  return list.filter(isRecord);
}

function onlyText(result: Record<string, unknown>): unknown {
  const content = listOf(result, "content");
  assert.equal(content.length, 1, JSON.stringify(result));
  assert.equal(content[0]?.type, "text");
  return content[0]?.text;
}

Deno.test("examples/orders.ts serves a client over real pipes with no permission flags", async () => {
  const example = spawnServer(["run", "examples/orders.ts"]);
  try {
    const init = resultOf(
      await example.call("initialize", {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "subprocess-test", version: "1.0.0" },
      }),
    );
    assert.equal(init.protocolVersion, "2025-06-18");
    assert.deepEqual(init.serverInfo, {
      name: "order-desk",
      version: "0.1.0",
      title: "Order desk",
    });
    assert.deepEqual(init.capabilities, {
      logging: {},
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      completions: {},
      // The order board; no skills: without --allow-read the desk publishes none.
      extensions: { "io.modelcontextprotocol/ui": {} },
    });
    await example.send({ jsonrpc: "2.0", method: "notifications/initialized" });

    const tools = listOf(resultOf(await example.call("tools/list")), "tools");
    assert.deepEqual(tools.map((tool) => tool.name).sort(), [
      "add",
      "cancel_order",
      "export_orders",
      "get_order",
      "report",
    ]);
    const cancel = tools.find((tool) => tool.name === "cancel_order");
    assert.ok(isRecord(cancel?.annotations));
    assert.equal(cancel.annotations.destructiveHint, true);

    const found = resultOf(
      await example.call("tools/call", { name: "get_order", arguments: { order_id: "ORD-1" } }),
    );
    assert.notEqual(found.isError, true);
    const order = onlyText(found);
    assert.equal(typeof order, "string");
    assert.deepEqual(JSON.parse(String(order)), {
      id: "ORD-1",
      customer: "Ada",
      items: [{ sku: "LAMP-2", quantity: 1 }],
      status: "open",
    });

    const missing = resultOf(
      await example.call("tools/call", { name: "get_order", arguments: { order_id: "ORD-9" } }),
    );
    assert.equal(missing.isError, true);
    assert.equal(onlyText(missing), "no order named 'ORD-9'");

    const bogus = await example.call("tools/call", {
      name: "get_order",
      arguments: { order_id: "bogus" },
    });
    assert.equal(errorOf(bogus).code, -32602);

    const sum = resultOf(
      await example.call("tools/call", { name: "add", arguments: { a: 2, b: 3 } }),
    );
    assert.deepEqual(sum.structuredContent, { sum: 5 });
    assert.notEqual(sum.isError, true);

    const resources = listOf(resultOf(await example.call("resources/list")), "resources");
    assert.deepEqual(resources.map((resource) => resource.uri).sort(), [
      "orders://ORD-1",
      "orders://ORD-2",
      "orders://readme",
      "ui://order-desk/board",
    ]);

    const read = resultOf(await example.call("resources/read", { uri: "orders://ORD-1" }));
    const [contents, ...more] = listOf(read, "contents");
    assert.deepEqual(more, []);
    assert.equal(contents?.uri, "orders://ORD-1");
    assert.equal(contents?.mimeType, "application/json");
    assert.equal(JSON.parse(String(contents?.text)).customer, "Ada");

    const noArgument = await example.call("prompts/get", { name: "summarize_order" });
    assert.equal(errorOf(noArgument).code, -32602);
    const prompt = resultOf(
      await example.call("prompts/get", {
        name: "summarize_order",
        arguments: { order_id: "ORD-1" },
      }),
    );
    const messages = listOf(prompt, "messages");
    assert.equal(messages.length, 1);
    assert.equal(messages[0]?.role, "user");
    const content = messages[0]?.content;
    assert.ok(isRecord(content) && content.type === "text" && typeof content.text === "string");
    assert.match(content.text, /ORD-1/);

    // EOF on stdin is the end of the session: the process exits on its own, successfully.
    await example.closeInput();
    const status = await within(example.status, 5_000, "the example to exit after EOF");
    assert.equal(status.code, 0);
    await within(example.pipesDone(), 5_000, "the pipes to end");

    assert.equal(example.stdout.length, example.requests(), "one reply per request, no more");
    for (const line of example.stdout) {
      const reply: unknown = JSON.parse(line);
      assert.ok(isRecord(reply), `not a JSON-RPC object: ${line}`);
      assert.equal(reply.jsonrpc, "2.0", line);
      assert.ok(typeof reply.id === "number", line);
      assert.ok(("result" in reply) !== ("error" in reply), line);
    }
    const stderr = example.stderr.filter((line) => line.trim() !== "");
    assert.equal(
      stderr.filter((line) => line.includes("ready")).length,
      1,
      `expected one "ready" line on stderr, got: ${JSON.stringify(stderr)}`,
    );
  } finally {
    await example.cleanUp();
  }
});
