/**
 * The JSON Schema 2020-12 meta-schemas, bundled as data so that a `$ref` or
 * `$schema` naming one resolves without the network. Only the keywords that
 * validate are kept (titles and comments are left out).
 *
 * @module
 */

const BASE = "https://json-schema.org/draft/2020-12";
const META = { $dynamicRef: "#meta" } as const;
const OBJECT_OR_BOOLEAN = ["object", "boolean"] as const;

/** The `$vocabulary` of a vocabulary meta-schema: core and its own. */
function vocabulary(name: string): Record<string, boolean> {
  return { [`${BASE}/vocab/core`]: true, [`${BASE}/vocab/${name}`]: true };
}

/** The head every vocabulary meta-schema shares. */
function vocabularyMeta(name: string): Record<string, unknown> {
  return {
    $schema: `${BASE}/schema`,
    $id: `${BASE}/meta/${name}`,
    $vocabulary: vocabulary(name),
    $dynamicAnchor: "meta",
    type: OBJECT_OR_BOOLEAN,
  };
}

const SCHEMA = {
  $schema: `${BASE}/schema`,
  $id: `${BASE}/schema`,
  $vocabulary: {
    [`${BASE}/vocab/core`]: true,
    [`${BASE}/vocab/applicator`]: true,
    [`${BASE}/vocab/unevaluated`]: true,
    [`${BASE}/vocab/validation`]: true,
    [`${BASE}/vocab/meta-data`]: true,
    [`${BASE}/vocab/format-annotation`]: true,
    [`${BASE}/vocab/content`]: true,
  },
  $dynamicAnchor: "meta",
  allOf: [
    { $ref: "meta/core" },
    { $ref: "meta/applicator" },
    { $ref: "meta/unevaluated" },
    { $ref: "meta/validation" },
    { $ref: "meta/meta-data" },
    { $ref: "meta/format-annotation" },
    { $ref: "meta/content" },
  ],
  type: OBJECT_OR_BOOLEAN,
  properties: {
    definitions: { type: "object", additionalProperties: META, deprecated: true, default: {} },
    dependencies: {
      type: "object",
      additionalProperties: {
        anyOf: [META, { $ref: "meta/validation#/$defs/stringArray" }],
      },
      deprecated: true,
      default: {},
    },
    $recursiveAnchor: { $ref: "meta/core#/$defs/anchorString", deprecated: true },
    $recursiveRef: { $ref: "meta/core#/$defs/uriReferenceString", deprecated: true },
  },
};

const CORE = {
  ...vocabularyMeta("core"),
  properties: {
    $id: { $ref: "#/$defs/uriReferenceString", pattern: "^[^#]*#?$" },
    $schema: { $ref: "#/$defs/uriString" },
    $ref: { $ref: "#/$defs/uriReferenceString" },
    $anchor: { $ref: "#/$defs/anchorString" },
    $dynamicRef: { $ref: "#/$defs/uriReferenceString" },
    $dynamicAnchor: { $ref: "#/$defs/anchorString" },
    $vocabulary: {
      type: "object",
      propertyNames: { $ref: "#/$defs/uriString" },
      additionalProperties: { type: "boolean" },
    },
    $comment: { type: "string" },
    $defs: { type: "object", additionalProperties: META },
  },
  $defs: {
    anchorString: { type: "string", pattern: "^[A-Za-z_][-A-Za-z0-9._]*$" },
    uriString: { type: "string", format: "uri" },
    uriReferenceString: { type: "string", format: "uri-reference" },
  },
};

const SCHEMA_MAP = { type: "object", additionalProperties: META, default: {} } as const;

const APPLICATOR = {
  ...vocabularyMeta("applicator"),
  properties: {
    prefixItems: { $ref: "#/$defs/schemaArray" },
    items: META,
    contains: META,
    additionalProperties: META,
    properties: SCHEMA_MAP,
    patternProperties: { ...SCHEMA_MAP, propertyNames: { format: "regex" } },
    dependentSchemas: SCHEMA_MAP,
    propertyNames: META,
    if: META,
    then: META,
    else: META,
    allOf: { $ref: "#/$defs/schemaArray" },
    anyOf: { $ref: "#/$defs/schemaArray" },
    oneOf: { $ref: "#/$defs/schemaArray" },
    not: META,
  },
  $defs: { schemaArray: { type: "array", minItems: 1, items: META } },
};

const UNEVALUATED = {
  ...vocabularyMeta("unevaluated"),
  properties: { unevaluatedItems: META, unevaluatedProperties: META },
};

const NON_NEGATIVE = { $ref: "#/$defs/nonNegativeInteger" } as const;
const NON_NEGATIVE_0 = { $ref: "#/$defs/nonNegativeIntegerDefault0" } as const;

const VALIDATION = {
  ...vocabularyMeta("validation"),
  properties: {
    type: {
      anyOf: [
        { $ref: "#/$defs/simpleTypes" },
        {
          type: "array",
          items: { $ref: "#/$defs/simpleTypes" },
          minItems: 1,
          uniqueItems: true,
        },
      ],
    },
    const: true,
    enum: { type: "array", items: true },
    multipleOf: { type: "number", exclusiveMinimum: 0 },
    maximum: { type: "number" },
    exclusiveMaximum: { type: "number" },
    minimum: { type: "number" },
    exclusiveMinimum: { type: "number" },
    maxLength: NON_NEGATIVE,
    minLength: NON_NEGATIVE_0,
    pattern: { type: "string", format: "regex" },
    maxItems: NON_NEGATIVE,
    minItems: NON_NEGATIVE_0,
    uniqueItems: { type: "boolean", default: false },
    maxContains: NON_NEGATIVE,
    minContains: { $ref: "#/$defs/nonNegativeInteger", default: 1 },
    maxProperties: NON_NEGATIVE,
    minProperties: NON_NEGATIVE_0,
    required: { $ref: "#/$defs/stringArray" },
    dependentRequired: {
      type: "object",
      additionalProperties: { $ref: "#/$defs/stringArray" },
    },
  },
  $defs: {
    nonNegativeInteger: { type: "integer", minimum: 0 },
    nonNegativeIntegerDefault0: { $ref: "#/$defs/nonNegativeInteger", default: 0 },
    simpleTypes: { enum: ["array", "boolean", "integer", "null", "number", "object", "string"] },
    stringArray: { type: "array", items: { type: "string" }, uniqueItems: true, default: [] },
  },
};

const FLAG = { type: "boolean", default: false } as const;

const META_DATA = {
  ...vocabularyMeta("meta-data"),
  properties: {
    title: { type: "string" },
    description: { type: "string" },
    default: true,
    deprecated: FLAG,
    readOnly: FLAG,
    writeOnly: FLAG,
    examples: { type: "array", items: true },
  },
};

const FORMAT_ANNOTATION = {
  ...vocabularyMeta("format-annotation"),
  properties: { format: { type: "string" } },
};

const FORMAT_ASSERTION = {
  ...vocabularyMeta("format-assertion"),
  properties: { format: { type: "string" } },
};

const CONTENT = {
  ...vocabularyMeta("content"),
  properties: {
    contentEncoding: { type: "string" },
    contentMediaType: { type: "string" },
    contentSchema: META,
  },
};

/** The bundled meta-schemas by URI, built on first use (most schemas never name one). */
let metaSchemas: ReadonlyMap<string, unknown> | undefined;

/**
 * The bundled meta-schema at `uri`, or undefined. Each is cloned once, so
 * that no schema object is shared between two documents (an object belongs
 * to one base URI); the map is built when a schema first refers to one, not
 * at start.
 */
export function metaSchema(uri: string): unknown {
  metaSchemas ??= new Map<string, unknown>(([
    [`${BASE}/schema`, SCHEMA],
    [`${BASE}/meta/core`, CORE],
    [`${BASE}/meta/applicator`, APPLICATOR],
    [`${BASE}/meta/unevaluated`, UNEVALUATED],
    [`${BASE}/meta/validation`, VALIDATION],
    [`${BASE}/meta/meta-data`, META_DATA],
    [`${BASE}/meta/format-annotation`, FORMAT_ANNOTATION],
    [`${BASE}/meta/format-assertion`, FORMAT_ASSERTION],
    [`${BASE}/meta/content`, CONTENT],
  ] as const).map(([uri, schema]) => [uri, structuredClone(schema)]));
  return metaSchemas.get(uri);
}

/** The format-assertion vocabulary: a dialect using it asserts `format`. */
export const FORMAT_ASSERTION_VOCABULARY = `${BASE}/vocab/format-assertion`;

/** The vocabularies Warden implements, by URI. */
export const KNOWN_VOCABULARIES: ReadonlySet<string> = new Set(
  [
    "core",
    "applicator",
    "unevaluated",
    "validation",
    "meta-data",
    "format-annotation",
    "format-assertion",
    "content",
  ].map((name) => `${BASE}/vocab/${name}`),
);

/** The vocabulary each keyword belongs to (core keywords are always on). */
export const KEYWORD_VOCABULARY: ReadonlyMap<string, string> = new Map(
  Object.entries({
    applicator: [
      "prefixItems",
      "items",
      "contains",
      "additionalProperties",
      "properties",
      "patternProperties",
      "dependentSchemas",
      "propertyNames",
      "if",
      "then",
      "else",
      "allOf",
      "anyOf",
      "oneOf",
      "not",
    ],
    unevaluated: ["unevaluatedItems", "unevaluatedProperties"],
    validation: [
      "type",
      "const",
      "enum",
      "multipleOf",
      "maximum",
      "exclusiveMaximum",
      "minimum",
      "exclusiveMinimum",
      "maxLength",
      "minLength",
      "pattern",
      "maxItems",
      "minItems",
      "uniqueItems",
      "maxContains",
      "minContains",
      "maxProperties",
      "minProperties",
      "required",
      "dependentRequired",
    ],
  }).flatMap(([name, keywords]) => keywords.map((keyword) => [keyword, `${BASE}/vocab/${name}`])),
);
