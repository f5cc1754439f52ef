/**
 * Interoperability of the Streamable HTTP transport with the official
 * TypeScript SDK: its `Client` over `StreamableHTTPClientTransport` against
 * `serveHttp()` on a free loopback port, so the SDK's own schemas check every
 * reply, stream and header Warden sends.
 */

import assert from "node:assert/strict";
import { createServer, defineTool, serveHttp } from "../../mod.ts";
import { captureLog, within } from "../_helpers/helpers.ts";
import {
  Client,
  CreateMessageRequestSchema,
  LoggingMessageNotificationSchema,
  StreamableHTTPClientTransport,
} from "../_helpers/sdk.ts";

const NO_ARGS = { type: "object", properties: {} } as const;

function desk() {
  const { lines, log } = captureLog();
  const server = createServer({
    name: "http-desk",
    version: "2.0.0",
    log,
    tools: [
      defineTool({
        name: "work",
        description: "Logs and reports progress while it works",
        inputSchema: NO_ARGS,
        handler: async (_args, ctx) => {
          ctx.log("info", "starting");
          for (const step of [1, 2, 3]) {
            await new Promise((resolve) => setTimeout(resolve, 5));
            ctx.progress(step, 3, `step ${step}`);
          }
          ctx.log("notice", "finished");
          return "worked";
        },
      }),
      defineTool({
        name: "ask",
        description: "Asks the client's model a question",
        inputSchema: {
          type: "object",
          properties: { question: { type: "string" } },
          required: ["question"],
        },
        handler: async ({ question }, ctx) => {
          const answer = await ctx.sample({
            messages: [{ role: "user", content: { type: "text", text: question } }],
            maxTokens: 20,
          });
          return `the model said: ${answer.content.type === "text" ? answer.content.text : "?"}`;
        },
      }),
    ],
    resources: [{
      uri: "desk://readme",
      name: "readme",
      mimeType: "text/markdown",
      read: () => "# Desk\n",
    }],
    prompts: [{
      name: "greet",
      description: "Greets someone",
      arguments: [{ name: "who", required: true }],
      get: ({ who }) => `Say hello to ${who}`,
    }],
  });
  return { server, lines };
}

Deno.test("the official SDK client initializes, calls, samples, reads, gets and terminates over Streamable HTTP", async () => {
  const { server, lines } = desk();
  const listener = await serveHttp(server, { port: 0 });
  try {
    assert.match(listener.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = new Client(
      { name: "warden-http-interop", version: "1.0.0" },
      { capabilities: { sampling: {} } },
    );
    const logs: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      logs.push(notification.params);
    });
    const questions: unknown[] = [];
    client.setRequestHandler(CreateMessageRequestSchema, (request) => {
      questions.push(request.params.messages[0]?.content);
      return {
        role: "assistant",
        content: { type: "text", text: "forty-two" },
        model: "stub-model",
      };
    });
    const errors: unknown[] = [];
    const transport = new StreamableHTTPClientTransport(new URL(listener.url));
    transport.onerror = (error) => errors.push(error);
    await within(client.connect(transport), 10_000, "the SDK client to connect");
    try {
      assert.deepEqual(client.getServerVersion(), { name: "http-desk", version: "2.0.0" });
      assert.equal(transport.protocolVersion, "2025-11-25");
      assert.match(transport.sessionId ?? "", /^[\x21-\x7e]{32,}$/);

      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name).sort(), ["ask", "work"]);

      const progress: [number, number | undefined, string | undefined][] = [];
      const worked = await client.callTool({ name: "work", arguments: {} }, undefined, {
        onprogress: ({ progress: done, total, message }) => progress.push([done, total, message]),
      });
      assert.deepEqual(worked.content, [{ type: "text", text: "worked" }]);
      assert.deepEqual(progress, [[1, 3, "step 1"], [2, 3, "step 2"], [3, 3, "step 3"]]);
      assert.deepEqual(logs, [
        { level: "info", data: "starting" },
        { level: "notice", data: "finished" },
      ]);

      const asked = await client.callTool({ name: "ask", arguments: { question: "6 x 7?" } });
      assert.deepEqual(asked.content, [{ type: "text", text: "the model said: forty-two" }]);
      assert.deepEqual(questions, [{ type: "text", text: "6 x 7?" }]);

      const { contents } = await client.readResource({ uri: "desk://readme" });
      assert.deepEqual(contents, [{
        uri: "desk://readme",
        mimeType: "text/markdown",
        text: "# Desk\n",
      }]);

      const prompt = await client.getPrompt({ name: "greet", arguments: { who: "Ada" } });
      assert.deepEqual(prompt.messages, [{
        role: "user",
        content: { type: "text", text: "Say hello to Ada" },
      }]);

      const sessionId = transport.sessionId;
      assert.ok(sessionId !== undefined);
      await transport.terminateSession();
      assert.equal(transport.sessionId, undefined);
      // The session is gone on the server too.
      const after = await fetch(listener.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-session-id": sessionId,
          "mcp-protocol-version": "2025-11-25",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      });
      assert.equal(after.status, 404);
      await after.body?.cancel();
    } finally {
      await client.close();
    }
    assert.deepEqual(errors.filter((error) => !isAbort(error)), []);
    assert.deepEqual(lines, []);
  } finally {
    await listener.shutdown();
  }
});

/** The SDK reports its own stream ending on close() or on the session's end as an error. */
function isAbort(error: unknown): boolean {
  return error instanceof Error && /abort|SSE stream disconnected/i.test(error.message);
}
