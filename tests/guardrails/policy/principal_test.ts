import assert from "node:assert/strict";
import { createServer, defineTool } from "../../../mod.ts";
import { createGuardrails } from "../../../guardrails.ts";
import { errorOf, request, resultOf } from "../../_helpers/helpers.ts";

const tools = [
  defineTool({
    name: "get_order",
    description: "Reads an order",
    inputSchema: { type: "object" },
    handler: (_args, ctx) => `read by ${ctx.principal}`,
  }),
];
const policy = {
  principal: "alice",
  access: { principals: { alice: { tools: { deny: ["get_order"] } } } },
};

Deno.test("createGuardrails() applies a policy's principal without createServer({ principal })", async () => {
  const server = createServer({
    name: "desk",
    version: "1",
    tools,
    guardrails: createGuardrails(policy),
  });
  const reply = await server.handle(request(1, "tools/call", { name: "get_order", arguments: {} }));
  assert.equal(errorOf(reply).code, -32001);
});

Deno.test("createServer() with the policy's own principal agrees with it", async () => {
  const server = createServer({
    name: "desk",
    version: "1",
    tools,
    principal: "alice",
    guardrails: createGuardrails(policy),
  });
  const reply = await server.handle(request(1, "tools/call", { name: "get_order", arguments: {} }));
  assert.equal(errorOf(reply).code, -32001);
});

Deno.test("createServer() refuses a principal that disagrees with the policy's", () => {
  assert.throws(
    () =>
      createServer({
        name: "desk",
        version: "1",
        tools,
        principal: "bob",
        guardrails: createGuardrails(policy),
      }),
    /conflicting principals "alice" and "bob"|conflicting principals "bob" and "alice"/,
  );
});

Deno.test("connect({ principal }) still overrides the policy's principal for its session", async () => {
  const server = createServer({
    name: "desk",
    version: "1",
    tools,
    guardrails: createGuardrails(policy),
  });
  const { MemoryTransport } = await import("../../../testing.ts");
  const transport = new MemoryTransport([
    request(1, "tools/call", { name: "get_order", arguments: {} }),
  ]);
  await server.connect(transport, { principal: "carol" });
  const [reply] = transport.replies;
  assert.equal(
    (resultOf(reply).content as { text: string }[])[0]?.text,
    "read by carol",
  );
});
