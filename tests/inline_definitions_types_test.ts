/**
 * Type-level tests: tools and prompts written inline in `createServer({...})`
 * get the argument types `defineTool()` and `definePrompt()` give. If the
 * inference regresses, `deno check` (and so `deno test`) fails on this file:
 * each `Assert<Equals<...>>` stops compiling, and each `@ts-expect-error`
 * becomes an unused directive.
 */

import assert from "node:assert/strict";
import { createServer, definePrompt, defineTool, type RequestContext } from "../mod.ts";

type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true
  : false;
type Assert<T extends true> = T;

const greetSchema = {
  type: "object",
  properties: { who: { type: "string" }, times: { type: "integer" } },
  required: ["who"],
} as const;

/** What every handler below saw, so the runtime test can check the calls reached them. */
const seen: unknown[] = [];

const server = createServer({
  name: "inline-types",
  version: "1.0.0",
  tools: [
    {
      name: "greet",
      description: "Greets someone, possibly several times",
      inputSchema: {
        type: "object",
        properties: { who: { type: "string" }, times: { type: "integer" } },
        required: ["who"],
      },
      handler: (args, context) => {
        const _args: Assert<Equals<typeof args, { who: string; times?: number }>> = true;
        const _context: Assert<Equals<typeof context, RequestContext>> = true;
        const _misuse = (): void => {
          // @ts-expect-error: the schema has no `whom`
          args.whom;
          // @ts-expect-error: `times` is a number
          args.times?.toUpperCase();
        };
        seen.push(args);
        return `Hello, ${args.who.toUpperCase()}`.repeat(args.times ?? 1);
      },
    },
    // A defineTool() result sits in the same array and keeps its own types.
    defineTool({
      name: "flag",
      description: "Echoes a flag",
      inputSchema: { type: "object", properties: { on: { type: "boolean" } }, required: ["on"] },
      handler: (args) => {
        const _args: Assert<Equals<typeof args, { on: boolean }>> = true;
        seen.push(args);
        return args.on ? "on" : "off";
      },
    }),
    {
      name: "total",
      description: "Adds up order lines",
      inputSchema: {
        type: "object",
        properties: {
          lines: {
            type: "array",
            items: {
              type: "object",
              properties: { sku: { type: "string" }, quantity: { type: "integer" } },
              required: ["sku", "quantity"],
            },
          },
          currency: { enum: ["EUR", "USD"] },
        },
        required: ["lines", "currency"],
      },
      handler: (args) => {
        const _args: Assert<
          Equals<
            typeof args,
            { lines: { sku: string; quantity: number }[]; currency: "EUR" | "USD" }
          >
        > = true;
        const _misuse = (): void => {
          // @ts-expect-error: `who` belongs to another tool's schema
          args.who;
        };
        seen.push(args);
        return `${args.lines.reduce((sum, line) => sum + line.quantity, 0)} ${args.currency}`;
      },
    },
    // A schema declared elsewhere `as const` infers too.
    {
      name: "greet_again",
      description: "The same schema, declared once",
      inputSchema: greetSchema,
      handler: (args) => {
        const _args: Assert<Equals<typeof args, { who: string; times?: number }>> = true;
        return args.who;
      },
    },
  ],
  prompts: [
    {
      name: "review",
      description: "Review a file",
      arguments: [{ name: "path", required: true }, { name: "focus" }],
      get: (args) => {
        const _path: Assert<Equals<typeof args.path, string>> = true;
        const _focus: Assert<Equals<typeof args.focus, string | undefined>> = true;
        const _misuse = (): void => {
          // @ts-expect-error: the prompt declares no `file` argument
          args.file;
        };
        seen.push(args);
        return `Please review ${args.path.toUpperCase()}${
          args.focus === undefined ? "" : ` for ${args.focus}`
        }`;
      },
    },
    // A definePrompt() result sits in the same array.
    definePrompt({
      name: "hello",
      arguments: [{ name: "who", required: true }],
      get: (args) => {
        const _who: Assert<Equals<typeof args.who, string>> = true;
        return `Say hello to ${args.who}`;
      },
    }),
    // A completer with its parameter annotated keeps the list inferable.
    {
      name: "summarize",
      arguments: [{ name: "order_id", required: true, complete: (prefix: string) => [prefix] }],
      get: (args) => {
        const _id: Assert<Equals<typeof args.order_id, string>> = true;
        return `Summarize ${args.order_id}`;
      },
    },
    // Nothing to infer from (no `arguments`, or an unannotated completer): any name is
    // `string | undefined`, and the definition still compiles.
    {
      name: "plain",
      get: (args) => {
        const _any: Assert<Equals<typeof args.anything, string | undefined>> = true;
        return "No arguments";
      },
    },
    {
      name: "unannotated",
      arguments: [{ name: "order_id", required: true, complete: (prefix) => [prefix] }],
      get: (args) => {
        const _id: Assert<Equals<typeof args.order_id, string | undefined>> = true;
        return "Loosely typed";
      },
    },
  ],
});

// The same tool in defineTool() and inline gets the same handler type.
const defined = defineTool({
  name: "greet",
  description: "Greets someone",
  inputSchema: greetSchema,
  handler: (args) => args.who,
});
const _sameArgs: Assert<
  Equals<Parameters<typeof defined.handler>[0], { who: string; times?: number }>
> = true;

createServer({
  name: "wrong-return",
  version: "1.0.0",
  tools: [{
    name: "count",
    description: "Counts",
    inputSchema: { type: "object", properties: {} },
    // @ts-expect-error: a handler returns text, content blocks or a tool result, not a number
    handler: () => 42,
  }],
});

Deno.test("createServer() with inline tools and prompts runs them with the arguments they were typed for", async () => {
  const initialize = {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "types-test", version: "1.0.0" },
  };
  await server.handle({ jsonrpc: "2.0", id: 1, method: "initialize", params: initialize });
  await server.handle({ jsonrpc: "2.0", method: "notifications/initialized" });
  const call = (id: number, name: string, args: Record<string, unknown>) =>
    server.handle({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
  assert.deepEqual(await call(2, "greet", { who: "ada", times: 2 }), {
    jsonrpc: "2.0",
    id: 2,
    result: { content: [{ type: "text", text: "Hello, ADAHello, ADA" }] },
  });
  assert.deepEqual(await call(3, "flag", { on: true }), {
    jsonrpc: "2.0",
    id: 3,
    result: { content: [{ type: "text", text: "on" }] },
  });
  const lines = [{ sku: "a", quantity: 2 }, { sku: "b", quantity: 3 }];
  assert.deepEqual(await call(4, "total", { lines, currency: "EUR" }), {
    jsonrpc: "2.0",
    id: 4,
    result: { content: [{ type: "text", text: "5 EUR" }] },
  });
  const prompt = await server.handle({
    jsonrpc: "2.0",
    id: 5,
    method: "prompts/get",
    params: { name: "review", arguments: { path: "mod.ts" } },
  });
  assert.deepEqual(prompt, {
    jsonrpc: "2.0",
    id: 5,
    result: {
      description: "Review a file",
      messages: [{ role: "user", content: { type: "text", text: "Please review MOD.TS" } }],
    },
  });
  assert.deepEqual(seen, [{ who: "ada", times: 2 }, { on: true }, { lines, currency: "EUR" }, {
    path: "mod.ts",
  }]);
  await server.close();
});
