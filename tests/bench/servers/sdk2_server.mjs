/**
 * The `echo` server built with the official TypeScript SDK v2
 * (`@modelcontextprotocol/server` 2.4.0: McpServer from a factory), over
 * stdio with its `serveStdio`, or over HTTP with `createMcpHandler` (its
 * stateless legacy fallback for 2025-era requests, the 2026-07-28 era for
 * requests that carry it) on `Deno.serve`, printing `listening PORT`.
 *
 * On Deno the packages come as `npm:` specifiers; on Node (stdio only) from
 * the node_modules that run.ts installs beside this file.
 *
 * Run: `deno run -A tests/bench/servers/sdk2_server.mjs [--http]` or
 * `node tests/bench/servers/sdk2_server.mjs`
 *
 * @module
 */

const onDeno = "Deno" in globalThis;
const args = onDeno ? globalThis.Deno.args : process.argv.slice(2);
// Bare names only Node resolves here (deno.json does not map them), so the specifiers are picked
// at run time; the versions are the ones run.ts installs for Node.
const { z } = await import(onDeno ? "npm:zod@4.6.7" : "zod");
const { McpServer, createMcpHandler } = await import(
  onDeno ? "npm:@modelcontextprotocol/server@2.4.0" : "@modelcontextprotocol/server"
);

function factory() {
  const server = new McpServer({ name: "sdk2", version: "1.0.0" });
  server.registerTool(
    "echo",
    { description: "Returns its text", inputSchema: z.object({ text: z.string() }) },
    ({ text }) => ({ content: [{ type: "text", text }] }),
  );
  return server;
}

if (args.includes("--http")) {
  const handler = createMcpHandler(factory);
  const listener = globalThis.Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => handler.fetch(request),
  );
  console.log(`listening ${listener.addr.port}`);
} else {
  const { serveStdio } = await import(
    onDeno ? "npm:@modelcontextprotocol/server@2.4.0/stdio" : "@modelcontextprotocol/server/stdio"
  );
  serveStdio(factory);
}
