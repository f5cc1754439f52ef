/**
 * Interoperability of issue 5's features with the official TypeScript SDK
 * client: logging, progress, completion, templates, subscriptions and
 * elicitation against `deno run examples/orders.ts` over stdio, and sampling
 * (which the example does not use) against an in-process Warden server over
 * Warden's memory pair, adapted to the SDK's transport interface.
 */

import assert from "node:assert/strict";
import { createServer, defineTool, type Server, type Transport } from "../../mod.ts";
import { createMemoryPair } from "../../testing.ts";
import { createOrderDesk } from "../../examples/orders.ts";
import { isRecord, within } from "../_helpers/helpers.ts";
import {
  Client,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  LoggingMessageNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  type SdkTransport,
  stdioOrderDesk,
} from "../_helpers/sdk.ts";

/** The text of a tool result's only block. */
function textOf(result: unknown): string {
  const blocks = isRecord(result) && Array.isArray(result.content) ? result.content : [];
  const [block] = blocks;
  assert.equal(blocks.length, 1);
  assert.ok(isRecord(block) && block.type === "text" && typeof block.text === "string");
  return block.text;
}

/**
 * Carries an SDK client's messages over one end of Warden's memory pair:
 * Warden's ends are Web Streams of JSON text, the SDK wants callbacks and
 * parsed messages.
 */
class MemoryPairTransport implements SdkTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #end: Transport;
  #writer: WritableStreamDefaultWriter<string> | undefined;
  #reading: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(end: Transport) {
    this.#end = end;
  }

  start(): Promise<void> {
    if (this.#writer !== undefined) return Promise.reject(new Error("Already started"));
    this.#writer = this.#end.writable.getWriter();
    this.#reading = this.#read();
    return Promise.resolve();
  }

  async #read(): Promise<void> {
    try {
      for await (const frame of this.#end.readable) {
        let parsed;
        try {
          parsed = JSONRPCMessageSchema.safeParse(JSON.parse(frame));
        } catch (error) {
          this.onerror?.(error instanceof Error ? error : new Error(String(error)));
          continue;
        }
        if (parsed.success) this.onmessage?.(parsed.data);
        else this.onerror?.(new Error(`Not a JSON-RPC message: ${frame}`));
      }
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    } finally {
      this.onclose?.();
    }
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#writer === undefined) throw new Error("Cannot send: the transport is not started");
    await this.#writer.write(JSON.stringify(message));
  }

  /** Ends the client's side; resolves once the server has ended its side too. */
  async close(): Promise<void> {
    if (this.#writer !== undefined && !this.#closed) {
      this.#closed = true;
      await this.#writer.close();
    }
    await this.#reading;
  }
}

/** Connects an SDK client to an in-process Warden server; `end()` closes both. */
async function connectInProcess(
  server: Server,
  client: Client,
): Promise<{ end: () => Promise<void> }> {
  const [clientEnd, serverEnd] = createMemoryPair();
  const served = server.connect(serverEnd);
  await within(client.connect(new MemoryPairTransport(clientEnd)), 5000, "connect in-process");
  return {
    end: async () => {
      await client.close();
      await served;
    },
  };
}

Deno.test("the SDK client logs, tracks progress, completes, subscribes and confirms with examples/orders.ts", async () => {
  const { transport, stderr } = stdioOrderDesk();
  const client = new Client(
    { name: "warden-features-interop", version: "1.0.0" },
    { capabilities: { elicitation: {} } },
  );
  const logs: unknown[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    logs.push(notification.params);
  });
  const updated = Promise.withResolvers<string>();
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
    updated.resolve(notification.params.uri);
  });
  const elicitations: unknown[] = [];
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    elicitations.push(request.params);
    return { action: "accept", content: { confirm: true } };
  });
  try {
    await within(client.connect(transport), 15_000, "the SDK client to connect");
    const capabilities = client.getServerCapabilities();
    assert.deepEqual(capabilities?.logging, {});
    assert.deepEqual(capabilities?.completions, {});
    assert.deepEqual(capabilities?.resources, { subscribe: true, listChanged: true });

    // Logging: nothing below the level the client set, then the report's two info messages.
    await client.setLoggingLevel("warning");
    await client.callTool({ name: "report", arguments: {} });
    assert.deepEqual(logs, []);
    await client.setLoggingLevel("info");
    const progress: unknown[] = [];
    const report = await client.callTool({ name: "report", arguments: {} }, undefined, {
      onprogress: (step) => progress.push(step),
    });
    assert.equal(textOf(report), "open: 1\nshipped: 1");
    assert.deepEqual(logs, [
      { level: "info", logger: "report", data: { event: "report started", orders: 2 } },
      {
        level: "info",
        logger: "report",
        data: { event: "report finished", counts: { open: 1, shipped: 1 } },
      },
    ]);
    assert.deepEqual(progress, [
      { progress: 1, total: 2, message: "Counted ORD-1" },
      { progress: 2, total: 2, message: "Counted ORD-2" },
    ]);

    // Completion of the template's variable and the prompt's argument.
    const ids = await client.complete({
      ref: { type: "ref/resource", uri: "orders://{id}" },
      argument: { name: "id", value: "ORD-" },
    });
    assert.deepEqual(ids.completion, { values: ["ORD-1", "ORD-2"], total: 2, hasMore: false });
    const promptIds = await client.complete({
      ref: { type: "ref/prompt", name: "summarize_order" },
      argument: { name: "order_id", value: "ORD-2" },
    });
    assert.deepEqual(promptIds.completion.values, ["ORD-2"]);

    const { resourceTemplates } = await client.listResourceTemplates();
    assert.deepEqual(resourceTemplates.map((t) => t.uriTemplate), ["orders://{id}"]);

    // Subscribe, cancel (the user confirms through elicitation), hear about the change.
    assert.deepEqual(await client.subscribeResource({ uri: "orders://ORD-1" }), {});
    const cancelled = await client.callTool({
      name: "cancel_order",
      arguments: { order_id: "ORD-1" },
    });
    assert.equal(textOf(cancelled), "Cancelled ORD-1");
    assert.equal(elicitations.length, 1);
    const [asked] = elicitations;
    assert.ok(isRecord(asked));
    assert.match(String(asked.message), /Cancel order ORD-1\?/);
    assert.deepEqual(asked.requestedSchema, {
      type: "object",
      properties: { confirm: { type: "boolean", title: "Yes, cancel ORD-1" } },
      required: ["confirm"],
    });
    assert.equal(await within(updated.promise, 5000, "resources/updated"), "orders://ORD-1");
    const { contents } = await client.readResource({ uri: "orders://ORD-1" });
    const [order] = contents;
    assert.ok(order !== undefined && "text" in order && typeof order.text === "string");
    assert.equal(JSON.parse(order.text).status, "cancelled");
  } finally {
    await client.close();
  }
  assert.equal(
    stderr.join("").split("\n").filter((line) => line.includes("ready")).length,
    1,
    `stderr: ${JSON.stringify(stderr.join(""))}`,
  );
});

Deno.test("the SDK client answers ctx.sample() from an in-process Warden server", async () => {
  const server = createServer({
    name: "sampler",
    version: "1.0.0",
    tools: [defineTool({
      name: "haiku",
      description: "Asks the client's model for a haiku",
      inputSchema: {
        type: "object",
        properties: { topic: { type: "string" } },
        required: ["topic"],
      },
      handler: async ({ topic }, ctx) => {
        const answer = await ctx.sample({
          messages: [{ role: "user", content: { type: "text", text: `A haiku about ${topic}` } }],
          maxTokens: 60,
          systemPrompt: "You write haiku",
        });
        return answer.content.type === "text"
          ? `${answer.model}: ${answer.content.text}`
          : answer.model;
      },
    })],
  });
  const client = new Client(
    { name: "warden-sampling-interop", version: "1.0.0" },
    { capabilities: { sampling: {} } },
  );
  const asked: unknown[] = [];
  client.setRequestHandler(CreateMessageRequestSchema, (request) => {
    asked.push(request.params);
    const [first] = request.params.messages;
    // Newer revisions allow a list of blocks here; Warden sends one.
    const content: unknown = first?.content;
    const text = isRecord(content) && typeof content.text === "string" ? content.text : "?";
    return {
      role: "assistant",
      content: { type: "text", text: `${text}: autumn moonlight` },
      model: "sdk-test-model",
      stopReason: "endTurn",
    };
  });
  const { end } = await connectInProcess(server, client);
  try {
    const result = await within(
      client.callTool({ name: "haiku", arguments: { topic: "tea" } }),
      5000,
      "the haiku tool",
    );
    assert.equal(textOf(result), "sdk-test-model: A haiku about tea: autumn moonlight");
    assert.deepEqual(asked, [{
      messages: [{ role: "user", content: { type: "text", text: "A haiku about tea" } }],
      maxTokens: 60,
      systemPrompt: "You write haiku",
    }]);
  } finally {
    await end();
  }
});

Deno.test("the SDK client reads orders://ORD-1 through the template once the concrete resource is gone", async () => {
  const server = createOrderDesk();
  const client = new Client({ name: "warden-template-interop", version: "1.0.0" });
  const listChanged = Promise.withResolvers<void>();
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
    listChanged.resolve();
  });
  const { end } = await connectInProcess(server, client);
  try {
    const read = async () => {
      const { contents } = await client.readResource({ uri: "orders://ORD-1" });
      assert.equal(contents.length, 1);
      const [order] = contents;
      assert.ok(order !== undefined && "text" in order && typeof order.text === "string");
      assert.equal(order.uri, "orders://ORD-1");
      assert.equal(order.mimeType, "application/json");
      return JSON.parse(order.text);
    };
    const concrete = await read();
    assert.equal(server.remove("resource", "orders://ORD-1"), true);
    await within(listChanged.promise, 5000, "resources/list_changed");
    const { resources } = await client.listResources();
    assert.equal(resources.some((resource) => resource.uri === "orders://ORD-1"), false);
    assert.deepEqual(await read(), concrete);
    assert.equal(concrete.customer, "Ada");
  } finally {
    await end();
  }
});
