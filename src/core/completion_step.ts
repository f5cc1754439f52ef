/**
 * The last step of a `completion/complete`: once the guardrails let the
 * call through, find the prompt argument's or template variable's
 * completer and run it; a completer that throws is logged, not sent.
 *
 * @module
 */

import { ErrorCode, quote, RpcError } from "../jsonrpc/errors.ts";
import type { Mask } from "../call/mask.ts";
import type { CallNext } from "../call/outcome.ts";
import { complete, type Completer, type CompletionRequest } from "./completion.ts";
import { logThrown, notFound } from "./outcome.ts";
import type { Registry } from "./registry.ts";

/** The step that completes `request` on the prompt or template `name`. */
export function completionStep(
  registry: Registry,
  request: CompletionRequest,
  isPrompt: boolean,
  name: string,
  mask: Mask | undefined,
  log: (message: string) => void,
): CallNext {
  return async () => {
    let completer: Completer | undefined;
    if (isPrompt) {
      const prompt = registry.prompts.get(name);
      if (prompt === undefined) return notFound("prompt", name, mask);
      completer = prompt.definition.arguments?.find((a) => a.name === request.argument.name)
        ?.complete;
    } else {
      const template = registry.templates.get(name);
      if (template === undefined) return notFound("resource template", name, mask);
      const completers = template.definition.complete;
      completer = completers !== undefined && Object.hasOwn(completers, request.argument.name)
        ? completers[request.argument.name]
        : undefined;
    }
    try {
      return { status: "ok", result: await complete(completer, request) };
    } catch (error) {
      if (error instanceof RpcError) return { status: "error", error };
      logThrown(log, `completing ${quote(name)}`, error);
      return {
        status: "internal_error",
        error: new RpcError(ErrorCode.InternalError, "Internal error"),
      };
    }
  };
}
