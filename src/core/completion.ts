/**
 * `completion/complete`: argument suggestions for prompts and resource
 * templates, from completers declared next to the argument.
 *
 * @module
 */

import { isRecord } from "../jsonrpc/messages.ts";
import { invalidParamsError } from "../jsonrpc/errors.ts";

/** The rest of the call a completion is for. */
export interface CompletionContext {
  /** Arguments the user already filled in. */
  readonly arguments: Readonly<Record<string, string>>;
}

/**
 * Suggests values for one argument from what the user typed so far. Return
 * as many as you like: the server sends the first 100 with `total` and
 * `hasMore`.
 *
 * @example Cities, narrowed by the country the user already chose
 * ```ts
 * import type { Completer } from "@warden/mcp";
 * const cities: Record<string, readonly string[]> = {
 *   FR: ["Lyon", "Paris", "Marseille"],
 *   DE: ["Berlin", "Hamburg", "Munich"],
 * };
 * const completeCity: Completer = (typed, { arguments: given }) =>
 *   (cities[given.country ?? ""] ?? Object.values(cities).flat())
 *     .filter((city) => city.toLowerCase().startsWith(typed.toLowerCase()));
 * ```
 */
export type Completer = (
  value: string,
  context: {
    /** Arguments the user already filled in. */
    readonly arguments: Readonly<Record<string, string>>;
  },
) => readonly string[] | Promise<readonly string[]>;

/** The most values one completion result carries, per the specification. */
export const MAX_COMPLETION_VALUES = 100;

/** What a completion request asks for, checked. */
export interface CompletionRequest {
  /** A prompt (by name) or a resource template (by its template string). */
  readonly ref: { readonly type: "ref/prompt"; readonly name: string } | {
    readonly type: "ref/resource";
    readonly uri: string;
  };
  /** The argument being completed and what was typed. */
  readonly argument: { readonly name: string; readonly value: string };
  /** Other arguments already given. */
  readonly context: CompletionContext;
}

/** Parses `completion/complete` params; throws -32602 for a bad shape. */
export function parseCompletionRequest(
  params: Readonly<Record<string, unknown>>,
): CompletionRequest {
  const { ref, argument, context } = params;
  if (!isRecord(ref)) throw invalidParamsError("ref must be an object");
  if (
    !isRecord(argument) || typeof argument.name !== "string" || typeof argument.value !== "string"
  ) {
    throw invalidParamsError("argument must be { name, value } with string values");
  }
  // No prototype: a completer reading `context.arguments.constructor` gets only what was sent.
  const given: Record<string, string> = Object.create(null);
  if (isRecord(context) && isRecord(context.arguments)) {
    for (const [key, value] of Object.entries(context.arguments)) {
      if (typeof value === "string") given[key] = value;
    }
  }
  const parsedArgument = { name: argument.name, value: argument.value };
  if (ref.type === "ref/prompt" && typeof ref.name === "string") {
    return {
      ref: { type: "ref/prompt", name: ref.name },
      argument: parsedArgument,
      context: { arguments: given },
    };
  }
  if (ref.type === "ref/resource" && typeof ref.uri === "string") {
    return {
      ref: { type: "ref/resource", uri: ref.uri },
      argument: parsedArgument,
      context: { arguments: given },
    };
  }
  throw invalidParamsError(
    'ref must be { type: "ref/prompt", name } or { type: "ref/resource", uri }',
  );
}

/** Runs a completer (or none) and shapes the result, capped at 100 values. */
export async function complete(
  completer: Completer | undefined,
  request: CompletionRequest,
): Promise<Record<string, unknown>> {
  if (completer === undefined) {
    return { completion: { values: [], total: 0, hasMore: false } };
  }
  const values = await completer(request.argument.value, request.context);
  if (!Array.isArray(values) || !values.every((v) => typeof v === "string")) {
    throw new TypeError(
      `The completer for '${request.argument.name}' did not return a list of strings`,
    );
  }
  return {
    completion: {
      values: values.slice(0, MAX_COMPLETION_VALUES),
      total: values.length,
      hasMore: values.length > MAX_COMPLETION_VALUES,
    },
  };
}
