/**
 * What a handler can ask of the client (sampling, elicitation, roots) as
 * era-neutral "asks": the request to send, the capability it needs, and the
 * check of the answer. The legacy era sends an ask as a server → client
 * request; revision 2026-07-28 puts it in an `InputRequiredResult` and reads
 * the answer from the retry's `inputResponses`.
 *
 * @module
 */

import { isRecord } from "../jsonrpc/messages.ts";
import {
  checkElicitSchema,
  type ElicitContent,
  type ElicitResult,
  type ElicitSchema,
} from "./elicitation_forms.ts";
import type { ContentBlock } from "./content.ts";
import { revisionAtLeast } from "./lifecycle.ts";
import { MissingCapabilityError } from "./ask_errors.ts";

/**
 * One message of a sampling conversation.
 *
 * @example A question with a screenshot attached
 * ```ts
 * import type { SamplingMessage } from "@warden/mcp";
 * const screenshot = "iVBORw0KGgo="; // base64 PNG data
 * const messages: SamplingMessage[] = [
 *   { role: "user", content: { type: "text", text: "What error does this dialog show?" } },
 *   { role: "user", content: { type: "image", data: screenshot, mimeType: "image/png" } },
 * ];
 * ```
 */
export interface SamplingMessage {
  /** Who speaks it. */
  role: "user" | "assistant";
  /** Text, image or audio. */
  content: ContentBlock;
}

/**
 * What a handler asks the client's model for (`sampling/createMessage`).
 *
 * @example A short, deterministic summary from the client's model
 * ```ts
 * import type { RequestContext, SamplingRequest } from "@warden/mcp";
 * async function summarise(ctx: RequestContext, notes: string): Promise<string> {
 *   const request: SamplingRequest = {
 *     messages: [{ role: "user", content: { type: "text", text: notes } }],
 *     systemPrompt: "Summarise support notes in one sentence.",
 *     maxTokens: 200,
 *     temperature: 0,
 *     modelPreferences: { speedPriority: 0.8 },
 *   };
 *   const result = await ctx.sample(request);
 *   return result.content.type === "text" ? result.content.text : "";
 * }
 * ```
 */
export interface SamplingRequest {
  /** The conversation so far. */
  messages: SamplingMessage[];
  /** The most tokens to generate. */
  maxTokens: number;
  /** A system prompt the client may use. */
  systemPrompt?: string;
  /** Which context the client should include. */
  includeContext?: "none" | "thisServer" | "allServers";
  /** Sampling temperature. */
  temperature?: number;
  /** Sequences that stop generation. */
  stopSequences?: string[];
  /** Hints for choosing a model. */
  modelPreferences?: Record<string, unknown>;
  /** Provider-specific metadata. */
  metadata?: Record<string, unknown>;
}

/**
 * The client's answer to a sampling request.
 *
 * @example Keeping the text of an answer, and noting a cut-off one
 * ```ts
 * import type { SamplingResult } from "@warden/mcp";
 * function answerText(result: SamplingResult): string {
 *   const text = result.content.type === "text" ? result.content.text : "";
 *   return result.stopReason === "maxTokens" ? `${text} [cut off by ${result.model}]` : text;
 * }
 * ```
 */
export interface SamplingResult {
  /** Always "assistant" in practice. */
  role: "user" | "assistant";
  /** What the model produced. */
  content: ContentBlock;
  /** The model that produced it. */
  model: string;
  /** Why generation stopped. */
  stopReason?: string;
}

/**
 * The client's answer to a URL elicitation (revision 2025-11-25). "accept"
 * means only that the user agreed to open the URL: the interaction itself
 * happens out of band, and `complete()` tells the client when it is done.
 *
 * @example Usage
 * ```ts
 * import type { UrlElicitation } from "@warden/mcp";
 * function finish(pending: UrlElicitation): void {
 *   if (pending.action === "accept") pending.complete();
 * }
 * ```
 */
export interface UrlElicitation {
  /** What the user did with the request to open the URL. */
  readonly action: "accept" | "decline" | "cancel";
  /** The id the request carried: put it in the URL to recognise the user's visit. */
  readonly elicitationId: string;
  /**
   * Sends `notifications/elicitation/complete` for this id, so the client can
   * go on (e.g. retry the call); only the first call sends.
   */
  complete(): void;
}

/**
 * A root the client exposes.
 *
 * @example Keeping file access inside the client's roots
 * ```ts
 * import type { Root } from "@warden/mcp";
 * function insideRoots(roots: readonly Root[], absolutePath: string): boolean {
 *   const target = new URL(absolutePath, "file:///").href;
 *   return roots.some(({ uri }) => {
 *     const folder = uri.endsWith("/") ? uri : `${uri}/`;
 *     return target === uri || target.startsWith(folder);
 *   });
 * }
 * ```
 */
export interface Root {
  /** A `file://` URI. */
  uri: string;
  /** A display name. */
  name?: string;
}

/** One request to the client and how to read its answer. */
export interface ClientAsk<T> {
  /** The request method, e.g. `sampling/createMessage`. */
  readonly method: string;
  /** Its params. */
  readonly params: Record<string, unknown>;
  /** Checks the client's result and turns it into what the handler gets. */
  parse(result: Record<string, unknown>): T;
}

const CONTENT_TYPES: ReadonlySet<unknown> = new Set(["text", "image", "audio"]);

/** Whether the client declared a capability (e.g. "sampling"). */
export function declares(capabilities: Readonly<Record<string, unknown>>, name: string): boolean {
  return Object.hasOwn(capabilities, name) && isRecord(capabilities[name]);
}

/** A `sampling/createMessage` ask; throws when the client cannot sample or the request is bad. */
export function samplingAsk(
  capabilities: Readonly<Record<string, unknown>>,
  request: SamplingRequest,
): ClientAsk<SamplingResult> {
  if (!declares(capabilities, "sampling")) throw new MissingCapabilityError("sampling");
  if (
    !Array.isArray(request.messages) || !Number.isInteger(request.maxTokens) ||
    request.maxTokens < 1
  ) {
    throw new TypeError(
      "Invalid sampling request: needs messages and a positive integer maxTokens",
    );
  }
  return {
    method: "sampling/createMessage",
    params: { ...request },
    parse(result) {
      const { role, content, model, stopReason } = result;
      if (
        (role !== "user" && role !== "assistant") || !isRecord(content) ||
        !CONTENT_TYPES.has(content.type) || typeof model !== "string"
      ) {
        throw new Error("The client answered sampling/createMessage with a malformed result");
      }
      const answer: SamplingResult = { role, content: content as unknown as ContentBlock, model };
      if (typeof stopReason === "string") answer.stopReason = stopReason;
      return answer;
    },
  };
}

/** The elicitation modes the client declared, read as `version` defines them. */
export function elicitationModes(
  capabilities: Readonly<Record<string, unknown>>,
  version: string,
): { form: boolean; url: boolean } {
  const declared = capabilities.elicitation;
  if (!isRecord(declared)) return { form: false, url: false };
  // Before 2025-11-25 there are no modes: the capability means forms.
  if (!revisionAtLeast(version, "2025-11-25")) return { form: true, url: false };
  const named = declared.form !== undefined || declared.url !== undefined;
  // An empty object keeps its old meaning, forms only.
  return { form: named ? isRecord(declared.form) : true, url: isRecord(declared.url) };
}

/**
 * An `elicitation/create` ask for a form (with `mode: "form"` from revision
 * 2025-11-25 on); an accepted answer is validated against the form.
 */
export function elicitAsk<S extends ElicitSchema>(
  capabilities: Readonly<Record<string, unknown>>,
  version: string,
  message: string,
  requestedSchema: S,
): ClientAsk<ElicitResult<S>> {
  const validate = checkElicitSchema(requestedSchema);
  if (!declares(capabilities, "elicitation")) throw new MissingCapabilityError("elicitation");
  if (!elicitationModes(capabilities, version).form) {
    throw new MissingCapabilityError("elicitation.form");
  }
  return {
    method: "elicitation/create",
    params: revisionAtLeast(version, "2025-11-25")
      ? { mode: "form", message, requestedSchema }
      : { message, requestedSchema },
    parse(result) {
      const action = result.action;
      if (action === "decline" || action === "cancel") return { action };
      if (action !== "accept") {
        throw new Error("The client answered elicitation/create with an unknown action");
      }
      const content = result.content ?? {};
      const violations = validate(content);
      if (violations.length > 0) {
        const detail = violations.map((v) => `${v.path} ${v.message}`).join("; ");
        throw new Error(`The client's elicitation answer does not match the form: ${detail}`);
      }
      // Validation against the form is what makes the inferred type true.
      return { action, content: content as ElicitContent<S> };
    },
  };
}

/** What a URL elicitation sends besides the message. */
export interface UrlElicitationRequest {
  /** The URL, or a function building it from the elicitation id. */
  readonly url: string | ((elicitationId: string) => string);
  /** The id to use instead of a fresh random one. */
  readonly elicitationId?: string;
}

/**
 * A URL-mode `elicitation/create` ask (revision 2025-11-25 on): the user is
 * asked to open a URL and do something there, out of band. The id is a
 * fresh random UUID unless one is given; `withId` says whether the revision
 * sends it (2026-07-28 dropped `elicitationId` from the wire).
 */
export function urlElicitAsk(
  capabilities: Readonly<Record<string, unknown>>,
  version: string,
  message: string,
  request: UrlElicitationRequest,
  withId: boolean,
): ClientAsk<"accept" | "decline" | "cancel"> & { readonly elicitationId: string } {
  if (!elicitationModes(capabilities, version).url) {
    throw new MissingCapabilityError("elicitation.url");
  }
  const elicitationId = request.elicitationId ?? crypto.randomUUID();
  if (typeof elicitationId !== "string" || elicitationId.length === 0) {
    throw new TypeError("Invalid URL elicitation: elicitationId must be a non-empty string");
  }
  const url = typeof request.url === "function" ? request.url(elicitationId) : request.url;
  if (typeof url !== "string" || !URL.canParse(url)) {
    throw new TypeError(
      `Invalid URL elicitation: url must be an absolute URL (got ${String(url)})`,
    );
  }
  return {
    method: "elicitation/create",
    params: withId ? { mode: "url", message, url, elicitationId } : { mode: "url", message, url },
    elicitationId,
    parse(result) {
      const action = result.action;
      if (action !== "accept" && action !== "decline" && action !== "cancel") {
        throw new Error("The client answered elicitation/create with an unknown action");
      }
      return action;
    },
  };
}

/** A `roots/list` ask. */
export function rootsAsk(capabilities: Readonly<Record<string, unknown>>): ClientAsk<Root[]> {
  if (!declares(capabilities, "roots")) throw new MissingCapabilityError("roots");
  return {
    method: "roots/list",
    params: {},
    parse(result) {
      const roots = result.roots;
      if (!Array.isArray(roots)) {
        throw new Error("The client answered roots/list without a roots list");
      }
      return roots.filter((root): root is Root => isRecord(root) && typeof root.uri === "string")
        .map((root) =>
          typeof root.name === "string" ? { uri: root.uri, name: root.name } : {
            uri: root.uri,
          }
        );
    },
  };
}
