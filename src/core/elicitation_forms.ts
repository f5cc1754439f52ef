/**
 * Elicitation forms: the flat, primitive-only JSON Schema subset a client can
 * render (with the 2025-11-25 enum forms and defaults), its TypeScript
 * typing, and the check that refuses anything else before it is sent.
 *
 * @module
 */

import { isRecord } from "../jsonrpc/messages.ts";
import { compileSchema, type Validator } from "../schema/compile.ts";
import type { Infer, JsonSchemaObject } from "../schema/types.ts";

/**
 * A field of an elicitation form: a string, number, integer or boolean, a
 * single-select enum (untitled `enum`, titled `oneOf`, or the legacy `enum`
 * with `enumNames`), or a multi-select enum (an array of strings from
 * `items.enum` or `items.anyOf`). Every kind takes a `default` (revision
 * 2025-11-25) that must itself fit the field.
 *
 * @example Fields of a delivery form
 * ```ts
 * import type { ElicitField } from "@warden/mcp";
 * const quantity: ElicitField = { type: "integer", title: "Quantity", minimum: 1, default: 1 };
 * const speed: ElicitField = {
 *   type: "string",
 *   title: "Delivery",
 *   oneOf: [
 *     { const: "standard", title: "Standard (3 days)" },
 *     { const: "express", title: "Express (next day)" },
 *   ],
 *   default: "standard",
 * };
 * const email: ElicitField = { type: "string", format: "email", title: "Receipt to" };
 * ```
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

/**
 * The form an elicitation asks the user to fill: a flat object of the fields above.
 *
 * @example Asking where to ship, inside a tool handler
 * ```ts
 * import type { ElicitSchema, RequestContext } from "@warden/mcp";
 * const address = {
 *   type: "object",
 *   properties: {
 *     street: { type: "string", title: "Street" },
 *     city: { type: "string", title: "City" },
 *     gift: { type: "boolean", title: "Gift wrap", default: false },
 *   },
 *   required: ["street", "city"],
 * } as const satisfies ElicitSchema;
 * async function shippingLabel(ctx: RequestContext): Promise<string> {
 *   const answer = await ctx.elicit("Where should we ship it?", address);
 *   if (answer.action !== "accept") return "No address given";
 *   return `${answer.content.street}, ${answer.content.city}`;
 * }
 * ```
 */
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

/**
 * The user's answer to a form elicitation.
 *
 * @example Telling a refusal from a dismissed dialog
 * ```ts
 * import type { ElicitResult } from "@warden/mcp";
 * const form = {
 *   type: "object",
 *   properties: { reason: { type: "string", title: "Why return it?" } },
 *   required: ["reason"],
 * } as const;
 * function outcome(answer: ElicitResult<typeof form>): string {
 *   switch (answer.action) {
 *     case "accept":
 *       return `Return accepted: ${answer.content.reason}`;
 *     case "decline":
 *       return "The user chose not to say why; the return is on hold";
 *     case "cancel":
 *       return "The user closed the form; nothing changed";
 *   }
 * }
 * ```
 */
export type ElicitResult<S extends ElicitSchema> =
  | { action: "accept"; content: ElicitContent<S> }
  | { action: "decline" }
  | { action: "cancel" };

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
