/**
 * The fixture server the official MCP conformance suite expects: every tool,
 * resource, template and prompt its scenarios call, with the capabilities
 * they check. Served over Streamable HTTP (`--port N`, on 127.0.0.1) or over
 * stdio (`--stdio`), so one fixture exercises both transports.
 *
 * Run: `deno task conformance` (starts it and runs the suite).
 *
 * @module
 */

import { parseArgs } from "node:util";
import {
  createServer,
  defineTool,
  type RequestContext,
  serveHttp,
  type Server,
  serveStdio,
} from "../mod.ts";
import { addModernFixtures } from "./conformance_modern.ts";
import { addSkillFixtures } from "./conformance_skills.ts";

/** A 1×1 PNG. */
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==";
/** Eight samples of silence as an 8-bit mono WAV. */
const WAV = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";

const NO_ARGS = { type: "object", properties: {} } as const;

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });

async function reconnect(ctx: RequestContext): Promise<string> {
  // Release the POST stream first: the client must resume with Last-Event-ID to get this result.
  ctx.closeStream();
  await sleep(200, ctx.signal);
  return "Reconnection test completed: the result arrived after the stream was closed";
}

/**
 * Builds the conformance fixture.
 *
 * @example
 * ```ts
 * import { createConformanceServer } from "./conformance.ts";
 * const server = createConformanceServer();
 * ```
 */
export function createConformanceServer(): Server {
  const server = createServer({
    name: "warden-conformance",
    version: "0.1.0",
    description: "Warden's fixture for the MCP conformance suite",
    tools: [
      defineTool({
        name: "test_simple_text",
        description: "Returns a simple text response",
        inputSchema: NO_ARGS,
        handler: () => "This is a simple text response for testing.",
      }),
      defineTool({
        name: "test_image_content",
        description: "Returns an image",
        inputSchema: NO_ARGS,
        handler: () => [{ type: "image", data: PNG, mimeType: "image/png" }],
      }),
      defineTool({
        name: "test_audio_content",
        description: "Returns audio",
        inputSchema: NO_ARGS,
        handler: () => [{ type: "audio", data: WAV, mimeType: "audio/wav" }],
      }),
      defineTool({
        name: "test_embedded_resource",
        description: "Returns an embedded resource",
        inputSchema: NO_ARGS,
        handler: () => [{
          type: "resource",
          resource: {
            uri: "test://embedded-resource",
            mimeType: "text/plain",
            text: "This is an embedded resource content.",
          },
        }],
      }),
      defineTool({
        name: "test_multiple_content_types",
        description: "Returns text, an image and a resource",
        inputSchema: NO_ARGS,
        handler: () => [
          { type: "text", text: "Multiple content types test:" },
          { type: "image", data: PNG, mimeType: "image/png" },
          {
            type: "resource",
            resource: {
              uri: "test://mixed-content-resource",
              mimeType: "application/json",
              text: JSON.stringify({ test: "data", value: 123 }),
            },
          },
        ],
      }),
      defineTool({
        name: "test_tool_with_logging",
        description: "Logs three messages while it runs",
        inputSchema: NO_ARGS,
        handler: async (_args, ctx) => {
          ctx.log("info", "Tool execution started");
          await sleep(50, ctx.signal);
          ctx.log("info", "Tool processing data");
          await sleep(50, ctx.signal);
          ctx.log("info", "Tool execution completed");
          return "Logging test completed";
        },
      }),
      defineTool({
        name: "test_tool_with_progress",
        description: "Reports progress 0, 50, 100",
        inputSchema: NO_ARGS,
        handler: async (_args, ctx) => {
          for (const done of [0, 50, 100]) {
            ctx.progress(done, 100, `${done}% done`);
            if (done < 100) await sleep(50, ctx.signal);
          }
          return "Progress test completed";
        },
      }),
      defineTool({
        name: "test_error_handling",
        description: "Always fails",
        inputSchema: NO_ARGS,
        handler: () => {
          throw new Error("This tool intentionally returns an error for testing");
        },
      }),
      defineTool({
        name: "test_sampling",
        description: "Asks the client's model to answer a prompt",
        inputSchema: {
          type: "object",
          properties: { prompt: { type: "string", description: "What to ask" } },
          required: ["prompt"],
        },
        handler: async ({ prompt }, ctx) => {
          const answer = await ctx.sample({
            messages: [{ role: "user", content: { type: "text", text: prompt } }],
            maxTokens: 100,
          });
          const text = answer.content.type === "text"
            ? answer.content.text
            : `[${answer.content.type}]`;
          return `LLM response: ${text}`;
        },
      }),
      defineTool({
        name: "test_elicitation",
        description: "Asks the user for their information",
        inputSchema: {
          type: "object",
          properties: { message: { type: "string", description: "What to ask" } },
          required: ["message"],
        },
        handler: async ({ message }, ctx) => {
          const answer = await ctx.elicit(message, {
            type: "object",
            properties: {
              username: { type: "string", description: "User's response" },
              email: { type: "string", description: "User's email address" },
            },
            required: ["username", "email"],
          });
          const content = answer.action === "accept" ? JSON.stringify(answer.content) : "none";
          return `User response: action=${answer.action}, content=${content}`;
        },
      }),
      defineTool({
        name: "test_elicitation_sep1034_defaults",
        description: "Asks for a form whose fields all have defaults",
        inputSchema: NO_ARGS,
        handler: async (_args, ctx) => {
          const answer = await ctx.elicit("Please review your details", {
            type: "object",
            properties: {
              name: { type: "string", default: "John Doe" },
              age: { type: "integer", default: 30 },
              score: { type: "number", default: 95.5 },
              status: {
                type: "string",
                enum: ["active", "inactive", "pending"],
                default: "active",
              },
              verified: { type: "boolean", default: true },
            },
          });
          const content = answer.action === "accept" ? JSON.stringify(answer.content) : "none";
          return `Elicitation completed: action=${answer.action}, content=${content}`;
        },
      }),
      defineTool({
        name: "test_elicitation_sep1330_enums",
        description: "Asks for a form with every kind of enum field",
        inputSchema: NO_ARGS,
        handler: async (_args, ctx) => {
          const answer = await ctx.elicit("Please choose", {
            type: "object",
            properties: {
              untitledSingle: { type: "string", enum: ["option1", "option2", "option3"] },
              titledSingle: {
                type: "string",
                oneOf: [
                  { const: "value1", title: "First Option" },
                  { const: "value2", title: "Second Option" },
                  { const: "value3", title: "Third Option" },
                ],
              },
              legacyEnum: {
                type: "string",
                enum: ["opt1", "opt2", "opt3"],
                enumNames: ["Option One", "Option Two", "Option Three"],
              },
              untitledMulti: {
                type: "array",
                items: { type: "string", enum: ["option1", "option2", "option3"] },
              },
              titledMulti: {
                type: "array",
                items: {
                  anyOf: [
                    { const: "value1", title: "First Choice" },
                    { const: "value2", title: "Second Choice" },
                    { const: "value3", title: "Third Choice" },
                  ],
                },
              },
            },
          });
          const content = answer.action === "accept" ? JSON.stringify(answer.content) : "none";
          return `Elicitation completed: action=${answer.action}, content=${content}`;
        },
      }),
      defineTool({
        name: "json_schema_2020_12_tool",
        description: "Tool with JSON Schema 2020-12 features",
        inputSchema: {
          $schema: "https://json-schema.org/draft/2020-12/schema",
          type: "object",
          $defs: {
            address: {
              $anchor: "addressDef",
              type: "object",
              properties: { street: { type: "string" }, city: { type: "string" } },
            },
          },
          properties: {
            name: { type: "string" },
            address: { $ref: "#/$defs/address" },
            contactMethod: { type: "string", enum: ["phone", "email"] },
            phone: { type: "string" },
            email: { type: "string" },
          },
          allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
          if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
          then: { required: ["phone"] },
          else: { required: ["email"] },
          additionalProperties: false,
        },
        handler: (args) => `Received: ${JSON.stringify(args)}`,
      }),
      defineTool({
        name: "test_reconnection",
        description: "Closes its stream before answering, so the client must resume",
        inputSchema: NO_ARGS,
        handler: (_args, ctx) => reconnect(ctx),
      }),
    ],
    resources: [
      {
        uri: "test://static-text",
        name: "static-text",
        description: "A static text resource",
        mimeType: "text/plain",
        read: () => "This is the content of the static text resource.",
      },
      {
        uri: "test://static-binary",
        name: "static-binary",
        description: "A static binary resource (a PNG)",
        mimeType: "image/png",
        read: () => Uint8Array.from(atob(PNG), (c) => c.charCodeAt(0)),
      },
      {
        uri: "test://watched-resource",
        name: "watched-resource",
        description: "A resource clients may subscribe to",
        mimeType: "text/plain",
        read: () => "Watched resource content",
      },
    ],
    resourceTemplates: [{
      uriTemplate: "test://template/{id}/data",
      name: "template-data",
      description: "Data for any id",
      mimeType: "application/json",
      complete: { id: (prefix) => ["123", "456", "789"].filter((id) => id.startsWith(prefix)) },
      read: ({ id }) => ({ id, templateTest: true, data: `Data for ID: ${id}` }),
    }],
    prompts: [
      {
        name: "test_simple_prompt",
        description: "A prompt without arguments",
        get: () => "This is a simple prompt for testing.",
      },
      {
        name: "test_prompt_with_arguments",
        description: "A prompt with two required arguments",
        arguments: [
          {
            name: "arg1",
            description: "First argument",
            required: true,
            complete: (prefix: string) =>
              ["test", "testValue1", "other"].filter((v) => v.startsWith(prefix)),
          },
          { name: "arg2", description: "Second argument", required: true },
        ],
        get: (args: Record<string, string | undefined>) =>
          `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'`,
      },
      {
        name: "test_prompt_with_embedded_resource",
        description: "A prompt that embeds a resource",
        arguments: [{ name: "resourceUri", description: "The resource to embed", required: true }],
        get: (args: Record<string, string | undefined>) => [
          {
            role: "user",
            content: {
              type: "resource",
              resource: {
                uri: args.resourceUri ?? "test://example-resource",
                mimeType: "text/plain",
                text: "Embedded resource content for testing.",
              },
            },
          },
          {
            role: "user",
            content: { type: "text", text: "Please process the embedded resource above." },
          },
        ],
      },
      {
        name: "test_prompt_with_image",
        description: "A prompt with an image",
        get: () => [
          { role: "user", content: { type: "image", data: PNG, mimeType: "image/png" } },
          { role: "user", content: { type: "text", text: "Please analyze the image above." } },
        ],
      },
    ],
  });
  addModernFixtures(server);
  return server;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { port: { type: "string" }, stdio: { type: "boolean" } },
    strict: true,
  });
  const server = createConformanceServer();
  // In memory: the fixture skills need no permission.
  await addSkillFixtures(server);
  if (values.stdio === true) {
    console.error("warden-conformance: ready on stdio");
    await serveStdio(server);
  } else {
    const port = Number(values.port ?? "3000");
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      console.error(`warden-conformance: --port needs a port number, got ${values.port}`);
      Deno.exit(2);
    }
    const listener = await serveHttp(server, { port });
    console.error(`warden-conformance: ready on ${listener.url}`);
  }
}
