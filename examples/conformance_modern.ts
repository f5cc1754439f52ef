/**
 * The conformance fixture's items for revision 2026-07-28: tools that ask
 * the client through multi round-trip requests, change the lists while a
 * subscription listens, log only when asked, and mirror a parameter into an
 * HTTP header. Each handler is written once and works in both eras.
 *
 * @module
 */

import { definePrompt, defineTool, type Server } from "../mod.ts";
import { addTaskFixtures } from "./conformance_tasks.ts";

const NO_ARGS = { type: "object", properties: {} } as const;
const NAME_FORM = {
  type: "object",
  properties: { name: { type: "string" } },
  required: ["name"],
} as const;
const CONFIRM_FORM = {
  type: "object",
  properties: { ok: { type: "boolean" } },
  required: ["ok"],
} as const;

function samplingOf(text: string, maxTokens: number) {
  return {
    messages: [{ role: "user" as const, content: { type: "text" as const, text } }],
    maxTokens,
  };
}

/**
 * Registers the 2026-07-28 items on `server`.
 *
 * @example
 * ```ts ignore
 * addModernFixtures(server);
 * ```
 */
export function addModernFixtures(server: Server): void {
  // Toggled by the trigger tools so that a list really changes.
  const spareTool = server.tool({
    name: "test_spare_tool",
    description: "Changes when test_trigger_tool_change runs",
    inputSchema: NO_ARGS,
    handler: () => "spare",
  });
  const sparePrompt = server.prompt({
    name: "test_spare_prompt",
    description: "Changes when test_trigger_prompt_change runs",
    get: () => "spare",
  });
  let changes = 0;
  const tools = [
    defineTool({
      name: "test_missing_capability",
      description: "Samples the client's model, so it needs the sampling capability",
      inputSchema: NO_ARGS,
      handler: async (_args, ctx) => {
        await ctx.sample(samplingOf("Say hello", 10));
        return "Success";
      },
    }),
    defineTool({
      name: "test_streaming_elicitation",
      description: "Asks the user a question (an input request, never a server request)",
      inputSchema: NO_ARGS,
      handler: async (_args, ctx) => {
        const answer = await ctx.elicit("What is your name?", NAME_FORM);
        return answer.action === "accept" ? `Hello, ${answer.content.name}!` : "No name given";
      },
    }),
    defineTool({
      name: "test_logging_tool",
      description: "Logs a message, which reaches the client only if it asked for a log level",
      inputSchema: NO_ARGS,
      handler: (_args, ctx) => {
        ctx.log("info", "Logging tool ran");
        return "Logging evaluated";
      },
    }),
    defineTool({
      name: "test_trigger_tool_change",
      description: "Changes the tool list",
      inputSchema: NO_ARGS,
      handler: () => {
        spareTool.update({ description: `Changed ${++changes} time(s)` });
        return "Mutation triggered";
      },
    }),
    defineTool({
      name: "test_trigger_prompt_change",
      description: "Changes the prompt list",
      inputSchema: NO_ARGS,
      handler: () => {
        sparePrompt.update({ description: `Changed ${++changes} time(s)` });
        return "Mutation triggered";
      },
    }),
    defineTool({
      name: "test_input_required_result_elicitation",
      description: "Asks for the user's name, then greets them",
      inputSchema: NO_ARGS,
      handler: async (_args, ctx) => {
        const answer = await ctx.elicit("What is your name?", NAME_FORM, { inputKey: "user_name" });
        return answer.action === "accept" ? `Hello, ${answer.content.name}!` : "No name given";
      },
    }),
    defineTool({
      name: "test_input_required_result_sampling",
      description: "Asks the client's model a question",
      inputSchema: NO_ARGS,
      handler: async (_args, ctx) => {
        const answer = await ctx.sample(samplingOf("What is the capital of France?", 100), {
          inputKey: "capital_question",
        });
        const text = answer.content.type === "text" ? answer.content.text : answer.content.type;
        return `Sampling result: ${text}`;
      },
    }),
    defineTool({
      name: "test_input_required_result_list_roots",
      description: "Asks the client for its roots",
      inputSchema: NO_ARGS,
      handler: async (_args, ctx) => {
        const roots = await ctx.roots({ inputKey: "client_roots" });
        return `Found ${roots.length} root(s)`;
      },
    }),
    defineTool({
      name: "test_input_required_result_request_state",
      description: "Asks for a confirmation, carried across rounds in the request state",
      inputSchema: NO_ARGS,
      handler: async (_args, ctx) => {
        const answer = await ctx.elicit("Please confirm", CONFIRM_FORM, { inputKey: "confirm" });
        return answer.action === "accept" && answer.content.ok
          ? "state-ok: requestState validated"
          : "not confirmed";
      },
    }),
    defineTool({
      name: "test_input_required_result_tampered_state",
      description: "Asks for a confirmation; a tampered request state is refused",
      inputSchema: NO_ARGS,
      handler: async (_args, ctx) => {
        const answer = await ctx.elicit("Please confirm", CONFIRM_FORM, { inputKey: "confirm" });
        return answer.action === "accept" ? "integrity-ok: state verified" : "not confirmed";
      },
    }),
    defineTool({
      name: "test_input_required_result_multiple_inputs",
      description: "Asks for a name, a greeting and the roots at once",
      inputSchema: NO_ARGS,
      handler: async (_args, ctx) => {
        const [name, greeting, roots] = await Promise.all([
          ctx.elicit("What is your name?", NAME_FORM, { inputKey: "user_name" }),
          ctx.sample(samplingOf("Generate a greeting", 50), { inputKey: "greeting" }),
          ctx.roots({ inputKey: "client_roots" }),
        ]);
        const who = name.action === "accept" ? name.content.name : "nobody";
        const said = greeting.content.type === "text" ? greeting.content.text : "";
        return `Name: ${who}; Greeting: ${said}; Roots: ${roots.length}`;
      },
    }),
    defineTool({
      name: "test_input_required_result_multi_round",
      description: "Asks two questions, one round each",
      inputSchema: NO_ARGS,
      handler: async (_args, ctx) => {
        const first = await ctx.elicit("Step 1: What is your name?", NAME_FORM, {
          inputKey: "step1",
        });
        const second = await ctx.elicit("Step 2: What is your favorite color?", {
          type: "object",
          properties: { color: { type: "string" } },
          required: ["color"],
        }, { inputKey: "step2" });
        const name = first.action === "accept" ? first.content.name : "nobody";
        const color = second.action === "accept" ? second.content.color : "nothing";
        return `Multi-round complete for ${name} who likes ${color}`;
      },
    }),
    defineTool({
      name: "test_input_required_result_capabilities",
      description: "Asks only for what the client declared it can answer",
      inputSchema: NO_ARGS,
      handler: async (_args, ctx) => {
        const { capabilities } = ctx.client;
        const asks: Promise<unknown>[] = [];
        if (capabilities.elicitation !== undefined) {
          asks.push(ctx.elicit("Any value?", {
            type: "object",
            properties: { value: { type: "string" } },
            required: ["value"],
          }, { inputKey: "elicit_input" }));
        }
        if (capabilities.sampling !== undefined) {
          asks.push(ctx.sample(samplingOf("Sample request", 50), { inputKey: "sample_input" }));
        }
        if (asks.length === 0) return "No supported capabilities declared";
        await Promise.all(asks);
        return `capabilities-ok: received ${asks.length} answer(s)`;
      },
    }),
    defineTool({
      name: "test_header_param",
      description: "Echoes a parameter mirrored into the Mcp-Param-Region header",
      inputSchema: {
        type: "object",
        properties: { region: { type: "string", "x-mcp-header": "Region" } },
        required: ["region"],
      },
      handler: ({ region }) => `region=${region}`,
    }),
  ];
  for (const tool of tools) server.tool(tool);
  addTaskFixtures(server);
  server.prompt(definePrompt({
    name: "test_input_required_result_prompt",
    description: "Asks the user for context before building the prompt",
    get: async (_args, ctx) => {
      const answer = await ctx.elicit("What context should the prompt use?", {
        type: "object",
        properties: { context: { type: "string" } },
        required: ["context"],
      }, { inputKey: "user_context" });
      const context = answer.action === "accept" ? answer.content.context : "none";
      return `Prompt with context: ${context}`;
    },
  }));
}
