/**
 * Requests a handler makes of the client: sampling, elicitation and roots.
 * Each checks the client's capability first (no request is sent without it),
 * checks what it sends, and checks what comes back.
 *
 * @module
 */

import { isRecord } from "../../jsonrpc/messages.ts";
import {
  checkElicitSchema,
  type ElicitContent,
  type ElicitResult,
  type ElicitSchema,
} from "../../core/elicitation_forms.ts";
import type { ContentBlock } from "../../core/content.ts";
import { revisionAtLeast, UNNEGOTIATED_PROTOCOL_VERSION } from "../../core/lifecycle.ts";
import { type McpSession, MissingCapabilityError, type OutboundRequestOptions } from "./session.ts";

/** One message of a sampling conversation. */
export interface SamplingMessage {
  /** Who speaks it. */
  role: "user" | "assistant";
  /** Text, image or audio. */
  content: ContentBlock;
}

/** What a handler asks the client's model for (`sampling/createMessage`). */
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

/** The client's answer to a sampling request. */
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

/** A root the client exposes. */
export interface Root {
  /** A `file://` URI. */
  uri: string;
  /** A display name. */
  name?: string;
}

const CONTENT_TYPES: ReadonlySet<unknown> = new Set(["text", "image", "audio"]);

/** Sends `sampling/createMessage` and checks the shape of the answer. */
export async function sample(
  session: McpSession,
  request: SamplingRequest,
  options: OutboundRequestOptions,
): Promise<SamplingResult> {
  if (!session.hasCapability("sampling")) throw new MissingCapabilityError("sampling");
  if (
    !Array.isArray(request.messages) || !Number.isInteger(request.maxTokens) ||
    request.maxTokens < 1
  ) {
    throw new TypeError(
      "Invalid sampling request: needs messages and a positive integer maxTokens",
    );
  }
  const result = await session.request(
    "sampling/createMessage",
    { ...request },
    options,
  );
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
}

/** The elicitation modes the client declared, read as its negotiated revision defines them. */
function elicitationModes(session: McpSession): { form: boolean; url: boolean } {
  const declared = session.clientCapabilities.elicitation;
  if (!isRecord(declared)) return { form: false, url: false };
  const version = session.protocolVersion ?? UNNEGOTIATED_PROTOCOL_VERSION;
  // Before 2025-11-25 there are no modes: the capability means forms.
  if (!revisionAtLeast(version, "2025-11-25")) return { form: true, url: false };
  const named = declared.form !== undefined || declared.url !== undefined;
  // An empty object keeps its old meaning, forms only.
  return { form: named ? isRecord(declared.form) : true, url: isRecord(declared.url) };
}

/**
 * Sends `elicitation/create` for a form (with `mode: "form"` under revision
 * 2025-11-25, where it is optional but clearer) and validates an accepted
 * answer against the form.
 */
export async function elicit<S extends ElicitSchema>(
  session: McpSession,
  message: string,
  requestedSchema: S,
  options: OutboundRequestOptions,
): Promise<ElicitResult<S>> {
  const validate = checkElicitSchema(requestedSchema);
  if (!session.hasCapability("elicitation")) throw new MissingCapabilityError("elicitation");
  if (!elicitationModes(session).form) throw new MissingCapabilityError("elicitation.form");
  const version = session.protocolVersion ?? UNNEGOTIATED_PROTOCOL_VERSION;
  const params: Record<string, unknown> = revisionAtLeast(version, "2025-11-25")
    ? { mode: "form", message, requestedSchema }
    : { message, requestedSchema };
  const result = await session.request("elicitation/create", params, options);
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
}

/** What {@linkcode elicitUrl} sends besides the message. */
export interface UrlElicitationRequest {
  /** The URL, or a function building it from the elicitation id. */
  readonly url: string | ((elicitationId: string) => string);
  /** The id to use instead of a fresh random one. */
  readonly elicitationId?: string;
}

/**
 * Sends a URL-mode `elicitation/create` (revision 2025-11-25): the user is
 * asked to open `url` and do something there, out of band. The id is a
 * fresh random UUID unless one is given.
 */
export async function elicitUrl(
  session: McpSession,
  message: string,
  request: UrlElicitationRequest,
  options: OutboundRequestOptions,
): Promise<UrlElicitation> {
  if (!elicitationModes(session).url) throw new MissingCapabilityError("elicitation.url");
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
  const result = await session.request(
    "elicitation/create",
    { mode: "url", message, url, elicitationId },
    options,
  );
  const action = result.action;
  if (action !== "accept" && action !== "decline" && action !== "cancel") {
    throw new Error("The client answered elicitation/create with an unknown action");
  }
  let completed = false;
  return {
    action,
    elicitationId,
    complete() {
      if (completed) return;
      completed = true;
      // Not tied to the call that asked: the flow usually ends after it has returned.
      session.notify("notifications/elicitation/complete", { elicitationId });
    },
  };
}

/** Sends `roots/list` and checks the answer. */
export async function listRoots(
  session: McpSession,
  options: OutboundRequestOptions,
): Promise<Root[]> {
  if (!session.hasCapability("roots")) throw new MissingCapabilityError("roots");
  const result = await session.request("roots/list", {}, options);
  const roots = result.roots;
  if (!Array.isArray(roots)) throw new Error("The client answered roots/list without a roots list");
  return roots.filter((root): root is Root => isRecord(root) && typeof root.uri === "string")
    .map((
      root,
    ) => (typeof root.name === "string" ? { uri: root.uri, name: root.name } : { uri: root.uri }));
}
