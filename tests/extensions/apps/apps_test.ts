/**
 * The apps extension (SEP-1865) as a host sees it, in both eras: the view's
 * resource with its MIME type and `_meta.ui`, the tools linked to it, and
 * app-only tools listed and callable only for clients that host apps.
 */

import assert from "node:assert/strict";
import { createServer, defineTool, type Server } from "../../../mod.ts";
import { createOrderDesk } from "../../../examples/orders.ts";
import { errorOf, modernRequest, request, resultOf } from "../../_helpers/helpers.ts";

const UI = {
  extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } },
};
const ERAS = ["legacy", "modern"] as const;

/** A client in `era`: a legacy session opened with `capabilities`, or modern requests declaring them. */
async function client(
  server: Server,
  era: (typeof ERAS)[number],
  capabilities: Record<string, unknown>,
) {
  if (era === "legacy") {
    await server.handle(request(0, "initialize", {
      protocolVersion: "2025-11-25",
      capabilities,
      clientInfo: { name: "host", version: "1" },
    }));
  }
  return (method: string, params: Record<string, unknown> = {}) =>
    server.handle(
      era === "modern"
        ? modernRequest(1, method, params, capabilities)
        : request(1, method, params),
    );
}

for (const era of ERAS) {
  Deno.test(`${era}: a host sees the order board linked from list_orders and reads its HTML`, async () => {
    const desk = createOrderDesk();
    const ask = await client(desk, era, UI);
    const tools = resultOf(await ask("tools/list")).tools as {
      name: string;
      _meta?: { ui?: unknown };
    }[];
    const board = tools.find((tool) => tool.name === "list_orders");
    assert.deepEqual(board?._meta?.ui, {
      resourceUri: "ui://order-desk/board",
      visibility: ["app"],
    });
    const read = resultOf(await ask("resources/read", { uri: "ui://order-desk/board" }));
    const [view] = read.contents as { mimeType: string; text: string; _meta: unknown }[];
    assert.equal(view?.mimeType, "text/html;profile=mcp-app");
    assert.match(view?.text ?? "", /^<!DOCTYPE html>/);
    assert.match(view?.text ?? "", /ui\/initialize/);
    assert.deepEqual(view?._meta, { ui: { csp: {}, prefersBorder: true } });
    const called = resultOf(await ask("tools/call", { name: "list_orders", arguments: {} }));
    assert.equal((called.structuredContent as { orders: unknown[] }).orders.length, 2);
    const discover = resultOf(await ask("server/discover"));
    assert.deepEqual(
      (discover.capabilities as { extensions: Record<string, unknown> })
        .extensions["io.modelcontextprotocol/ui"],
      {},
    );
    await desk.close();
  });

  Deno.test(`${era}: a client that hosts no apps neither sees nor calls an app-only tool`, async () => {
    const desk = createOrderDesk();
    const ask = await client(desk, era, {});
    const tools = resultOf(await ask("tools/list")).tools as { name: string }[];
    assert.equal(tools.some((tool) => tool.name === "list_orders"), false);
    assert.ok(tools.some((tool) => tool.name === "get_order"));
    assert.ok(
      "error" in (await ask("tools/call", { name: "list_orders", arguments: {} }) as object),
    );
    await desk.close();
  });
}

Deno.test("server.app() links model-visible tools, checks CSP origins and registers all or nothing", () => {
  const server = createServer({ name: "s", version: "1" });
  const tool = defineTool({
    name: "show",
    description: "Shows the view",
    inputSchema: { type: "object", properties: {} },
    handler: () => "shown",
  });
  const bad = [
    { uri: "https://x/view", name: "v", html: "<p>" },
    { uri: "ui://a/../b", name: "v", html: "<p>" },
    { uri: "ui://../b", name: "v", html: "<p>" },
    { uri: "ui://./b", name: "v", html: "<p>" },
    { uri: "ui://a/..", name: "v", html: "<p>" },
    { uri: "ui://a/%2e%2e/b", name: "v", html: "<p>" },
    { uri: "ui://a//b", name: "v", html: "<p>" },
    {
      uri: "ui://v",
      name: "v",
      html: "<p>",
      csp: { connectDomains: ["https://a.example; script-src *"] },
    },
    { uri: "ui://v", name: "v", html: "<p>", csp: { resourceDomains: ["'unsafe-eval'"] } },
    { uri: "ui://v", name: "v", html: "<p>", permissions: { usb: {} } },
  ];
  for (const definition of bad) {
    assert.throws(() => server.app(definition as never), TypeError, JSON.stringify(definition));
  }
  server.tool({ ...tool, name: "taken" });
  assert.throws(
    () =>
      server.app({
        uri: "ui://v",
        name: "v",
        html: "<p>",
        tools: [tool, { ...tool, name: "taken" }],
      }),
    TypeError,
  );
  // The failed app left nothing behind: its view is not registered.
  assert.equal(server.remove("resource", "ui://v"), false);
  assert.equal(server.remove("tool", "show"), false);
  const handle = server.app({
    uri: "ui://v",
    name: "v",
    html: "<p>",
    csp: { connectDomains: ["https://api.example.com", "wss://*.example.com:8443"] },
    permissions: { clipboardWrite: {} },
    tools: [tool],
  });
  assert.equal(handle.key, "ui://v");
});

Deno.test("a server with no app declares no ui extension", async () => {
  const server = createServer({ name: "s", version: "1" });
  const init = resultOf(
    await server.handle(request(0, "initialize", {
      protocolVersion: "2025-11-25",
      capabilities: UI,
      clientInfo: { name: "host", version: "1" },
    })),
  );
  assert.equal((init.capabilities as Record<string, unknown>).extensions, undefined);
  assert.equal(errorOf(await server.handle(request(1, "skills/list"))).code, -32601);
  await server.close();
});

for (const era of ERAS) {
  Deno.test(`${era}: an app-only tool registered after server.app() is gated too`, async () => {
    const server = createServer({ name: "late", version: "1.0.0" });
    server.app({
      uri: "ui://late/view",
      name: "view",
      html: "<!DOCTYPE html><p>view</p>",
      tools: [defineTool({
        name: "open_view",
        description: "Opens it",
        inputSchema: { type: "object", properties: {} },
        handler: () => "open",
      })],
    });
    // Linked by hand, as SEP-1865 spells it, after the app was declared.
    server.tool(defineTool({
      name: "app_refresh",
      description: "Only the view calls it",
      inputSchema: { type: "object", properties: {} },
      _meta: { ui: { resourceUri: "ui://late/view", visibility: ["app"] } },
      handler: () => "refreshed",
    }));
    const plain = await client(server, era, {});
    const listed = resultOf(await plain("tools/list")).tools as { name: string }[];
    assert.equal(listed.some((tool) => tool.name === "app_refresh"), false);
    assert.ok(
      "error" in (await plain("tools/call", { name: "app_refresh", arguments: {} }) as object),
    );
    const host = await client(server, era, UI);
    const hosted = resultOf(await host("tools/list")).tools as { name: string }[];
    assert.ok(hosted.some((tool) => tool.name === "app_refresh"));
    await server.close();
  });
}

Deno.test("a visibility written as one name still gates; a host whose mimeTypes is no list hosts no apps", async () => {
  for (const era of ERAS) {
    const server = createServer({ name: "loose", version: "1.0.0" });
    server.app({ uri: "ui://loose/view", name: "view", html: "<!DOCTYPE html><p>view</p>" });
    server.tool(defineTool({
      name: "app_only",
      description: "Only the view calls it",
      inputSchema: { type: "object", properties: {} },
      _meta: { ui: { resourceUri: "ui://loose/view", visibility: "app" } },
      handler: () => "ok",
    }));
    const names = async (capabilities: Record<string, unknown>) => {
      const list = await client(server, era, capabilities);
      return (resultOf(await list("tools/list")).tools as { name: string }[]).map((t) => t.name);
    };
    assert.deepEqual(await names({}), [], `${era}: model-only client`);
    const odd = { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: "text/html" } } };
    assert.deepEqual(await names(odd), [], `${era}: mimeTypes that is no list`);
    assert.deepEqual(await names(UI), ["app_only"], `${era}: a host`);
    await server.close();
  }
});
