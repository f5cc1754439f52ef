/**
 * Type-level tests: tools and prompts written inline in `createServer({...})`
 * get the argument types `defineTool()` and `definePrompt()` give, and tools
 * the return type `defineTool()` gives from their `outputSchema`. If the
 * inference regresses, `deno check` (and so `deno test`) fails on this file:
 * each `Assert<Equals<...>>` stops compiling, and each `@ts-expect-error`
 * becomes an unused directive. The last test checks this file again under
 * TypeScript's default options, which most consumers have.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  createServer,
  definePrompt,
  defineTool,
  type RequestContext,
  type ToolDefinition,
} from "../../mod.ts";

type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true
  : false;
type Assert<T extends true> = T;

const greetSchema = {
  type: "object",
  properties: { who: { type: "string" }, times: { type: "integer" } },
  required: ["who"],
} as const;

const skuInput = {
  type: "object",
  properties: { sku: { type: "string" } },
  required: ["sku"],
} as const;

const stockOutput = {
  type: "object",
  properties: { sku: { type: "string" }, units: { type: "integer" } },
  required: ["sku", "units"],
} as const;

/** The `stock` tool below, through defineTool(): the handler type inline tools must match. */
const definedStock = defineTool({
  name: "stock",
  description: "Units in stock for a SKU",
  inputSchema: skuInput,
  outputSchema: stockOutput,
  handler: (args) => ({ structuredContent: { sku: args.sku, units: 1 } }),
});

/** A tool without an output schema, through defineTool(). */
const definedPlain = defineTool({
  name: "plain",
  description: "Returns text",
  inputSchema: { type: "object", properties: {} },
  handler: () => "text",
});

/**
 * Returns `value`, typed as what the place it is returned to expects: `R` is
 * inferred from there alone, and `inspect` sees it, so a handler can assert
 * the return type its tool was inferred to have.
 */
function returnedAs<R>(inspect: (expected: R) => void, value: NoInfer<R>): R {
  inspect(value);
  return value;
}

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
    // An output schema types the handler's result exactly as defineTool() does.
    {
      name: "stock",
      description: "Units in stock for a SKU",
      inputSchema: { type: "object", properties: { sku: { type: "string" } }, required: ["sku"] },
      outputSchema: {
        type: "object",
        properties: { sku: { type: "string" }, units: { type: "integer" } },
        required: ["sku", "units"],
      },
      handler: (args) => {
        const _args: Assert<Equals<typeof args, { sku: string }>> = true;
        seen.push(args);
        return returnedAs((expected) => {
          const _same: Assert<
            Equals<typeof expected, ReturnType<typeof definedStock.handler>>
          > = true;
        }, { structuredContent: { sku: args.sku, units: args.sku.length } });
      },
    },
    // Without one, it is the same return type a defineTool() tool without one has.
    {
      name: "note",
      description: "Returns a note",
      inputSchema: { type: "object", properties: {} },
      handler: () =>
        returnedAs((expected) => {
          const _same: Assert<
            Equals<typeof expected, ReturnType<typeof definedPlain.handler>>
          > = true;
        }, "noted"),
    },
    // defineTool() results with and without an output schema sit in the same array.
    defineTool({
      name: "price",
      description: "The price of a SKU",
      inputSchema: skuInput,
      outputSchema: {
        type: "object",
        properties: { cents: { type: "integer" } },
        required: ["cents"],
      },
      handler: () => ({ structuredContent: { cents: 250 } }),
    }),
    definedPlain,
    // Schemas declared elsewhere `as const` infer too, the output schema included.
    {
      name: "stock_again",
      description: "The same schemas, declared once",
      inputSchema: skuInput,
      outputSchema: stockOutput,
      handler: (args) => {
        const _args: Assert<Equals<typeof args, { sku: string }>> = true;
        return returnedAs((expected) => {
          const _same: Assert<
            Equals<typeof expected, ReturnType<typeof definedStock.handler>>
          > = true;
        }, { structuredContent: { sku: args.sku, units: 0 } });
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

/**
 * Never called: the servers below only have to type-check as marked (some
 * could not even be registered, e.g. the misspelt `description`).
 */
function _checkedOnly(): void {
  // Inline tools with an output schema are held to it, whatever their place in the list.
  createServer({
    name: "wrong-output",
    version: "1.0.0",
    tools: [
      {
        name: "plain",
        description: "No output schema: text is fine",
        inputSchema: { type: "object", properties: {} },
        handler: () => "text",
      },
      {
        name: "units",
        description: "Declares integer units",
        inputSchema: { type: "object", properties: {} },
        outputSchema: { type: "object", properties: { units: { type: "integer" } } },
        // @ts-expect-error: `units` must be a number
        handler: () => ({ structuredContent: { units: "many" } }),
      },
      {
        name: "named",
        description: "Declares a required name",
        inputSchema: { type: "object", properties: {} },
        outputSchema: {
          type: "object",
          properties: { name: { type: "string" } },
          required: ["name"],
        },
        // @ts-expect-error: `name` is required by the output schema
        handler: () => ({ structuredContent: {} }),
      },
      {
        name: "texty",
        description: "Declares output but returns bare text",
        inputSchema: { type: "object", properties: {} },
        outputSchema: { type: "object", properties: { ok: { type: "boolean" } } },
        // @ts-expect-error: a tool with an output schema returns a result, not bare text
        handler: () => "done",
      },
      {
        name: "bad_schema",
        description: "An output schema must be an object schema",
        inputSchema: { type: "object", properties: {} },
        // @ts-expect-error: outputSchema needs type "object"
        outputSchema: { type: "string" },
        handler: () => "text",
      },
      {
        name: "later",
        description: "A handler returning a promise is held to the output schema too",
        inputSchema: { type: "object", properties: {} },
        outputSchema: stockOutput,
        // @ts-expect-error: `units` is missing
        handler: () => Promise.resolve({ structuredContent: { sku: "a" } }),
      },
      // A defineTool() result among them keeps its own output type.
      definedStock,
    ],
  });

  // Field names are checked as defineTool() checks them.
  createServer({
    name: "typos",
    version: "1.0.0",
    tools: [
      {
        name: "required_field",
        // @ts-expect-error: `descripton` is not a tool field (and `description` is missing)
        descripton: "Misspelt",
        inputSchema: { type: "object", properties: {} },
        handler: () => "text",
      },
      {
        name: "optional_field",
        description: "Misspelt optional field",
        // @ts-expect-error: `titel` is not a tool field
        titel: "Typo",
        inputSchema: { type: "object", properties: {} },
        outputSchema: { type: "object", properties: {} },
        handler: () => ({ structuredContent: {} }),
      },
    ],
  });

  // Lists built elsewhere are accepted as before, alone or spread after inline tools.
  const builtElsewhere: readonly ToolDefinition[] = [definedPlain, definedStock];
  createServer({ name: "listed", version: "1.0.0", tools: builtElsewhere });
  createServer({
    name: "spread",
    version: "1.0.0",
    tools: [{
      name: "stock",
      description: "Units in stock for a SKU",
      inputSchema: skuInput,
      outputSchema: stockOutput,
      handler: (args) => {
        const _args: Assert<Equals<typeof args, { sku: string }>> = true;
        return { structuredContent: { sku: args.sku, units: 1 } };
      },
    }, ...builtElsewhere],
  });
}

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
  assert.deepEqual(await call(6, "stock", { sku: "abc" }), {
    jsonrpc: "2.0",
    id: 6,
    result: {
      content: [{ type: "text", text: '{"sku":"abc","units":3}' }],
      structuredContent: { sku: "abc", units: 3 },
    },
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
  assert.deepEqual(seen, [
    { who: "ada", times: 2 },
    { on: true },
    { lines, currency: "EUR" },
    { sku: "abc" },
    { path: "mod.ts" },
  ]);
  await server.close();
});

// Consumers rarely turn on exactOptionalPropertyTypes, and optional fields infer differently
// without it (a `defineTool()` result in the array once lost its untyped return that way).
Deno.test("the same types hold under TypeScript's default options (an empty deno.json)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "warden-default-options-" });
  try {
    const config = join(dir, "deno.json");
    await Deno.writeTextFile(config, "{}\n");
    const checked = await new Deno.Command(Deno.execPath(), {
      args: ["check", "--config", config, "--no-lock", fileURLToPath(import.meta.url)],
      env: { NO_COLOR: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(checked.code, 0, new TextDecoder().decode(checked.stderr));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
