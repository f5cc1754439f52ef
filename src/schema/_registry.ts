/**
 * The schema documents a compilation may reach, and what their `$id`s,
 * `$anchor`s and `$dynamicAnchor`s name: the root, then the documents given
 * in the `schemas` option and the bundled 2020-12 meta-schemas, each
 * registered when a reference first names it (so a document never used is
 * never walked). Nothing is ever fetched: an absolute URI that names none of
 * them is refused by the compiler.
 *
 * Each document is walked once, through the keywords that hold schemas only
 * (an `$id` inside `const` or `enum` is data), counting schema objects and
 * nesting depth against the compilation's limits.
 *
 * @module
 */

import { metaSchema } from "./_metaschemas.ts";
import { isJsonObject, type JsonObject } from "./_values.ts";

/** The base URI of a root schema without `$id`: reserved, so never fetched or confused. */
export const DEFAULT_BASE = "https://warden.invalid/schema.json";

/** The URI of the 2020-12 meta-schema. */
export const DIALECT_2020_12 = "https://json-schema.org/draft/2020-12/schema";

/** A schema resource: a document root or a subschema with its own `$id`. */
export interface Resource {
  /** Its absolute URI, without a fragment. */
  readonly uri: string;
  readonly root: unknown;
  /** Where it is, for messages: `#/$defs/a` in the root document, `uri#` elsewhere. */
  readonly location: string;
  /** `$anchor` and `$dynamicAnchor` names. */
  readonly anchors: Map<string, unknown>;
  /** `$dynamicAnchor` names only. */
  readonly dynamicAnchors: Map<string, unknown>;
  /** The `$schema` that applies (its own, or its parent resource's). */
  readonly dialect: string;
}

/** Where a schema object sits. */
export interface Placement {
  readonly resource: Resource;
  readonly location: string;
}

/** Keywords whose value is one schema. */
const ONE_SCHEMA = [
  "items",
  "contains",
  "additionalProperties",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
  "unevaluatedItems",
  "unevaluatedProperties",
  "contentSchema",
] as const;
/** Keywords whose value is an array of schemas. */
const SCHEMA_LISTS = ["allOf", "anyOf", "oneOf", "prefixItems"] as const;
/** Keywords whose value is an object of schemas. */
const SCHEMA_MAPS = [
  "$defs",
  "definitions",
  "properties",
  "patternProperties",
  "dependentSchemas",
] as const;

/** The JSON pointer token for `key` (`/` and `~` escaped). */
export function pointerToken(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}

/** `ref` resolved against `base`, or `undefined` when it cannot be. */
export function resolveUri(ref: string, base: string): string | undefined {
  try {
    return new URL(ref, base).href;
  } catch {
    return undefined;
  }
}

/** An absolute URI split into its part before `#` and its decoded fragment. */
export function splitFragment(uri: string): [string, string] {
  const hash = uri.indexOf("#");
  if (hash < 0) return [uri, ""];
  const fragment = uri.slice(hash + 1);
  let decoded = fragment;
  try {
    decoded = decodeURIComponent(fragment);
  } catch {
    // A malformed escape stays as written; no pointer or anchor will match it.
  }
  return [uri.slice(0, hash), decoded];
}

/** Limits a walk enforces, and how to fail. */
export interface RegistryLimits {
  readonly maxNodes: number;
  readonly maxDepth: number;
  /** Throws for a limit passed. */
  readonly exceeded: (location: string, detail: string) => never;
  /** Throws for a malformed `$id` or anchor. */
  readonly invalid: (location: string, detail: string) => never;
}

/** The documents of one compilation; see the module comment. */
export class SchemaRegistry {
  readonly #resources = new Map<string, Resource>();
  readonly #placements = new Map<JsonObject, Placement>();
  readonly #limits: RegistryLimits;
  /** Documents given by the caller, by absolute URI, registered on first use. */
  readonly #documents: ReadonlyMap<string, unknown>;
  #count = 0;

  constructor(limits: RegistryLimits, documents: ReadonlyMap<string, unknown>) {
    this.#limits = limits;
    this.#documents = documents;
  }

  /** How many schema objects have been registered. */
  get size(): number {
    return this.#count;
  }

  /**
   * Registers a document under `uri` (and under its own `$id`, if that
   * differs). `root` marks the document being compiled, whose locations
   * read `#/...`.
   */
  add(document: unknown, uri: string, root = false): Resource {
    const location = root ? "#" : `${uri}#`;
    const resource = this.#walk(document, uri, undefined, location, 0, DIALECT_2020_12);
    if (!this.#resources.has(uri)) this.#resources.set(uri, resource);
    return resource;
  }

  /**
   * The resource with this URI (no fragment), registering a given document
   * or a bundled meta-schema on first use.
   */
  resource(uri: string): Resource | undefined {
    const found = this.#resources.get(uri);
    if (found !== undefined) return found;
    const document = this.#documents.get(uri) ?? metaSchema(uri);
    return document === undefined ? undefined : this.add(document, uri);
  }

  /** Where a registered schema object sits. */
  placement(schema: JsonObject): Placement | undefined {
    return this.#placements.get(schema);
  }

  #walk(
    schema: unknown,
    base: string,
    parent: Resource | undefined,
    location: string,
    depth: number,
    dialect: string,
  ): Resource {
    const { exceeded, invalid: fail, maxDepth, maxNodes } = this.#limits;
    if (!isJsonObject(schema)) {
      if (parent !== undefined) return parent;
      // A boolean document is a resource of its own, with nothing inside.
      return this.#newResource(base, schema, location, dialect);
    }
    const known = this.#placements.get(schema);
    // The same object reached twice (shared, or registered again): walked once.
    if (known !== undefined) return parent ?? known.resource;
    if (depth > maxDepth) {
      exceeded(location, `schemas nest deeper than the limit of ${maxDepth} (maxSchemaDepth)`);
    }
    if (++this.#count > maxNodes) {
      exceeded(location, `the schema has more than ${maxNodes} subschemas (maxSchemaNodes)`);
    }
    let resource = parent;
    const ownDialect = typeof schema.$schema === "string" ? schema.$schema : dialect;
    if (typeof schema.$id === "string" || parent === undefined) {
      const id = typeof schema.$id === "string" ? schema.$id : "";
      const resolved = resolveUri(id, base);
      if (resolved === undefined) {
        return fail(location, `'$id' '${id}' is not a valid URI reference`);
      }
      const [uri, fragment] = splitFragment(resolved);
      if (fragment !== "") fail(location, `'$id' '${id}' must not have a fragment`);
      const other = this.#resources.get(uri);
      if (other !== undefined && other.root !== schema) {
        fail(location, `'$id' '${uri}' names two different schemas`);
      }
      resource = this.#newResource(uri, schema, location, ownDialect);
    }
    // Always defined from here: a document's root makes a resource.
    const here = resource!;
    this.#placements.set(schema, { resource: here, location });
    this.#anchor(here, schema, "$anchor", location);
    this.#anchor(here, schema, "$dynamicAnchor", location);
    const child = (value: unknown, ...keys: string[]) => {
      const at = `${location}/${keys.map(pointerToken).join("/")}`;
      this.#walk(value, here.uri, here, at, depth + 1, here.dialect);
    };
    for (const keyword of ONE_SCHEMA) {
      if (schema[keyword] !== undefined) child(schema[keyword], keyword);
    }
    for (const keyword of SCHEMA_LISTS) {
      const list = schema[keyword];
      if (Array.isArray(list)) list.forEach((item, i) => child(item, keyword, String(i)));
    }
    for (const keyword of SCHEMA_MAPS) {
      const map = schema[keyword];
      if (isJsonObject(map)) { for (const key of Object.keys(map)) child(map[key], keyword, key); }
    }
    return here;
  }

  #newResource(uri: string, root: unknown, location: string, dialect: string): Resource {
    const resource: Resource = {
      uri,
      root,
      location,
      anchors: new Map(),
      dynamicAnchors: new Map(),
      dialect,
    };
    this.#resources.set(uri, resource);
    return resource;
  }

  #anchor(resource: Resource, schema: JsonObject, keyword: string, location: string): void {
    const name = schema[keyword];
    if (typeof name !== "string") return;
    const known = resource.anchors.get(name);
    if (known !== undefined && known !== schema) {
      this.#limits.invalid(location, `duplicate anchor '${name}' in ${resource.uri}`);
    }
    resource.anchors.set(name, schema);
    if (keyword === "$dynamicAnchor") resource.dynamicAnchors.set(name, schema);
  }
}
