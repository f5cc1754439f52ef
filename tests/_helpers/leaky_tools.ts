/**
 * The secret the masking tests plant, and a tool that leaks it on every
 * channel a handler reaches: its log, its progress and its result.
 */

import { defineTool, type ToolDefinition } from "../../mod.ts";

/** A partner key of the order desk's format; the masking tests' rule matches it. */
export const SECRET = "ODK-4f9a8b7c6d5e4f3a2b1c0d9e8f7a";

/** `echo`: logs, reports progress and answers with the secret in each. */
export const leakyEcho: ToolDefinition = defineTool({
  name: "echo",
  description: "Says back what it was given, and logs it",
  inputSchema: { type: "object", properties: { text: { type: "string" } } },
  handler: ({ text }, ctx) => {
    ctx.log("info", { said: text, key: SECRET });
    ctx.progress(1, 2, `working on ${SECRET}`);
    return `you said ${text} with ${SECRET}`;
  },
});
