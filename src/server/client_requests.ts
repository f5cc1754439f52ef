/**
 * Requests a handler makes of the client: sampling, elicitation and roots.
 * Each checks the client's capability first (no request is sent without it),
 * checks what it sends, and checks what comes back.
 *
 * @module
 */

import { compileSchema, type Validator } from "../schema/compile.ts";
import type { Infer, JsonSchemaObject } from "../schema/types.ts";
import type { ContentBlock } from "./content.ts";
import { revisionAtLeast, UNNEGOTIATED_PROTOCOL_VERSION } from "./lifecycle.ts";
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
 * A field of an elicitation form: a string, number, integer or boolean, a
 * single-select enum (untitled `enum`, titled `oneOf`, or the legacy `enum`
 * with `enumNames`), or a multi-select enum (an array of strings from
 * `items.enum` or `items.anyOf`). Every kind takes a `default` (revision
 * 2025-11-25) that must itself fit the field.
 */
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
    /** The values to choose from. */
    enum: readonly string[];
    /** Legacy labels, one per `enum` value; prefer `oneOf` with titles. */
    enumNames?: readonly string[];
    title?: string;
    description?: string;
    default?: string;
  }
  | {
    type: "string";
    /** The values to choose from (`const`), each with the label shown for it (`title`). */
    oneOf: readonly { const: string; title: string }[];
    title?: string;
    description?: string;
    default?: string;
  }
  | {
    type: "array";
    /** The values to choose from: plain (`enum`) or labelled (`anyOf`). */
    items:
      | { type: "string"; enum: readonly string[] }
      | { anyOf: readonly { const: string; title: string }[] };
    /** The fewest values to pick. */
    minItems?: number;
    /** The most values to pick. */
    maxItems?: number;
    title?: string;
    description?: string;
    default?: readonly string[];
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

/** The form an elicitation asks the user to fill: a flat object of the fields above. */
export type ElicitSchema = {
  /** The dialect; JSON Schema 2020-12 when absent. */
  $schema?: string;
  /** Always "object". */
  type: "object";
  /** The fields. */
  properties: Readonly<Record<string, ElicitField>>;
  /** Fields the user must fill. */
  required?: readonly string[];
};

/**
 * One field's answer type: a titled single-select is the union of its values.
 *
 * @internal
 */
type FieldValue<F> = F extends { readonly oneOf: readonly (infer O)[] }
  ? O extends { readonly const: infer C } ? C : string
  : Infer<F>;

/**
 * The names `S` requires.
 *
 * @internal
 */
type RequiredOf<S> = S extends { readonly required: readonly (infer K)[] } ? K : never;

/**
 * Flattens an intersection of object types into one, keeping `?` modifiers.
 *
 * @internal
 */
type Simplify<T> = { [K in keyof T]: T[K] };

/**
 * The answer to the form `S` (given as a literal): strings, numbers and
 * booleans by field type; a single-select gives the union of its values, a
 * multi-select an array of them. Fields in `required` are required.
 *
 * @example Usage
 * ```ts
 * import type { ElicitContent } from "@warden/mcp";
 * const form = {
 *   type: "object",
 *   properties: {
 *     size: { type: "string", enum: ["S", "M", "L"] },
 *     extras: { type: "array", items: { anyOf: [{ const: "gift", title: "Gift wrap" }] } },
 *   },
 *   required: ["size"],
 * } as const;
 * const answer: ElicitContent<typeof form> = { size: "M", extras: ["gift"] };
 * ```
 */
export type ElicitContent<S extends ElicitSchema> = Simplify<
  & {
    -readonly [K in keyof S["properties"] as K extends RequiredOf<S> ? K : never]: FieldValue<
      S["properties"][K]
    >;
  }
  & {
    -readonly [K in keyof S["properties"] as K extends RequiredOf<S> ? never : K]?: FieldValue<
      S["properties"][K]
    >;
  }
>;

/** The user's answer to a form elicitation. */
export type ElicitResult<S extends ElicitSchema> =
  | { action: "accept"; content: ElicitContent<S> }
  | { action: "decline" }
  | { action: "cancel" };

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

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isStringList(value: unknown): value is readonly string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

/** A non-empty list of `{ const, title }` with string values and nothing else. */
function isOptionList(value: unknown): value is readonly { const: string; title: string }[] {
  return Array.isArray(value) && value.length > 0 &&
    value.every((option) =>
      isRecord(option) && typeof option.const === "string" &&
      typeof option.title === "string" && Object.keys(option).length === 2
    );
}

/** The kinds of form field, as {@linkcode ElicitField} lists them. */
type FieldKind = "string" | "enum" | "titled" | "number" | "boolean" | "array";

const ANNOTATIONS = ["type", "title", "description", "default"];
/** The keywords each kind of field may use; anything else could not be rendered. */
const FIELD_KEYS: Readonly<Record<FieldKind, ReadonlySet<string>>> = {
  string: new Set([...ANNOTATIONS, "minLength", "maxLength", "format"]),
  enum: new Set([...ANNOTATIONS, "enum", "enumNames"]),
  titled: new Set([...ANNOTATIONS, "oneOf"]),
  number: new Set([...ANNOTATIONS, "minimum", "maximum"]),
  boolean: new Set(ANNOTATIONS),
  array: new Set([...ANNOTATIONS, "items", "minItems", "maxItems"]),
};
const FORMATS: ReadonlySet<unknown> = new Set(["email", "uri", "date", "date-time"]);
const FORM_KEYS: ReadonlySet<string> = new Set(["$schema", "type", "properties", "required"]);

/** Which kind of field `field` is, after checking what only its kind needs. */
function fieldKind(field: Record<string, unknown>, fail: (detail: string) => never): FieldKind {
  const { type } = field;
  if (type === "number" || type === "integer") return "number";
  if (type === "boolean") return "boolean";
  if (type === "array") {
    const { items } = field;
    const plain = isRecord(items) && items.type === "string" && Object.keys(items).length === 2 &&
      isStringList(items.enum) && items.enum.length > 0;
    const titled = isRecord(items) && Object.keys(items).length === 1 && isOptionList(items.anyOf);
    if (!plain && !titled) {
      fail('items must be { type: "string", enum: [...] } or { anyOf: [{ const, title }, ...] }');
    }
    return "array";
  }
  if (type !== "string") {
    return fail(
      `must be a string, number, integer, boolean or array field (got type ${
        JSON.stringify(type)
      })`,
    );
  }
  if (field.oneOf !== undefined) {
    if (field.enum !== undefined) fail("takes enum or oneOf, not both");
    if (!isOptionList(field.oneOf)) fail("oneOf must be a non-empty list of { const, title }");
    return "titled";
  }
  if (field.enum === undefined) {
    if (field.enumNames !== undefined) fail("enumNames needs enum");
    if (field.format !== undefined && !FORMATS.has(field.format)) {
      fail("format must be email, uri, date or date-time");
    }
    return "string";
  }
  const { enum: values, enumNames } = field;
  if (!isStringList(values) || values.length === 0) {
    return fail("enum must be a non-empty list of strings");
  }
  if (enumNames !== undefined && (!isStringList(enumNames) || enumNames.length !== values.length)) {
    fail("enumNames must be strings, one per enum value");
  }
  return "enum";
}

/** Checks one field's shape: after this, it is one of {@linkcode ElicitField}'s forms. */
function checkField(field: unknown, fail: (detail: string) => never): asserts field is ElicitField {
  if (!isRecord(field)) return fail("must be an object");
  const allowed = FIELD_KEYS[fieldKind(field, fail)];
  for (const key of Object.keys(field)) {
    if (!allowed.has(key)) fail(`unsupported keyword '${key}'`);
  }
  for (const key of ["title", "description"]) {
    if (field[key] !== undefined && typeof field[key] !== "string") {
      fail(`${key} must be a string`);
    }
  }
}

/** The schema an answer to `field` is validated against: `enumNames` is no JSON Schema keyword. */
function valueSchema(field: ElicitField): JsonSchemaObject {
  if (!("enumNames" in field)) return field;
  const { enumNames: _labels, ...rest } = field;
  return rest;
}

/**
 * Refuses a form the client could not render (nested objects, arrays of
 * anything but enum strings, unknown keywords, a `default` that does not fit
 * its field), and returns the validator for the user's answer.
 *
 * @throws {TypeError} naming the field and what is wrong with it
 */
export function checkElicitSchema(schema: unknown): Validator {
  const fail = (detail: string): never => {
    throw new TypeError(`Invalid elicitation schema: ${detail}`);
  };
  if (!isRecord(schema) || schema.type !== "object") return fail('expected { type: "object" }');
  for (const key of Object.keys(schema)) {
    if (!FORM_KEYS.has(key)) fail(`unsupported keyword '${key}'`);
  }
  const { $schema, properties, required } = schema;
  if ($schema !== undefined && typeof $schema !== "string") fail("$schema must be a string");
  if (!isRecord(properties)) return fail("properties must be an object");
  const values: Record<string, JsonSchemaObject> = {};
  for (const [name, field] of Object.entries(properties)) {
    const label = `Invalid elicitation schema: field '${name}'`;
    checkField(field, (detail) => {
      throw new TypeError(`${label}: ${detail}`);
    });
    const value = valueSchema(field);
    const { default: preset, ...withoutDefault } = value;
    // Compiling also checks the bounds' values (a negative minLength and the like).
    const validate = compileSchema(withoutDefault, { label });
    const problems = preset === undefined ? [] : validate(preset);
    if (problems.length > 0) {
      const detail = problems.map((p) => `${p.path} ${p.message}`).join("; ");
      throw new TypeError(`${label}: default does not fit the field: ${detail}`);
    }
    values[name] = value;
  }
  if (required !== undefined) {
    if (
      !isStringList(required) || !required.every((r) => Object.hasOwn(properties, r))
    ) {
      fail("required must list declared fields");
    }
  }
  const form: JsonSchemaObject = { type: "object", properties: values };
  return compileSchema(isStringList(required) ? { ...form, required } : form, {
    label: "Invalid elicitation schema",
  });
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
