/**
 * A server whose tools elicit the forms of the MCP conformance scenarios
 * (SEP-1034 defaults, SEP-1330 enums), a yes/no question and a URL, with the
 * answers those scenarios send. Shared by the elicitation tests and the
 * official SDK's elicitation interop test.
 *
 * @module
 */

import { createServer, defineTool, type Server } from "../../mod.ts";

/** True when A and B are the same type. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true
  : false;
/** Compiles only when its type argument is `true`. */
function assertType<T extends true>(_proof: T): void {}

/** The SEP-1034 form, as the conformance scenario expects it. */
export const SEP1034_FORM = {
  type: "object",
  properties: {
    name: { type: "string", default: "John Doe" },
    age: { type: "integer", default: 30 },
    score: { type: "number", default: 95.5 },
    status: { type: "string", enum: ["active", "inactive", "pending"], default: "active" },
    verified: { type: "boolean", default: true },
  },
} as const;

/** The SEP-1330 form, as the conformance scenario expects it. */
export const SEP1330_FORM = {
  type: "object",
  properties: {
    untitledSingle: { type: "string", enum: ["option1", "option2", "option3"] },
    titledSingle: {
      type: "string",
      oneOf: [
        { const: "value1", title: "First Option" },
        { const: "value2", title: "Second Option" },
        { const: "value3", title: "Third Option" },
      ],
    },
    legacyEnum: {
      type: "string",
      enum: ["opt1", "opt2", "opt3"],
      enumNames: ["Option One", "Option Two", "Option Three"],
    },
    untitledMulti: {
      type: "array",
      items: { type: "string", enum: ["option1", "option2", "option3"] },
    },
    titledMulti: {
      type: "array",
      items: {
        anyOf: [
          { const: "value1", title: "First Choice" },
          { const: "value2", title: "Second Choice" },
          { const: "value3", title: "Third Choice" },
        ],
      },
    },
  },
} as const;

/** An answer that fits SEP1034_FORM. */
export const SEP1034_ANSWER = {
  name: "Jane Smith",
  age: 25,
  score: 88,
  status: "inactive",
  verified: false,
};
/** An answer that fits SEP1330_FORM. */
export const SEP1330_ANSWER = {
  untitledSingle: "option1",
  titledSingle: "value1",
  legacyEnum: "opt1",
  untitledMulti: ["option1", "option2"],
  titledMulti: ["value1", "value2"],
};

/** A server whose tools elicit the conformance forms and a URL; errors become isError text. */
export function elicitingServer(): Server {
  return createServer({
    name: "s",
    version: "1",
    log: () => {},
    tools: [
      defineTool({
        name: "test_elicitation_sep1034_defaults",
        description: "Elicits a form with defaults",
        inputSchema: { type: "object" },
        handler: async (_args, ctx) => {
          const answer = await ctx.elicit("Please review the defaults", SEP1034_FORM);
          if (answer.action !== "accept") return `Elicitation completed: action=${answer.action}`;
          assertType<Equal<typeof answer.content.age, number | undefined>>(true);
          assertType<
            Equal<typeof answer.content.status, "active" | "inactive" | "pending" | undefined>
          >(true);
          return `Elicitation completed: action=accept, content=${JSON.stringify(answer.content)}`;
        },
      }),
      defineTool({
        name: "test_elicitation_sep1330_enums",
        description: "Elicits every enum form",
        inputSchema: { type: "object" },
        handler: async (_args, ctx) => {
          const answer = await ctx.elicit("Please pick", SEP1330_FORM);
          if (answer.action !== "accept") return `Elicitation completed: action=${answer.action}`;
          const { content } = answer;
          assertType<
            Equal<typeof content.titledSingle, "value1" | "value2" | "value3" | undefined>
          >(
            true,
          );
          assertType<Equal<typeof content.legacyEnum, "opt1" | "opt2" | "opt3" | undefined>>(true);
          assertType<
            Equal<typeof content.untitledMulti, ("option1" | "option2" | "option3")[] | undefined>
          >(true);
          assertType<
            Equal<typeof content.titledMulti, ("value1" | "value2" | "value3")[] | undefined>
          >(true);
          return `Elicitation completed: action=accept, content=${JSON.stringify(content)}`;
        },
      }),
      defineTool({
        name: "confirm",
        description: "Asks a required yes/no question",
        inputSchema: { type: "object" },
        handler: async (_args, ctx) => {
          const answer = await ctx.elicit("Sure?", {
            type: "object",
            properties: { ok: { type: "boolean" } },
            required: ["ok"],
          });
          assertType<
            Equal<
              typeof answer,
              { action: "decline" } | { action: "cancel" } | {
                action: "accept";
                content: { ok: boolean };
              }
            >
          >(true);
          return JSON.stringify(answer);
        },
      }),
      defineTool({
        name: "sign_in",
        description: "Sends the user to a sign-in page",
        inputSchema: {
          type: "object",
          properties: { url: { type: "string" }, id: { type: "string" } },
        },
        handler: async ({ url, id }, ctx) => {
          const answer = await ctx.elicitUrl(
            "Please sign in to Example Co",
            url ?? ((elicitationId) => `https://example.com/connect?elicitation=${elicitationId}`),
            id === undefined ? {} : { elicitationId: id },
          );
          answer.complete();
          answer.complete(); // sent once only
          return JSON.stringify({ action: answer.action, elicitationId: answer.elicitationId });
        },
      }),
    ],
  });
}
