/**
 * The prompts rows of PROTOCOL.md through `server.handle()`: `prompts/list`,
 * `prompts/get` with one string or a list of messages, and bad arguments.
 */

import assert from "node:assert/strict";
import { createServer, ErrorCode } from "../../mod.ts";
import { errorOf, request, resultOf } from "../_helpers/helpers.ts";

Deno.test("prompts/list and prompts/get with a string and with a list of messages", async () => {
  const server = createServer({
    name: "s",
    version: "1",
    prompts: [
      {
        name: "summarize",
        description: "Summarize",
        arguments: [{ name: "order_id", required: true }, { name: "tone" }],
        get: (args) => `Summarize ${args.order_id}`,
      },
      {
        name: "two",
        get: () => [
          { role: "user", content: { type: "text", text: "a" } },
          { role: "assistant", content: { type: "text", text: "b" } },
        ],
      },
    ],
  });
  const list = await server.handle(request(1, "prompts/list"));
  assert.deepEqual(resultOf(list), {
    prompts: [
      {
        name: "summarize",
        description: "Summarize",
        arguments: [{ name: "order_id", required: true }, { name: "tone" }],
      },
      { name: "two" },
    ],
  });
  const got = await server.handle(
    request(2, "prompts/get", { name: "summarize", arguments: { order_id: "ORD-1" } }),
  );
  assert.deepEqual(resultOf(got), {
    description: "Summarize",
    messages: [{ role: "user", content: { type: "text", text: "Summarize ORD-1" } }],
  });
  const two = await server.handle(request(3, "prompts/get", { name: "two" }));
  assert.deepEqual(resultOf(two).messages, [
    { role: "user", content: { type: "text", text: "a" } },
    { role: "assistant", content: { type: "text", text: "b" } },
  ]);
});

Deno.test("prompts/get without a required argument, or with a non-string one, is -32602", async () => {
  const server = createServer({
    name: "s",
    version: "1",
    prompts: [{ name: "p", arguments: [{ name: "order_id", required: true }], get: () => "x" }],
  });
  for (const args of [{}, { order_id: 5 }, undefined]) {
    const params = args === undefined ? { name: "p" } : { name: "p", arguments: args };
    const reply = await server.handle(request(1, "prompts/get", params));
    assert.equal(errorOf(reply).code, ErrorCode.InvalidParams);
    assert.deepEqual(errorOf(reply).data, {
      violations: [{
        path: "$.order_id",
        message: typeof args === "object" && "order_id" in args ? "must be string" : "is required",
      }],
    });
  }
  const unknown = await server.handle(request(2, "prompts/get", { name: "nope" }));
  assert.equal(errorOf(unknown).code, ErrorCode.MethodNotFound);
});
