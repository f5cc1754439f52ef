/**
 * `ToolList`: the type of `ServerOptions.tools`, which infers each tool's
 * input and output schema from the literals.
 *
 * @module
 */

import type { ObjectSchema } from "../schema/types.ts";
import type { ToolDefinition } from "../core/tools.ts";

/**
 * The `tools` list of {@linkcode ServerOptions}: a {@linkcode ToolDefinition}
 * per entry, typed by its own schemas. `createServer()` infers `T` and `O`
 * from the literals, so a handler written inline takes its arguments from
 * its `inputSchema` and, when it declares an `outputSchema`, must return a
 * result whose `structuredContent` matches it, as with `defineTool()`. An
 * entry without an output schema may return text, blocks or any result.
 *
 * @typeParam T The input schema of each tool, in order.
 * @typeParam O The output schema of each tool, in order (anything but an
 *   object schema for a tool that declares none).
 *
 * @example
 * ```ts
 * import { defineTool, type ToolList } from "@warden/mcp";
 * const tools: ToolList = [defineTool({
 *   name: "ping",
 *   description: "Answers pong",
 *   inputSchema: { type: "object", properties: {} },
 *   handler: () => "pong",
 * })];
 * ```
 */
export type ToolList<
  T extends readonly ObjectSchema[] = readonly ObjectSchema[],
  O extends readonly unknown[] = readonly unknown[],
> =
  // TypeScript infers T and O through two mapped types over the one array:
  // the one over T gives each entry's input schema, the one over O its
  // output schema (a single mapped type over pairs infers neither). They
  // form a union: the contextual type of an intersection of mapped types is
  // resolved against T's constraint, which loses the handlers' argument
  // types. The one over O sits in the false branch of a condition every
  // list meets, so it is `never` once O is inferred: it takes part in
  // inference only (TypeScript infers to both branches), and entries are
  // checked, and errors reported, against the ToolDefinition list alone.
  // Its entries are tools too, so the list still reads as tools while O
  // is generic (in createServer()'s own body). Their `outputSchema` is
  // required: without exactOptionalPropertyTypes an optional one would drop
  // the `undefined` from a defineTool() result's `ObjectSchema | undefined`,
  // and hold that tool to an output schema it does not declare.
  | ([O] extends [readonly unknown[]] ? never
    : {
      readonly [K in keyof O]: Omit<ToolDefinition, "outputSchema"> & {
        readonly outputSchema: O[K] & ObjectSchema;
      };
    })
  | {
    readonly [K in keyof T]: ToolDefinition<
      T[K],
      // A tool without an output schema (O[K] is then `unknown` inline,
      // `ObjectSchema | undefined` from a defineTool() result; `never` is
      // guarded too) returns anything a handler may.
      K extends keyof O ? [O[K]] extends [never] ? ObjectSchema | undefined
        : O[K] extends ObjectSchema ? O[K]
        : ObjectSchema | undefined
        : ObjectSchema | undefined
    >;
  };
