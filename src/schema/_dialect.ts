/**
 * What a compilation knows beyond one schema object: which vocabularies a
 * resource's dialect turns on (from its meta-schema's `$vocabulary`), and
 * the dynamic scope `$dynamicRef` resolves in.
 *
 * @module
 */

import { KEYWORD_VOCABULARY, KNOWN_VOCABULARIES } from "./_metaschemas.ts";
import {
  DIALECT_2020_12,
  resolveUri,
  type Resource,
  type SchemaRegistry,
  splitFragment,
} from "./_registry.ts";
import { isJsonObject, type JsonObject } from "./_values.ts";

/** The vocabularies of each dialect, read once per compilation. */
export class Vocabularies {
  readonly #registry: SchemaRegistry;
  readonly #fail: (location: string, detail: string) => never;
  readonly #known = new Map<string, ReadonlySet<string> | undefined>();

  constructor(registry: SchemaRegistry, fail: (location: string, detail: string) => never) {
    this.#registry = registry;
    this.#fail = fail;
  }

  /**
   * The vocabularies `resource`'s dialect turns on, or `undefined` for all
   * of them: the 2020-12 dialect, a meta-schema without `$vocabulary`, or a
   * dialect not given (treated as 2020-12). Throws for a required
   * vocabulary Warden does not implement.
   */
  of(resource: Resource): ReadonlySet<string> | undefined {
    const dialect = resource.dialect;
    if (this.#known.has(dialect)) return this.#known.get(dialect);
    let active: ReadonlySet<string> | undefined;
    const [uri] = splitFragment(resolveUri(dialect, resource.uri) ?? dialect);
    const meta = uri === DIALECT_2020_12 ? undefined : this.#registry.resource(uri);
    const declared = isJsonObject(meta?.root) ? meta.root.$vocabulary : undefined;
    if (isJsonObject(declared)) {
      for (const [vocabulary, required] of Object.entries(declared)) {
        if (required === true && !KNOWN_VOCABULARIES.has(vocabulary)) {
          this.#fail(
            resource.location,
            `the dialect '${uri}' requires the unsupported vocabulary '${vocabulary}'`,
          );
        }
      }
      active = new Set(Object.keys(declared).filter((name) => KNOWN_VOCABULARIES.has(name)));
    }
    this.#known.set(dialect, active);
    return active;
  }

  /** The schema without the keywords of vocabularies its dialect leaves out. */
  active(schema: JsonObject, resource: Resource): JsonObject {
    const active = this.of(resource);
    if (active === undefined) return schema;
    const off = (key: string) => {
      const vocabulary = KEYWORD_VOCABULARY.get(key);
      return vocabulary !== undefined && !active.has(vocabulary);
    };
    if (!Object.keys(schema).some(off)) return schema;
    return Object.fromEntries(Object.entries(schema).filter(([key]) => !off(key)));
  }
}

/**
 * What of the dynamic scope matters: for each `$dynamicAnchor` name, the
 * schema it names in the outermost resource entered that defines it.
 */
export interface Scope {
  readonly key: string;
  readonly anchors: ReadonlyMap<string, unknown>;
}

/** The scope before any resource is entered. */
export const EMPTY_SCOPE: Scope = { key: "", anchors: new Map() };

/** The scopes of one compilation, shared by key. */
export class Scopes {
  readonly #known = new Map<string, Scope>();

  /** The scope after entering `resource`: its dynamic anchors not yet named are added. */
  enter(scope: Scope, resource: Resource): Scope {
    const added = [...resource.dynamicAnchors].filter(([name]) => !scope.anchors.has(name));
    if (added.length === 0) return scope;
    const key = `${scope.key} ${added.map(([name]) => `${name}=${resource.uri}`).join(" ")}`;
    let found = this.#known.get(key);
    if (found === undefined) {
      found = { key, anchors: new Map([...scope.anchors, ...added]) };
      this.#known.set(key, found);
    }
    return found;
  }
}
