/**
 * Interoperability with the official TypeScript SDK: its `Client` and
 * `StdioClientTransport` drive `deno run examples/orders.ts` as a real child
 * process, so the SDK's own schemas check every reply Warden sends.
 */

import assert from "node:assert/strict";
import { isRecord, within } from "../_helpers/helpers.ts";
import { Client, stdioOrderDesk } from "../_helpers/sdk.ts";

Deno.test("the official SDK client lists, calls, reads and gets from examples/orders.ts over stdio", async () => {
  const { transport, stderr } = stdioOrderDesk();
  const client = new Client({ name: "warden-interop-test", version: "1.0.0" });
  try {
    await within(client.connect(transport), 15_000, "the SDK client to connect");
    assert.deepEqual(client.getServerVersion(), {
      name: "order-desk",
      version: "0.1.0",
      title: "Order desk",
    });
    assert.match(client.getInstructions() ?? "", /ORD-1/);
    const capabilities = client.getServerCapabilities();
    assert.ok(capabilities?.tools !== undefined && capabilities.prompts !== undefined);

    // Listing first also makes the SDK compile each tool's outputSchema to check results against.
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), [
      "add",
      "cancel_order",
      "export_orders",
      "get_order",
      "report",
    ]);
    assert.equal(
      tools.find((tool) => tool.name === "cancel_order")?.annotations?.destructiveHint,
      true,
    );
    assert.deepEqual(tools.find((tool) => tool.name === "add")?.outputSchema?.required, ["sum"]);

    const sum = await client.callTool({ name: "add", arguments: { a: 2, b: 3 } });
    assert.deepEqual(sum.structuredContent, { sum: 5 });
    assert.notEqual(sum.isError, true);

    const order = await client.callTool({ name: "get_order", arguments: { order_id: "ORD-2" } });
    assert.notEqual(order.isError, true);
    const [block] = Array.isArray(order.content) ? order.content : [];
    assert.ok(isRecord(block) && block.type === "text" && typeof block.text === "string");
    assert.equal(JSON.parse(block.text).customer, "Grace");

    const missing = await client.callTool({ name: "get_order", arguments: { order_id: "ORD-9" } });
    assert.equal(missing.isError, true);
    assert.deepEqual(missing.content, [{ type: "text", text: "no order named 'ORD-9'" }]);

    const { resources } = await client.listResources();
    // The orders, the order board (MCP Apps) and the desk's skill files (SEP-2640).
    assert.deepEqual(resources.map((resource) => resource.uri).sort(), [
      "orders://ORD-1",
      "orders://ORD-2",
      "orders://readme",
      "skill://order-desk/SKILL.md",
      "skill://order-desk/references/STATUSES.md",
      "ui://order-desk/board",
    ]);
    const { contents } = await client.readResource({ uri: "orders://readme" });
    assert.equal(contents.length, 1);
    const [readme] = contents;
    assert.equal(readme?.mimeType, "text/markdown");
    assert.ok(readme !== undefined && "text" in readme && typeof readme.text === "string");
    assert.match(readme.text, /^# Order desk/);

    const prompt = await client.getPrompt({
      name: "summarize_order",
      arguments: { order_id: "ORD-2" },
    });
    assert.equal(prompt.messages.length, 1);
    const [message] = prompt.messages;
    assert.equal(message?.role, "user");
    assert.ok(message?.content.type === "text");
    assert.match(message.content.text, /ORD-2/);
  } finally {
    await client.close();
  }
  assert.equal(
    stderr.join("").split("\n").filter((line) => line.includes("ready")).length,
    1,
    `stderr: ${JSON.stringify(stderr.join(""))}`,
  );
});
