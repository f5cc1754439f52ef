/**
 * Compiles a JSON Schema literal into a validator that returns every
 * violation with its JSON path: JavaScript generated once and built with
 * `new Function`, or, where that is refused, a tree of closures with no
 * `eval`. Both backends read the same compiled tree and report the same
 * violations.
 *
 * @module
 */

import type { JsonSchema } from "./types.ts";
import { SchemaCompiler } from "./_compiler.ts";
import { buildClosures } from "./_closures.ts";
import { SCHEMA_MESSAGE } from "./_messages.ts";

/**
 * One reason a value does not match its schema.
 *
 * @example Usage
 * ```ts
 * import type { SchemaViolation } from "@warden/mcp/schema";
 * const violation: SchemaViolation = {
 *   path: "$.items[2].name",
 *   keyword: "minLength",
 *   message: "must NOT have fewer than 1 character",
 * };
 * ```
 */
export interface SchemaViolation {
  /**
   * The JSON path of the failing value: `$`, `$.order_id`, `$.items[2].name`,
   * `$["odd key"]`. For `required`, `additionalProperties`, `propertyNames`
   * and other rules about an object's keys, it is the object's path.
   */
  path: string;
  /** The keyword that failed, e.g. `pattern`; `false` for a `false` schema. */
  keyword: string;
  /** What is wrong, short enough for a model to act on: `must be integer`. */
  message: string;
}

/**
 * Checks a value against a compiled schema. Returns every violation; an
 * empty (shared, frozen) array means the value is valid.
 *
 * @example Usage
 * ```ts
 * import { compileSchema, type Validator } from "@warden/mcp/schema";
 * const validate: Validator = compileSchema({ type: "string" });
 * console.assert(validate("ok").length === 0);
 * ```
 */
export type Validator = (value: unknown) => readonly SchemaViolation[];

/**
 * Options for {@linkcode compileSchema}.
 *
 * @example A schema that refers to a shared document, with formats checked
 * ```ts
 * import { compileSchema, type CompileOptions } from "@warden/mcp/schema";
 * const options: CompileOptions = {
 *   label: "Cannot load customer schema",
 *   formats: "assert",
 *   unknownKeywords: "refuse",
 *   schemas: {
 *     "https://example.com/address.json": {
 *       type: "object",
 *       properties: { city: { type: "string" } },
 *       required: ["city"],
 *     },
 *   },
 * };
 * const validate = compileSchema({
 *   type: "object",
 *   properties: {
 *     email: { type: "string", format: "email" },
 *     address: { $ref: "https://example.com/address.json" },
 *   },
 * }, options);
 * console.assert(validate({ email: "not-an-email", address: {} }).length === 2);
 * ```
 */
export interface CompileOptions {
  /**
   * What the schema is for, opening every error message `compileSchema`
   * throws, e.g. `"Cannot register tool 'add'"`.
   *
   * @default {"Cannot compile schema"}
   */
  label?: string;
  /**
   * Whether to compile the schema into JavaScript source built with
   * `new Function`, which runs several times faster than closures. Where
   * `new Function` is refused (a Content Security Policy without
   * `'unsafe-eval'`, an eval-free sandbox), closures are used anyway;
   * `false` forces them. Both report the same violations.
   *
   * @default {true}
   */
  codegen?: boolean;
  /**
   * Schema documents that `$ref`, `$dynamicRef` and `$schema` may name, by
   * absolute URI (`https://example.com/address.json`). Nothing is ever
   * fetched: a reference to a URI that is neither given here, nor an `$id`
   * inside a given document, nor a bundled 2020-12 meta-schema is refused.
   *
   * @default {{}}
   */
  schemas?: Readonly<Record<string, JsonSchema>>;
  /**
   * The most schema objects a compilation may walk or build, counting the
   * root, the documents it reaches and each compiled copy a `$dynamicRef`
   * scope makes. More throws a `RangeError`.
   *
   * @default {10000}
   */
  maxSchemaNodes?: number;
  /**
   * The deepest subschemas may nest in any document. Deeper throws a
   * `RangeError`.
   *
   * @default {64}
   */
  maxSchemaDepth?: number;
  /**
   * What `format` does: `"annotate"` (the 2020-12 default) only describes
   * the value; `"assert"` also checks strings against `date`, `time`,
   * `date-time`, `duration`, `email`, `ipv4`, `ipv6`, `uuid`, `uri`,
   * `uri-reference`, `uri-template`, `json-pointer`,
   * `relative-json-pointer` and `regex` (other names stay annotations). A
   * dialect that uses the format-assertion vocabulary asserts them too.
   *
   * @default {"annotate"}
   */
  formats?: "annotate" | "assert";
  /**
   * What a keyword Warden does not know does. JSON Schema 2020-12 makes
   * unknown keywords annotations, so by default they are kept and ignored,
   * except a near miss of a known keyword (`requried`, `minLenght`), which
   * is almost always a typo that would silently stop validating something
   * and is refused with a suggestion. `"annotate"` accepts those too;
   * `"refuse"` refuses every unknown keyword (`x-` keys always pass).
   *
   * @default {"refuse-typos"}
   */
  unknownKeywords?: "annotate" | "refuse-typos" | "refuse";
}

/** The default of {@linkcode CompileOptions.maxSchemaNodes}. */
const MAX_SCHEMA_NODES = 10_000;
/** The default of {@linkcode CompileOptions.maxSchemaDepth}. */
const MAX_SCHEMA_DEPTH = 64;

function limit(value: number | undefined, fallback: number, name: string, label: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${label}: ${name} must be a positive integer, not ${value}`);
  }
  return value;
}

const VALID: readonly SchemaViolation[] = Object.freeze([]);

/**
 * Compiles a JSON Schema (draft 2020-12) into a {@linkcode Validator}.
 *
 * Every keyword of the core, applicator, unevaluated, validation,
 * meta-data, format-annotation and content vocabularies is supported:
 * `$ref` and `$dynamicRef` (JSON pointers, `$anchor`s, `$dynamicAnchor`s,
 * relative and URN references, `$id` anywhere), `unevaluatedProperties`
 * and `unevaluatedItems` (with annotations from every in-place applicator),
 * and `$vocabulary` (a meta-schema given in `schemas` can turn vocabularies
 * off; one that requires an unknown vocabulary is refused). `minLength` and
 * `maxLength` count code points; `pattern` is ECMAScript with the `u` flag;
 * `integer` is any number without a fractional part, so `1.0` is one.
 * `format` is an annotation unless `formats: "assert"` (or a dialect using
 * the format-assertion vocabulary) asks for the common formats to be
 * checked; `content*` and the meta-data keywords are annotations. `x-` keys are ignored; any other unknown key is refused, so a
 * misspelt keyword never leaves a value unvalidated.
 *
 * References resolve within the schema, to the documents in `schemas`, and
 * to the bundled 2020-12 meta-schemas; nothing is ever fetched. Schemas are
 * bounded at registration (`maxSchemaNodes`, `maxSchemaDepth`), and each
 * subschema is evaluated a bounded number of times per value while
 * `unevaluated*` annotations are collected, so nested `anyOf`/`oneOf` never
 * cost exponential time there.
 *
 * The schema is checked and compiled at once (every error above is thrown
 * here); its JavaScript source is generated and built with `new Function` on
 * the validator's first call, so a server with many tools builds code only
 * for those that are called, and none before its first reply. The generator
 * itself is loaded on the first validation of any schema: until it is, calls
 * are answered by the closures below, just as synchronously. Nothing from
 * the schema reaches that source except as JSON string literals and finite
 * numbers, and regular expressions and constants are passed in as values.
 * Where `new Function` is refused, or with `codegen: false`, the validator is
 * a tree of closures instead.
 *
 * Locations in error messages are JSON pointer fragments of the schema:
 * `#/properties/a`.
 *
 * @param schema The schema literal.
 * @param options A label for error messages, whether to generate code, the
 * documents references may name, and the registration limits.
 * @returns A validator that reuses the compiled checks on every call.
 * @throws {TypeError} For any keyword it does not support (so nothing is
 * silently left unvalidated), a malformed keyword value, an invalid regular
 * expression, a reference to a document not given or to nothing in one, a
 * `$ref` loop that never moves into the value, or a dialect requiring an
 * unknown vocabulary.
 * @throws {RangeError} For a schema beyond `maxSchemaNodes` or
 * `maxSchemaDepth`, naming the limit.
 *
 * @example Validating tool arguments
 * ```ts
 * import { compileSchema } from "@warden/mcp/schema";
 * import { deepEqual } from "node:assert/strict";
 *
 * const validate = compileSchema({
 *   type: "object",
 *   properties: { order_id: { type: "string", pattern: "^ORD-[0-9]+$" } },
 *   required: ["order_id"],
 *   additionalProperties: false,
 * });
 * deepEqual(validate({ order_id: "ORD-17" }), []);
 * deepEqual(validate({ order_id: "17", note: 1 }), [
 *   { path: "$.order_id", keyword: "pattern", message: 'must match pattern "^ORD-[0-9]+$"' },
 *   { path: "$", keyword: "additionalProperties", message: "must NOT have additional property 'note'" },
 * ]);
 * ```
 *
 * @example A reference to a document given in `schemas`
 * ```ts
 * import { compileSchema } from "@warden/mcp/schema";
 * import { deepEqual } from "node:assert/strict";
 *
 * const validate = compileSchema({
 *   $id: "https://example.com/order.json",
 *   properties: { ship_to: { $ref: "address.json" } },
 *   unevaluatedProperties: false,
 * }, {
 *   schemas: {
 *     "https://example.com/address.json": { required: ["city"] },
 *   },
 * });
 * deepEqual(validate({ ship_to: { city: "Oslo" } }), []);
 * deepEqual(validate({ ship_to: {}, note: 1 }).map((v) => v.keyword), [
 *   "required",
 *   "unevaluatedProperties",
 * ]);
 * ```
 *
 * @example Refusing a misspelt keyword
 * ```ts
 * import { compileSchema } from "@warden/mcp/schema";
 * import { throws } from "node:assert/strict";
 *
 * throws(
 *   () => compileSchema(JSON.parse('{ "type": "object", "requried": ["a"] }'), {
 *     label: "Cannot register tool 'add'",
 *   }),
 *   /^TypeError: Cannot register tool 'add': unsupported schema keyword 'requried' at #/,
 * );
 * ```
 */
export function compileSchema(schema: JsonSchema, options: CompileOptions = {}): Validator {
  const label = options.label ?? "Cannot compile schema";
  const { formats = "annotate" } = options;
  if (formats !== "annotate" && formats !== "assert") {
    throw new TypeError(
      `${label}: formats must be "annotate" or "assert", not ${JSON.stringify(formats)}`,
    );
  }
  const { unknownKeywords = "refuse-typos" } = options;
  if (!["annotate", "refuse-typos", "refuse"].includes(unknownKeywords)) {
    throw new TypeError(
      `${label}: unknownKeywords must be "annotate", "refuse-typos" or "refuse", not ${
        JSON.stringify(unknownKeywords)
      }`,
    );
  }
  const root = new SchemaCompiler(schema, {
    label,
    unknownKeywords,
    schemas: options.schemas ?? {},
    maxNodes: limit(options.maxSchemaNodes, MAX_SCHEMA_NODES, "maxSchemaNodes", label),
    maxDepth: limit(options.maxSchemaDepth, MAX_SCHEMA_DEPTH, "maxSchemaDepth", label),
    assertFormats: formats === "assert",
  }).compileRoot();
  if (options.codegen === false) return closureValidator(root);
  // Generated on the first call once the generator is loaded (about 0.7 ms a schema on cold
  // code), then called directly; until then the closures answer, as synchronously and alike.
  let built: Validator | undefined;
  let closures: Validator | undefined;
  return (value) => {
    if (built !== undefined) return built(value);
    if (generate !== undefined) {
      return (built = generate(root, VALID) ?? closureValidator(root))(value);
    }
    void loadGenerator();
    return (closures ??= closureValidator(root))(value);
  };
}

type Generate = typeof import("./_codegen.ts").generateValidator;

/** The code generator, once loaded; `undefined` before, or for good if it could not be. */
let generate: Generate | undefined;
let generatorLoad: Promise<void> | undefined;

/**
 * Loads the code generator (about 45 KiB of source) on the first validation
 * rather than at start: a server's first reply never waits for it. A failed
 * load leaves the closures validating, which report the same violations, and
 * says so once on stderr.
 *
 * @returns Settles once the generator is loaded, or could not be.
 *
 * @example
 * ```ts
 * import { loadGenerator } from "./compile.ts";
 * await loadGenerator();
 * ```
 */
export function loadGenerator(): Promise<void> {
  generatorLoad ??= import("./_codegen.ts").then(
    (module) => {
      generate = module.generateValidator;
    },
    (error: unknown) => {
      console.error(
        `warden: cannot load the schema code generator, validating with closures: ${error}`,
      );
    },
  );
  return generatorLoad;
}

/** The validator of a compiled schema as a tree of closures. */
function closureValidator(root: Parameters<typeof buildClosures>[0]): Validator {
  const { test, report } = buildClosures(root);
  return (value) => {
    if (test(value)) return VALID;
    const violations: SchemaViolation[] = [];
    report(value, "$", violations);
    // A check whose report disagreed with its test must not turn a failure into a pass.
    if (violations.length === 0) {
      violations.push({ path: "$", keyword: "schema", message: SCHEMA_MESSAGE });
    }
    return violations;
  };
}
