/**
 * Requests a handler makes of the client: sampling, elicitation and roots.
 * Each checks the client's capability first (no request is sent without it),
 * checks what it sends, and checks what comes back.
 *
 * @module
 */

import { compileSchema } from "../schema/compile.ts";
import type { Infer } from "../schema/types.ts";
import type { ContentBlock } from "./content.ts";
import { McpSession, MissingCapabilityError, type OutboundRequestOptions } from "./session.ts";

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

/** A primitive field of an elicitation form. */
export type ElicitField =
  | {
    type: "string";
    title?: string;
    description?: string;
    minLength?: number;
    maxLength?: number;
    format?: "email" | "uri" | "date" | "date-time";
    default?: string;
  }
  | {
    type: "string";
    enum: readonly string[];
    enumNames?: readonly string[];
    title?: string;
    description?: string;
    default?: string;
  }
  | {
    type: "number" | "integer";
    title?: string;
    description?: string;
    minimum?: number;
    maximum?: number;
    default?: number;
  }
  | { type: "boolean"; title?: string; description?: string; default?: boolean };

/** The form an elicitation asks the user to fill: a flat object of primitive fields. */
export type ElicitSchema = {
  /** Always "object". */
  type: "object";
  /** The fields. */
  properties: Readonly<Record<string, ElicitField>>;
  /** Fields the user must fill. */
  required?: readonly string[];
};

/** The user's answer to an elicitation. */
export type ElicitResult<S extends ElicitSchema> =
  | { action: "accept"; content: Infer<S> }
  | { action: "decline" }
  | { action: "cancel" };

/** A root the client exposes. */
export interface Root {
  /** A `file://` URI. */
  uri: string;
  /** A display name. */
  name?: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const FIELD_KEYS: ReadonlySet<string> = new Set([
  "type",
  "title",
  "description",
  "minLength",
  "maxLength",
  "format",
  "enum",
  "enumNames",
  "minimum",
  "maximum",
  "default",
]);

/** Refuses a form the client could not render: nested objects, arrays, unknown keys. */
export function checkElicitSchema(schema: unknown): void {
  const fail = (detail: string): never => {
    throw new TypeError(`Invalid elicitation schema: ${detail}`);
  };
  if (!isRecord(schema) || schema.type !== "object") fail('expected { type: "object" }');
  const { properties, required } = schema as Record<string, unknown>;
  if (!isRecord(properties)) return fail("properties must be an object");
  for (const [name, field] of Object.entries(properties)) {
    if (!isRecord(field)) return fail(`field '${name}' must be an object`);
    const type = field.type;
    if (type !== "string" && type !== "number" && type !== "integer" && type !== "boolean") {
      fail(
        `field '${name}' must be a string, number, integer or boolean (got ${
          JSON.stringify(type)
        })`,
      );
    }
    for (const key of Object.keys(field)) {
      if (!FIELD_KEYS.has(key)) fail(`field '${name}' has unsupported keyword '${key}'`);
    }
    if (field.enum !== undefined) {
      if (
        type !== "string" || !Array.isArray(field.enum) ||
        !field.enum.every((v) => typeof v === "string")
      ) {
        fail(`field '${name}': enum must be a list of strings on a string field`);
      }
    }
  }
  if (required !== undefined) {
    if (
      !Array.isArray(required) ||
      !required.every((r) => typeof r === "string" && Object.hasOwn(properties, r))
    ) {
      fail("required must list declared fields");
    }
  }
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

/** Sends `elicitation/create` and validates the user's answer against the form. */
export async function elicit<S extends ElicitSchema>(
  session: McpSession,
  message: string,
  requestedSchema: S,
  options: OutboundRequestOptions,
): Promise<ElicitResult<S>> {
  checkElicitSchema(requestedSchema);
  if (!session.hasCapability("elicitation")) throw new MissingCapabilityError("elicitation");
  const result = await session.request(
    "elicitation/create",
    { message, requestedSchema },
    options,
  );
  const action = result.action;
  if (action === "decline" || action === "cancel") return { action };
  if (action !== "accept") {
    throw new Error("The client answered elicitation/create with an unknown action");
  }
  const content = result.content ?? {};
  const violations = compileSchema(requestedSchema)(content);
  if (violations.length > 0) {
    const detail = violations.map((v) => `${v.path} ${v.message}`).join("; ");
    throw new Error(`The client's elicitation answer does not match the form: ${detail}`);
  }
  return { action, content: content as Infer<S> };
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
