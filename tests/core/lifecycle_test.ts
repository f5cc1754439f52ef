/**
 * The lifecycle rows of PROTOCOL.md through `server.handle()`: `initialize`
 * (revisions offered and answered, server info, capabilities for what is
 * registered, bad params) and `ping`.
 */

import assert from "node:assert/strict";
import { createServer, ErrorCode } from "../../mod.ts";
import { errorOf, fixtureServer, initialize, request, resultOf } from "../_helpers/helpers.ts";

Deno.test("initialize echoes each supported revision and answers others with the newest", async () => {
  const { server } = fixtureServer();
  for (const version of ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]) {
    const reply = await server.handle(initialize(1, version));
    assert.deepEqual(
      resultOf(reply).protocolVersion,
      version,
    );
  }
  for (const version of ["2099-01-01", "2025-09-99", "1.0", ""]) {
    const reply = await server.handle(initialize(1, version));
    assert.equal(
      resultOf(reply).protocolVersion,
      "2025-11-25",
    );
  }
});

Deno.test("initialize returns serverInfo, instructions and capabilities for what is registered", async () => {
  const { server } = fixtureServer({ title: "Fixture", instructions: "Be nice" });
  assert.deepEqual(await server.handle(initialize(7)), {
    jsonrpc: "2.0",
    id: 7,
    result: {
      protocolVersion: "2025-06-18",
      capabilities: {
        logging: {},
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
      },
      serverInfo: { name: "fixture", version: "1.2.3", title: "Fixture" },
      instructions: "Be nice",
    },
  });
});

Deno.test("createServer() claims no capability for a kind with nothing registered", async () => {
  const server = createServer({ name: "bare", version: "1" });
  const reply = await server.handle(initialize(1));
  assert.deepEqual(resultOf(reply).capabilities, { logging: {} });
  server.tool({
    name: "t",
    description: "d",
    inputSchema: { type: "object" },
    handler: () => "x",
  });
  const again = await server.handle(initialize(2));
  assert.deepEqual(resultOf(again).capabilities, {
    logging: {},
    tools: { listChanged: true },
  });
});

Deno.test("initialize without a string protocolVersion is -32602", async () => {
  const { server } = fixtureServer();
  const reply = await server.handle(request(1, "initialize", { capabilities: {} }));
  assert.equal(errorOf(reply).code, ErrorCode.InvalidParams);
});

Deno.test("ping returns an empty object", async () => {
  const { server } = fixtureServer();
  assert.deepEqual(await server.handle(request("p", "ping")), {
    jsonrpc: "2.0",
    id: "p",
    result: {},
  });
});
