/**
 * The `echo` server built with the official TypeScript SDK 1.32.2 over
 * Streamable HTTP, stateless (a fresh McpServer and transport per request,
 * the SDK's documented idiom, with JSON responses), on 127.0.0.1 and a free
 * port printed as `listening PORT`: on Deno with `Deno.serve` and the
 * web-standard transport, on Node with `node:http` and the Node transport.
 *
 * Run: `deno run -A tests/bench/servers/sdk_http.mjs` or `node tests/bench/servers/sdk_http.mjs`
 *
 * @module
 */

const onDeno = "Deno" in globalThis;
// Node resolves only bare names and Deno only `npm:` ones outside an import map (the root deno.json
// maps none), so each specifier is picked at run time, at the versions tests/deno.lock resolves.
const sdk = onDeno ? "npm:@modelcontextprotocol/sdk@1.32.2" : "@modelcontextprotocol/sdk";
const { McpServer } = await import(`${sdk}/server/mcp.js`);
const { z } = await import(onDeno ? "npm:zod@4.6.7" : "zod");

function createEchoServer() {
  const server = new McpServer({ name: "sdk", version: "1.0.0" });
  server.registerTool(
    "echo",
    { description: "Returns its text", inputSchema: { text: z.string() } },
    ({ text }) => ({ content: [{ type: "text", text }] }),
  );
  return server;
}

if (onDeno) {
  const { WebStandardStreamableHTTPServerTransport } = await import(
    `${sdk}/server/webStandardStreamableHttp.js`
  );
  const listener = globalThis.Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const server = createEchoServer();
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      await server.connect(transport);
      const response = await transport.handleRequest(request);
      await server.close();
      return response;
    },
  );
  console.log(`listening ${listener.addr.port}`);
} else {
  const { createServer } = await import("node:http");
  const { StreamableHTTPServerTransport } = await import(`${sdk}/server/streamableHttp.js`);
  const listener = createServer(async (request, response) => {
    const chunks = [];
    for await (const chunk of request) chunks.push(chunk);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const server = createEchoServer();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    response.on("close", () => {
      transport.close();
      server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response, body);
  });
  listener.listen(0, "127.0.0.1", () => console.log(`listening ${listener.address().port}`));
}
