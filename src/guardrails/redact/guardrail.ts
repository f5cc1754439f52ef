/**
 * The redaction guardrail: masks secrets in everything a guarded call sends
 * back — result content, structured content, resource contents, prompt
 * messages and error messages — while leaving protocol fields (ids, types,
 * MIME types, the URIs the client asked for) alone.
 *
 * @module
 */

import { isRecord } from "../../jsonrpc/messages.ts";
import { type CallOutcome, isPending } from "../../call/outcome.ts";
import type { GuardedCall } from "../../call/context.ts";
import type { Guardrail } from "../../call/guardrail.ts";
import { markMasked, type Mask } from "../../call/mask.ts";
import { compileRedactor, type Redactor, type RedactorOptions, redactText } from "./engine.ts";
import { redactContent, redactValue } from "./value.ts";
import { compiledOf } from "./engine.ts";
import { maskSplits } from "./split.ts";
import { type MaskedTexts, startRecording, stopRecording } from "./memo.ts";
import { RpcError } from "../../jsonrpc/errors.ts";

/**
 * Key rules only see parsed data, so JSON carried as text (structured output
 * mirrored for old clients, JSON resources) is parsed, masked and written
 * back when it changes; the indentation style is kept.
 */
function redactJsonText(redactor: Redactor, text: string): string {
  // JSON may start with spaces, tabs and line breaks, and nothing else.
  let at = 0;
  for (let code = text.charCodeAt(0); code === 32 || code === 9 || code === 10 || code === 13;) {
    code = text.charCodeAt(++at);
  }
  const first = text[at];
  if (first !== "{" && first !== "[") return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  const masked = redactValue(redactor, parsed);
  if (masked === parsed) return text;
  return text.includes("\n") ? JSON.stringify(masked, null, 2) : JSON.stringify(masked);
}

function redactJsonBlocks(redactor: Redactor, blocks: readonly unknown[]): readonly unknown[] {
  let copy: unknown[] | undefined;
  for (let index = 0; index < blocks.length; index++) {
    const block = blocks[index];
    let next = block;
    if (isRecord(block)) {
      if (block.type === "resource_link") {
        // A link's words and its URI can carry secrets too: everything written is masked.
        const masked = { ...block };
        for (const key of ["title", "description", "name", "uri"] as const) {
          const value = block[key];
          if (typeof value === "string") masked[key] = redactText(redactor, value);
        }
        if (
          masked.title !== block.title || masked.description !== block.description ||
          masked.name !== block.name || masked.uri !== block.uri
        ) {
          next = masked;
        }
      } else if (typeof block.text === "string") {
        const text = redactJsonText(redactor, block.text);
        if (text !== block.text) next = { ...block, text };
      } else if (isRecord(block.resource) && typeof block.resource.text === "string") {
        const text = redactJsonText(redactor, block.resource.text);
        if (text !== block.resource.text) {
          next = { ...block, resource: { ...block.resource, text } };
        }
      }
    }
    if (copy === undefined && next !== block) copy = blocks.slice(0, index);
    copy?.push(next);
  }
  return copy ?? blocks;
}

function redactBlocks(redactor: Redactor, blocks: unknown): unknown {
  if (!Array.isArray(blocks)) return blocks;
  return redactContent(redactor, redactJsonBlocks(redactor, blocks));
}

/**
 * How many secrets the last `redactResult` found split across two parts (the
 * guardrail reads it right after, synchronously: no per-call object).
 */
let lastSplit = 0;

/**
 * Outcomes whose result held a secret split across two adjacent parts, and how many: the audit
 * log records it as `redaction.split_secrets` (internal to the guardrails).
 */
export const splitSecrets: WeakMap<CallOutcome, number> = new WeakMap();

/** Text blocks with secrets split across two adjacent ones masked in both. */
function splitBlocks(redactor: Redactor, blocks: unknown): unknown {
  if (!Array.isArray(blocks) || blocks.length < 2) return blocks;
  const parts = blocks.map((block) =>
    isRecord(block) && block.type === "text" && typeof block.text === "string"
      ? block.text
      : undefined
  );
  const split = maskSplits(compiledOf(redactor), redactor.mask, parts);
  lastSplit += split;
  let copy: unknown[] | undefined;
  parts.forEach((text, index) => {
    const block = blocks[index];
    if (text === undefined || !isRecord(block) || text === block.text) return;
    copy ??= [...blocks];
    copy[index] = { ...block, text };
  });
  return copy ?? blocks;
}

/** Adjacent string fields and items of `value`, at every level, with split secrets masked. */
function splitFields(redactor: Redactor, value: unknown, depth = 0): unknown {
  if (typeof value !== "object" || value === null || depth > redactor.maxDepth) return value;
  const array = Array.isArray(value);
  const items: unknown[] = array ? value : Object.values(value);
  // Most objects hold fewer than two strings and nothing nested: nothing can be split there.
  let strings = 0;
  let containers = 0;
  for (const item of items) {
    if (typeof item === "string") strings++;
    else if (typeof item === "object" && item !== null) containers++;
  }
  if (strings < 2 && containers === 0) return value;
  const keys = array ? [] : Object.keys(value);
  const nested = items.map((item) => splitFields(redactor, item, depth + 1));
  const parts = nested.map((item) => typeof item === "string" ? item : undefined);
  if (parts.filter((part) => part !== undefined).length >= 2) {
    lastSplit += maskSplits(compiledOf(redactor), redactor.mask, parts);
  }
  const next = nested.map((item, index) => parts[index] ?? item);
  if (next.every((item, index) => Object.is(item, items[index]))) return value;
  return array ? next : Object.fromEntries(keys.map((key, index) => [key, next[index]]));
}

/** Masks one result by what kind of call produced it; the result itself when nothing changed. */
export function redactResult(
  redactor: Redactor,
  kind: GuardedCall["kind"],
  result: Record<string, unknown>,
): Record<string, unknown> {
  let masked = result;
  if (isRecord(result.completion)) {
    // completion/complete, on a prompt or a template: its values are the completer's output.
    const completion = redactValue(redactor, result.completion);
    if (completion !== result.completion) masked = { ...result, completion };
    // Only a result with nothing else to mask stops here: a `completion` field beside a
    // tool's content or a resource's contents must not let them out unmasked.
    if (
      result.content === undefined && result.contents === undefined &&
      result.messages === undefined && result.structuredContent === undefined
    ) return masked;
  }
  return redactByKind(redactor, kind, masked);
}

/** Masks a tool's, a resource's or a prompt's result; the result itself when nothing changed. */
function redactByKind(
  redactor: Redactor,
  kind: GuardedCall["kind"],
  result: Record<string, unknown>,
): Record<string, unknown> {
  switch (kind) {
    case "tool": {
      lastSplit = 0;
      // Splits first, on what the handler wrote: a part masked on its own hides the seam.
      const content = redactBlocks(redactor, splitBlocks(redactor, result.content));
      const structured = result.structuredContent;
      const masked = structured === undefined
        ? undefined
        : redactValue(redactor, splitFields(redactor, structured));
      if (content === result.content && masked === structured) return result;
      const copy: Record<string, unknown> = { ...result, content };
      if (structured !== undefined) copy.structuredContent = masked;
      return copy;
    }
    case "resource": {
      lastSplit = 0;
      const contents = redactBlocks(redactor, result.contents);
      return contents === result.contents ? result : { ...result, contents };
    }
    case "prompt": {
      lastSplit = 0;
      const copy = { ...result };
      if (Array.isArray(result.messages)) {
        copy.messages = result.messages.map((message: unknown) => {
          if (!isRecord(message)) return message;
          const [content] = redactContent(redactor, redactJsonBlocks(redactor, [message.content]));
          return content === message.content ? message : { ...message, content };
        });
      }
      if (typeof result.description === "string") {
        copy.description = redactText(redactor, result.description);
      }
      return copy;
    }
  }
}

/**
 * The large texts the redaction step masked in a call's result, by the
 * outcome it returned: the audit log reads them back while it masks the
 * same call's entry (memo.ts). Weak: a record lives as long as its outcome.
 */
export const maskedTexts: WeakMap<CallOutcome, MaskedTexts> = new WeakMap();

/**
 * Masks an outcome: the result, or the error's message and data; the outcome
 * itself when unchanged. The large texts masked are kept in
 * {@linkcode maskedTexts} under the outcome returned.
 */
export function redactOutcome(
  redactor: Redactor,
  kind: GuardedCall["kind"],
  outcome: CallOutcome,
): CallOutcome {
  const outer = startRecording(compiledOf(redactor), redactor.mask);
  let masked: CallOutcome;
  let record: MaskedTexts | undefined;
  try {
    masked = maskByKind(redactor, kind, outcome);
  } finally {
    record = stopRecording(outer);
  }
  if (record !== undefined) maskedTexts.set(masked, record);
  return masked;
}

function maskByKind(
  redactor: Redactor,
  kind: GuardedCall["kind"],
  outcome: CallOutcome,
): CallOutcome {
  if ("result" in outcome) {
    const result = redactResult(redactor, kind, outcome.result);
    return result === outcome.result ? outcome : { status: outcome.status, result };
  }
  const { error } = outcome;
  const message = redactText(redactor, error.message);
  const data = error.data === undefined ? undefined : redactValue(redactor, error.data);
  if (message === error.message && data === error.data) return outcome;
  return { status: outcome.status, error: new RpcError(error.code, message, data) };
}

/**
 * The generic mask over a compiled redactor: every string leaf and object
 * key of a value, whatever it is (the audit log masks its entries with it).
 */
export function redactorMask(redactor: Redactor): Mask {
  return function mask<T>(value: T): T {
    // redactValue keeps the JSON shape; only string leaves and keys change.
    return redactValue(redactor, value) as T;
  };
}

/**
 * Creates the redaction guardrail. Options are checked now: a bad pattern
 * throws here, at start-up, not on the first call. It masks call results by
 * kind in its step, leaving protocol fields alone, and contributes its
 * {@linkcode Mask} to the server's masker, which everything else the server
 * sends passes (notifications, diagnostics, requests to the client, audit
 * entries); object keys are masked as well as values.
 *
 * @example Masking the order desk's own API keys on top of the presets
 * ```ts
 * import { createServer } from "@warden/mcp";
 * import { redaction } from "@warden/mcp/guardrails";
 * const server = createServer({
 *   name: "desk",
 *   version: "1.0.0",
 *   guardrails: [redaction({ patterns: ["ODK-[A-Za-z0-9]{24,}"] })],
 * });
 * ```
 */
export function redaction(options: RedactorOptions = {}): Guardrail {
  return redactionWith(compileRedactor(options));
}

/** What the redaction step hands back for `outcome`: masked by kind, its error marked masked. */
function maskOutcome(redactor: Redactor, call: GuardedCall, outcome: CallOutcome): CallOutcome {
  lastSplit = 0;
  const masked = redactOutcome(redactor, call.kind, outcome);
  if (lastSplit > 0) splitSecrets.set(masked, lastSplit);
  // Masked here once: the server's last step must not mask the error again.
  if ("error" in masked) markMasked(masked.error);
  return masked;
}

/**
 * The redaction guardrail over a redactor compiled already, so that
 * `createGuardrails()` can give the audit log the same rules without
 * compiling them twice.
 */
export function redactionWith(redactor: Redactor): Guardrail {
  return {
    name: "redaction",
    stage: "redact",
    // Not async: a call answered synchronously is masked and handed back synchronously.
    run(call, next) {
      const outcome = next(call);
      if (isPending(outcome)) {
        return outcome.then((settled) => maskOutcome(redactor, call, settled));
      }
      return maskOutcome(redactor, call, outcome);
    },
    mask: redactorMask(redactor),
  };
}
