/**
 * Prompts: definitions with typed arguments, registration, and getting one.
 *
 * @module
 */

import { checkItemCache, type ItemCache } from "./cache.ts";
import type { CallOutcome } from "../call/outcome.ts";
import type { RequestContext } from "./context.ts";
import { contentBlockProblem, type PromptMessage, text } from "./content.ts";
import { invalidParams, thrownOutcome } from "./outcome.ts";
import { ErrorCode, RpcError } from "../jsonrpc/errors.ts";
import type { Completer } from "./completion.ts";
import { checkIcons, type Icon } from "./lifecycle.ts";

/**
 * One argument a prompt takes; values always arrive as strings.
 *
 * @example A required argument with suggestions for `completion/complete`
 * ```ts
 * import type { PromptArgument } from "@warden/mcp";
 * const languages = ["go", "python", "rust", "typescript"];
 * const language: PromptArgument = {
 *   name: "language",
 *   title: "Language",
 *   description: "The language the code is written in",
 *   required: true,
 *   complete: (typed) => languages.filter((name) => name.startsWith(typed)),
 * };
 * ```
 */
export interface PromptArgument {
  /** Suggests values for `completion/complete`; never published. */
  readonly complete?: Completer;
  /** The argument's name. */
  readonly name: string;
  /** Human-readable name. */
  readonly title?: string;
  /** What to pass. */
  readonly description?: string;
  /** Whether the client must pass it. */
  readonly required?: boolean;
}

/**
 * What `get` may return: one user message as text, a list of messages, or both with a description.
 *
 * @example A conversation that primes the model before the user's question
 * ```ts
 * import type { PromptReturn } from "@warden/mcp";
 * function triage(ticket: string): PromptReturn {
 *   return {
 *     description: "Triage a support ticket",
 *     messages: [
 *       { role: "user", content: { type: "text", text: `Ticket:\n${ticket}` } },
 *       { role: "assistant", content: { type: "text", text: "Read it. What should I decide?" } },
 *       { role: "user", content: { type: "text", text: "Its severity, and which team owns it." } },
 *     ],
 *   };
 * }
 * ```
 */
export type PromptReturn =
  | string
  | PromptMessage[]
  | { description?: string; messages: PromptMessage[] };

/**
 * A prompt template. Required arguments are checked before `get` runs.
 *
 * @example
 * ```ts
 * import { definePrompt } from "@warden/mcp";
 * const review = definePrompt({
 *   name: "review",
 *   description: "Review a file",
 *   arguments: [{ name: "path", required: true }],
 *   get: ({ path }) => `Please review ${path}`,
 * });
 * ```
 */
export interface PromptDefinition<A extends readonly PromptArgument[] = readonly PromptArgument[]> {
  /** Unique programmatic name. */
  name: string;
  /** Human-readable name. */
  title?: string;
  /** Icons a client may show for it (revision 2025-11-25), published in prompts/list. */
  icons?: readonly Icon[];
  /** Cache hints for the results that include it (revision 2026-07-28). */
  cache?: ItemCache;
  /** What the prompt is for. */
  description?: string;
  /** The arguments it takes. */
  arguments?: A;
  /** Extension metadata. */
  _meta?: Record<string, unknown>;
  /**
   * Builds the messages. `args` is typed from the argument list: required
   * arguments are strings, the others strings or absent.
   */
  get(
    args:
      & { [K in A[number] as K extends { required: true } ? K["name"] : never]: string }
      & { [K in A[number] as K extends { required: true } ? never : K["name"]]?: string },
    context: RequestContext,
  ): PromptReturn | Promise<PromptReturn>;
}

/**
 * Declares a prompt with its `get` arguments typed from the argument list.
 *
 * @example
 * ```ts
 * import { definePrompt } from "@warden/mcp";
 * export const hello = definePrompt({
 *   name: "hello",
 *   arguments: [{ name: "who", required: true }],
 *   get: ({ who }) => `Say hello to ${who}`,
 * });
 * ```
 */
export function definePrompt<const A extends readonly PromptArgument[] = readonly []>(
  definition: PromptDefinition<A>,
): PromptDefinition<A> {
  return definition;
}

/** A prompt after registration. */
export interface RegisteredPrompt {
  /** The definition as given. */
  readonly definition: PromptDefinition;
  /** The prompts/list entry. */
  readonly listing: Readonly<Record<string, unknown>>;
}

/** Checks a definition; throws `TypeError` naming the prompt. */
export function registerPrompt(prompt: PromptDefinition): RegisteredPrompt {
  if (typeof prompt !== "object" || prompt === null) {
    throw new TypeError("Cannot register prompt: expected a prompt definition object");
  }
  if (typeof prompt.name !== "string" || prompt.name.length === 0) {
    throw new TypeError("Cannot register prompt: name must be a non-empty string");
  }
  const label = `Cannot register prompt '${prompt.name}'`;
  if (typeof prompt.get !== "function") throw new TypeError(`${label}: get must be a function`);
  const seen = new Set<string>();
  for (const arg of prompt.arguments ?? []) {
    if (typeof arg?.name !== "string" || arg.name.length === 0) {
      throw new TypeError(`${label}: every argument needs a non-empty name`);
    }
    if (seen.has(arg.name)) {
      throw new TypeError(`${label}: argument '${arg.name}' is declared twice`);
    }
    if (arg.complete !== undefined && typeof arg.complete !== "function") {
      throw new TypeError(`${label}: the completer of argument '${arg.name}' must be a function`);
    }
    seen.add(arg.name);
  }
  checkIcons(prompt.icons, label);
  checkItemCache(prompt.cache, label);
  const listing: Record<string, unknown> = { name: prompt.name };
  if (prompt.title !== undefined) listing.title = prompt.title;
  if (prompt.description !== undefined) listing.description = prompt.description;
  if (prompt.arguments !== undefined) {
    listing.arguments = prompt.arguments.map(({ complete: _complete, ...published }) => published);
  }
  if (prompt.icons !== undefined) listing.icons = prompt.icons;
  if (prompt._meta !== undefined) listing._meta = prompt._meta;
  return { definition: prompt, listing: Object.freeze(listing) };
}

/** Checks the client's arguments: strings only, required ones present. Undeclared ones are dropped. */
function checkArguments(
  prompt: PromptDefinition,
  args: Readonly<Record<string, unknown>>,
): { args: Record<string, string> } | { outcome: CallOutcome } {
  const checked: Record<string, string> = {};
  const violations: { path: string; message: string }[] = [];
  for (const declared of prompt.arguments ?? []) {
    const value = Object.hasOwn(args, declared.name) ? args[declared.name] : undefined;
    const path = `$.${declared.name}`;
    if (value === undefined) {
      if (declared.required === true) violations.push({ path, message: "is required" });
    } else if (typeof value !== "string") {
      violations.push({ path, message: "must be string" });
    } else {
      checked[declared.name] = value;
    }
  }
  if (violations.length === 0) return { args: checked };
  const summary = violations.map((v) => `${v.path} ${v.message}`).join("; ");
  return {
    outcome: invalidParams(`Invalid arguments for prompt '${prompt.name}': ${summary}`, violations),
  };
}

function messagesOf(value: PromptReturn): { description?: string; messages: unknown } {
  if (typeof value === "string") return { messages: [{ role: "user", content: text(value) }] };
  if (Array.isArray(value)) return { messages: value };
  return value;
}

function messageProblem(messages: unknown): string | undefined {
  if (!Array.isArray(messages)) return "messages must be an array";
  for (let i = 0; i < messages.length; i++) {
    const message: unknown = messages[i];
    if (typeof message !== "object" || message === null) return `message ${i} is not an object`;
    const { role, content } = message as { role?: unknown; content?: unknown };
    if (role !== "user" && role !== "assistant") return `message ${i} has an unknown role`;
    const problem = contentBlockProblem(content);
    if (problem !== undefined) return `message ${i} content ${problem}`;
  }
  return undefined;
}

/** Checks arguments, runs `get` and shapes a prompts/get result. */
export async function getPrompt(
  prompt: RegisteredPrompt,
  args: Readonly<Record<string, unknown>>,
  context: RequestContext,
  log: (message: string) => void,
): Promise<CallOutcome> {
  const { definition } = prompt;
  const checked = checkArguments(definition, args);
  if ("outcome" in checked) return checked.outcome;
  let value: PromptReturn;
  try {
    value = await definition.get(checked.args as never, context);
  } catch (error) {
    return thrownOutcome(error, context.signal, `getting prompt '${definition.name}'`, log);
  }
  const { description, messages } = messagesOf(value);
  const problem = messageProblem(messages);
  if (problem !== undefined) {
    log(`warden: prompt '${definition.name}' returned an invalid result: ${problem}`);
    return {
      status: "internal_error",
      error: new RpcError(ErrorCode.InternalError, "Internal error"),
    };
  }
  const result: Record<string, unknown> = { messages };
  const described = description ?? definition.description;
  if (described !== undefined) result.description = described;
  return { status: "ok", result };
}
