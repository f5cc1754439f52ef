/**
 * Tools: their definition (with argument types inferred from the schema
 * literal), the registry, and the innermost call step (validate, run,
 * shape the result).
 *
 * @module
 */

import { checkItemCache, type ItemCache } from "./cache.ts";
import { type MirroredParam, mirroredParams } from "./header_params.ts";
import { isRecord } from "../jsonrpc/messages.ts";
import { compileSchema, type Validator } from "../schema/compile.ts";
import type { Infer, ObjectSchema } from "../schema/types.ts";
import type { CallOutcome } from "../call/outcome.ts";
import type { RequestContext } from "./context.ts";
import { type ContentBlock, contentListProblem, text, type ToolResult } from "./content.ts";
import { InputRequiredError } from "./ask_errors.ts";
import {
  cancelledOutcome,
  errorOutcome,
  inputRequiredOutcome,
  invalidParams,
  logThrown,
} from "./outcome.ts";
import { quote, RpcError } from "../jsonrpc/errors.ts";
import { checkIcons, type Icon, revisionAtLeast } from "./lifecycle.ts";

/**
 * Hints about a tool's behaviour; clients must not trust them from untrusted servers.
 *
 * @example A lookup that changes nothing, so a client may run it without asking
 * ```ts
 * import { defineTool, type ToolAnnotations } from "@warden/mcp";
 * const lookup: ToolAnnotations = {
 *   title: "Find an order",
 *   readOnlyHint: true,
 *   openWorldHint: false,
 * };
 * const findOrder = defineTool({
 *   name: "find_order",
 *   description: "An order's status by id",
 *   inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
 *   annotations: lookup,
 *   handler: ({ id }) => `Order ${id} is open`,
 * });
 * ```
 */
export interface ToolAnnotations {
  /** A human-readable title. */
  title?: string;
  /** The tool does not change its environment. */
  readOnlyHint?: boolean;
  /** The tool may make destructive updates. */
  destructiveHint?: boolean;
  /** Calling it twice with the same arguments has no further effect. */
  idempotentHint?: boolean;
  /** The tool talks to an open world (the web, other systems). */
  openWorldHint?: boolean;
}

/**
 * Whether a tool runs as a task (revision 2026-07-28, tasks extension):
 * never, when the request declares the extension, or always.
 *
 * @example
 * ```ts
 * import type { ToolTaskSupport } from "./tools.ts";
 * const longRunning: ToolTaskSupport = "optional";
 * ```
 */
export type ToolTaskSupport = "never" | "optional" | "required";

const TASK_SUPPORT: ReadonlySet<unknown> = new Set(["never", "optional", "required"]);

/**
 * What a tool handler may return: text, blocks, or a full result (typed
 * when `outputSchema` is set).
 *
 * @example A handler written apart from its tool, returning text or a failed result
 * ```ts
 * import type { ToolReturn } from "@warden/mcp";
 * const stock = new Map([["SKU-1", 4], ["SKU-2", 0]]);
 * function stockOf({ sku }: { sku: string }): ToolReturn<undefined> {
 *   const count = stock.get(sku);
 *   if (count === undefined) {
 *     return { content: [{ type: "text", text: `No item ${sku}` }], isError: true };
 *   }
 *   return `${count} of ${sku} in stock`;
 * }
 * ```
 */
export type ToolReturn<O extends ObjectSchema | undefined> = [O] extends [ObjectSchema]
  ? ToolResult<Infer<O>>
  : string | ContentBlock[] | ToolResult;

/**
 * A tool. `inputSchema` is a plain JSON Schema literal; the handler's
 * argument type is inferred from it, and arguments are validated against it
 * before the handler runs.
 *
 * @example
 * ```ts
 * import { defineTool } from "@warden/mcp";
 * const add = defineTool({
 *   name: "add",
 *   description: "Adds two integers",
 *   inputSchema: {
 *     type: "object",
 *     properties: { a: { type: "integer" }, b: { type: "integer" } },
 *     required: ["a", "b"],
 *   },
 *   handler: ({ a, b }) => String(a + b),
 * });
 * ```
 */
export interface ToolDefinition<
  S extends ObjectSchema = ObjectSchema,
  O extends ObjectSchema | undefined = ObjectSchema | undefined,
> {
  /** Unique programmatic name: 1 to 128 of `A-Z a-z 0-9 _ . -`, e.g. `orders.get_v2`. */
  name: string;
  /** Human-readable name. */
  title?: string;
  /** Icons a client may show for the tool (revision 2025-11-25), published in tools/list. */
  icons?: readonly Icon[];
  /** Cache hints for the results that include it (revision 2026-07-28). */
  cache?: ItemCache;
  /** What the tool does, for the model. */
  description: string;
  /** JSON Schema of the arguments (type "object"). */
  inputSchema: S;
  /** JSON Schema of `structuredContent`, when the tool returns typed output. */
  outputSchema?: O;
  /** Behaviour hints. */
  annotations?: ToolAnnotations;
  /** Extension metadata, published in tools/list. */
  _meta?: Record<string, unknown>;
  /**
   * Whether a call may run as a task (revision 2026-07-28, tasks extension):
   * "optional" runs it as a task when the request declares the extension and
   * synchronously otherwise; "required" refuses (-32021) requests that do
   * not declare it. The handler is the same either way. Legacy sessions
   * have no tasks: every tool runs as a plain call there.
   * @default {"never"}
   */
  task?: "never" | "optional" | "required";
  /** Does the work. Throwing (or returning `isError: true`) reports a failed call to the model. */
  handler(args: Infer<S>, context: RequestContext): ToolReturn<O> | Promise<ToolReturn<O>>;
}

/**
 * Declares a tool with its handler's argument type inferred from the schema
 * literal (no `as const` needed). Use it to define tools in their own modules.
 *
 * @example
 * ```ts
 * import { defineTool } from "@warden/mcp";
 * export const greet = defineTool({
 *   name: "greet",
 *   description: "Greets someone",
 *   inputSchema: { type: "object", properties: { who: { type: "string" } }, required: ["who"] },
 *   handler: ({ who }) => `Hello, ${who}`,
 * });
 * ```
 */
export function defineTool<
  const S extends ObjectSchema,
  const O extends ObjectSchema | undefined = undefined,
>(definition: ToolDefinition<S, O>): ToolDefinition<S, O> {
  return definition;
}

/** A tool after registration: schemas compiled once, listing entry built once. */
export interface RegisteredTool {
  /** The definition as given. */
  readonly definition: ToolDefinition;
  /** Validates arguments. */
  readonly validate: Validator;
  /** Validates structured output, when an output schema is declared. */
  readonly validateOutput: Validator | undefined;
  /** The tools/list entry. */
  readonly listing: Readonly<Record<string, unknown>>;
  /** Parameters mirrored into `Mcp-Param-*` HTTP headers. */
  readonly headers: readonly MirroredParam[];
}

function listingOf(tool: ToolDefinition): Record<string, unknown> {
  const entry: Record<string, unknown> = { name: tool.name };
  if (tool.title !== undefined) entry.title = tool.title;
  entry.description = tool.description;
  entry.inputSchema = tool.inputSchema;
  if (tool.outputSchema !== undefined) entry.outputSchema = tool.outputSchema;
  if (tool.annotations !== undefined) entry.annotations = tool.annotations;
  if (tool.icons !== undefined) entry.icons = tool.icons;
  if (tool._meta !== undefined) entry._meta = tool._meta;
  return entry;
}

/**
 * The tool-name rule of revision 2025-11-25, applied under every revision so
 * a server's tools do not change with the client: names clients can show,
 * match and namespace without escaping.
 */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** A name as error messages show it: long ones cut, so the message stays readable. */
function shown(name: string): string {
  return name.length > 64 ? `${name.slice(0, 64)}…` : name;
}

/** Checks a definition and compiles its schemas; throws `TypeError` naming the tool. */
export function registerTool(tool: ToolDefinition): RegisteredTool {
  if (typeof tool !== "object" || tool === null) {
    throw new TypeError("Cannot register tool: expected a tool definition object");
  }
  if (typeof tool.name !== "string") {
    throw new TypeError("Cannot register tool: name must be a string");
  }
  const label = `Cannot register tool '${shown(tool.name)}'`;
  if (!TOOL_NAME.test(tool.name)) {
    throw new TypeError(`${label}: name must be 1 to 128 of A-Z a-z 0-9 _ . -`);
  }
  if (typeof tool.description !== "string") {
    throw new TypeError(`${label}: description must be a string`);
  }
  if (typeof tool.handler !== "function") {
    throw new TypeError(`${label}: handler must be a function`);
  }
  const schema: unknown = tool.inputSchema;
  if (typeof schema !== "object" || schema === null || tool.inputSchema.type !== "object") {
    throw new TypeError(`${label}: inputSchema must be a JSON Schema with type "object"`);
  }
  if (tool.task !== undefined && !TASK_SUPPORT.has(tool.task)) {
    throw new TypeError(`${label}: task must be "never", "optional" or "required"`);
  }
  checkIcons(tool.icons, label);
  checkItemCache(tool.cache, label);
  const validate = compileSchema(tool.inputSchema, { label: `${label}: inputSchema` });
  let validateOutput: Validator | undefined;
  if (tool.outputSchema !== undefined) {
    if (tool.outputSchema.type !== "object") {
      throw new TypeError(`${label}: outputSchema must be a JSON Schema with type "object"`);
    }
    validateOutput = compileSchema(tool.outputSchema, { label: `${label}: outputSchema` });
  }
  const headers = mirroredParams(tool.inputSchema, label);
  return {
    definition: tool,
    validate,
    validateOutput,
    listing: Object.freeze(listingOf(tool)),
    headers,
  };
}

/** Violations listed one per line in a validation-failure result; the rest are counted. */
const LISTED_VIOLATIONS = 20;

/**
 * The `isError` result for arguments that fail validation (revision
 * 2025-11-25, SEP-1303): every violation with its path, one per line, so
 * the model can correct its call and retry.
 */
function invalidArgumentsResult(
  name: string,
  violations: readonly { path: string; message: string }[],
): CallOutcome {
  const lines = violations.slice(0, LISTED_VIOLATIONS).map((v) => `- ${v.path}: ${v.message}`);
  if (violations.length > LISTED_VIOLATIONS) {
    lines.push(`- and ${violations.length - LISTED_VIOLATIONS} more`);
  }
  const message = `Invalid arguments for tool '${name}':\n${lines.join("\n")}`;
  return { status: "invalid", result: { content: [text(message)], isError: true } };
}

function summarize(violations: readonly { path: string; message: string }[]): string {
  const shown = violations.slice(0, 3).map((v) => `${v.path} ${v.message}`).join("; ");
  return violations.length > 3 ? `${shown}; and ${violations.length - 3} more` : shown;
}

function toolError(message: string): CallOutcome {
  return { status: "tool_error", result: { content: [text(message)], isError: true } };
}

/** Shapes what a handler returned into a tools/call result, or explains why it can't. */
function shapeResult(
  tool: RegisteredTool,
  value: unknown,
  log: (message: string) => void,
): CallOutcome {
  const name = tool.definition.name;
  const broken = (problem: string): CallOutcome => {
    log(`warden: tool '${name}' returned an invalid result: ${problem}`);
    return toolError(`Tool '${name}' returned an invalid result`);
  };
  if (typeof value === "string") return { status: "ok", result: { content: [text(value)] } };
  if (value === undefined || value === null) return { status: "ok", result: { content: [] } };
  if (Array.isArray(value)) {
    const problem = contentListProblem(value);
    return problem === undefined ? { status: "ok", result: { content: value } } : broken(problem);
  }
  if (!isRecord(value)) return broken(`a ${typeof value} is not a tool result`);
  const { content, structuredContent, isError, _meta } = value;
  if (content === undefined && structuredContent === undefined && isError === undefined) {
    return broken("an object needs 'content' or 'structuredContent'");
  }
  if (content !== undefined && !Array.isArray(content)) return broken("'content' must be an array");
  if (content !== undefined) {
    const problem = contentListProblem(content);
    if (problem !== undefined) return broken(problem);
  }
  if (structuredContent !== undefined && !isRecord(structuredContent)) {
    return broken("'structuredContent' must be an object");
  }
  if (isError !== undefined && typeof isError !== "boolean") {
    return broken("'isError' must be a boolean");
  }
  if (isError === true) {
    const result: Record<string, unknown> = { content: content ?? [], isError: true };
    if (_meta !== undefined) result._meta = _meta;
    return { status: "tool_error", result };
  }
  if (tool.validateOutput !== undefined) {
    if (structuredContent === undefined) {
      return broken("it declares an outputSchema but returned no 'structuredContent'");
    }
    const violations = tool.validateOutput(structuredContent);
    if (violations.length > 0) {
      log(
        `warden: tool '${name}' output does not match its outputSchema: ${summarize(violations)}`,
      );
      return toolError(
        `Tool '${name}' returned output that does not match its outputSchema: ${
          summarize(violations)
        }`,
      );
    }
  }
  const result: Record<string, unknown> = {
    // Older clients read only content: mirror typed output as JSON text for them.
    content: content !== undefined && content.length > 0
      ? content
      : structuredContent !== undefined
      ? [text(JSON.stringify(structuredContent))]
      : [],
  };
  if (structuredContent !== undefined) result.structuredContent = structuredContent;
  if (_meta !== undefined) result._meta = _meta;
  return { status: "ok", result };
}

/**
 * Validates the arguments, runs the handler and shapes its result. Invalid
 * arguments are -32602 with `data.violations`, except under revision
 * 2025-11-25 and later, where they are an `isError` result the model can
 * act on (SEP-1303). A thrown `RpcError` stays a protocol error; anything
 * else thrown is the call failing and becomes an `isError` result with the
 * error's message. A handler that answers synchronously is answered
 * synchronously (no promise is made); one that returns a promise gets the
 * same treatment once it settles.
 */
export function runTool(
  tool: RegisteredTool,
  args: Readonly<Record<string, unknown>>,
  context: RequestContext,
  log: (message: string) => void,
): CallOutcome | Promise<CallOutcome> {
  const name = tool.definition.name;
  const violations = tool.validate(args);
  if (violations.length > 0) {
    if (revisionAtLeast(context.client.protocolVersion, "2025-11-25")) {
      return invalidArgumentsResult(name, violations);
    }
    return invalidParams(
      `Invalid arguments for tool '${name}': ${summarize(violations)}`,
      violations,
    );
  }
  let value: unknown;
  try {
    // Validation above is what makes the inferred argument type true.
    value = tool.definition.handler(args as never, context);
  } catch (error) {
    return handlerFailed(tool, context, log, error);
  }
  if (!isThenable(value)) return shapeResult(tool, value, log);
  return Promise.resolve(value).then(
    (settled) => shapeResult(tool, settled, log),
    (error: unknown) => handlerFailed(tool, context, log, error),
  );
}

/** A handler's own promise (any thenable), as opposed to a value it returned. */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === "object" && value !== null && "then" in value &&
    typeof value.then === "function";
}

/** The outcome of a handler that threw (or rejected) with `error`. */
function handlerFailed(
  tool: RegisteredTool,
  context: RequestContext,
  log: (message: string) => void,
  error: unknown,
): CallOutcome {
  const name = tool.definition.name;
  if (context.aborted) return cancelledOutcome();
  if (error instanceof InputRequiredError) return inputRequiredOutcome();
  if (error instanceof RpcError) return errorOutcome(error);
  // The client reads the message as an isError result; the operator needs the stack.
  logThrown(log, `tool ${quote(name)}`, error);
  const message = error instanceof Error ? error.message : String(error);
  return toolError(message.length > 0 ? message : `Tool '${name}' failed`);
}
