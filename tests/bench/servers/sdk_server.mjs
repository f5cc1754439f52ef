/**
 * The `echo` server built with the official TypeScript SDK 1.32.2 (McpServer
 * and StdioServerTransport), the same file on Deno and on Node 20.
 *
 * On Deno the SDK and zod come by full `npm:` specifier (locked in
 * tests/deno.lock: run it with `--lock=tests/deno.lock`); on Node from the
 * node_modules that run.ts installs beside this file
 * (`npm install --no-save --prefix tests/bench/servers @modelcontextprotocol/sdk@1.32.2 zod@4.6.7`).
 *
 * Run: `deno run --lock=tests/deno.lock tests/bench/servers/sdk_server.mjs` or
 * `node tests/bench/servers/sdk_server.mjs`
 *
 * @module
 */

// Node resolves only bare names and Deno only `npm:` ones outside an import map (the root deno.json
// maps none, so the library's users never download the SDK), so each specifier is picked at run
// time; the versions are the ones tests/deno.lock resolves, so both runtimes run the same code.
const npm = "Deno" in globalThis ? (name, version) => `npm:${name}@${version}` : (name) => name;
const sdk = npm("@modelcontextprotocol/sdk", "1.32.2");
const { McpServer } = await import(`${sdk}/server/mcp.js`);
const { StdioServerTransport } = await import(`${sdk}/server/stdio.js`);
const { z } = await import(npm("zod", "4.6.7"));

const server = new McpServer({ name: "sdk", version: "1.0.0" });
server.registerTool(
  "echo",
  { description: "Returns its text", inputSchema: { text: z.string() } },
  ({ text }) => ({ content: [{ type: "text", text }] }),
);
await server.connect(new StdioServerTransport());
