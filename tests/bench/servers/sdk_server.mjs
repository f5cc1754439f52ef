/**
 * The `echo` server built with the official TypeScript SDK 1.32.2 (McpServer
 * and StdioServerTransport), the same file on Deno and on Node 20.
 *
 * On Deno the SDK comes through deno.json's import map; on Node from the
 * node_modules that run.ts installs beside this file
 * (`npm install --no-save --prefix tests/bench/servers @modelcontextprotocol/sdk@1.32.2 zod@4.6.7`).
 *
 * Run: `deno run tests/bench/servers/sdk_server.mjs` or `node tests/bench/servers/sdk_server.mjs`
 *
 * @module
 */

import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

// "zod" is a bare name only Node resolves (deno.json does not map it), so the specifier is picked
// at run time; the version is the one deno.lock resolves for the SDK, so both runtimes match.
const zodSpecifier = "Deno" in globalThis ? "npm:zod@4.6.7" : "zod";
const { z } = await import(zodSpecifier);

const server = new McpServer({ name: "sdk", version: "1.0.0" });
server.registerTool(
  "echo",
  { description: "Returns its text", inputSchema: { text: z.string() } },
  ({ text }) => ({ content: [{ type: "text", text }] }),
);
await server.connect(new StdioServerTransport());
