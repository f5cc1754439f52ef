/**
 * Walks a schema once and builds its tree of rules (`_tree.ts`): refuses
 * unknown keywords and malformed values, resolves `$ref` and `$dynamicRef`
 * after the walk (so recursive schemas terminate), refuses `$ref` loops that
 * would never reach into the value, and folds `unevaluated*` into plain
 * rules where the schema alone decides what is evaluated. The backends turn
 * the tree into code.
 *
 * `$dynamicRef` is resolved here, not at run time: a schema object is
 * compiled once per dynamic scope it can be reached in, where a scope is
 * what matters of the resources entered on the way, the outermost resource
 * defining each `$dynamicAnchor` name. Scopes only grow and are finite, so
 * this terminates; the node limit bounds it.
 *
 * @module
 */

import { KEYWORD_VOCABULARY, KNOWN_VOCABULARIES } from "./_metaschemas.ts";
import { type ReaderHost, SchemaReader } from "./_reader.ts";
import {
  DEFAULT_BASE,
  DIALECT_2020_12,
  pointerToken,
  resolveUri,
  type Resource,
  SchemaRegistry,
  splitFragment,
} from "./_registry.ts";
import { emptyNode, type RefRule, type Schema, type SchemaNode } from "./_tree.ts";
import { foldUnevaluated } from "./_unevaluated.ts";
import { isJsonObject, type JsonObject } from "./_values.ts";

/** Keywords that validate (or hold schemas), handled in `#fill`. */
// deno-fmt-ignore
const VALIDATION: ReadonlySet<string> = new Set([
  "type", "enum", "const", "$ref", "$dynamicRef", "allOf", "anyOf", "oneOf", "not", "if", "then",
  "else", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
  "minLength", "maxLength", "pattern",
  "prefixItems", "items", "contains", "minContains", "maxContains", "minItems", "maxItems",
  "uniqueItems", "unevaluatedItems",
  "properties", "required", "patternProperties", "additionalProperties", "propertyNames",
  "minProperties", "maxProperties", "dependentRequired", "dependentSchemas",
  "unevaluatedProperties", "$defs", "definitions", "$anchor", "$dynamicAnchor",
]);

/** Keywords accepted and ignored, with the kind of value each must have. */
// deno-fmt-ignore
const ANNOTATIONS: ReadonlyMap<string, "string" | "boolean" | "array" | "object" | "any"> = new Map([
  ["$schema", "string"], ["$id", "string"], ["$vocabulary", "object"], ["$comment", "string"],
  ["title", "string"], ["description", "string"],
  ["format", "string"], ["contentMediaType", "string"], ["contentEncoding", "string"],
  ["deprecated", "boolean"], ["readOnly", "boolean"], ["writeOnly", "boolean"],
  ["examples", "array"], ["default", "any"], ["contentSchema", "any"],
]);

const ANCHOR_NAME = /^[A-Za-z_][-A-Za-z0-9._]*$/;
const ARRAY_INDEX = /^(?:0|[1-9][0-9]*)$/;

/** What the compiler needs to know; see `CompileOptions` in `compile.ts`. */
export interface CompilerOptions {
  readonly label: string;
  readonly schemas: Readonly<Record<string, unknown>>;
  readonly maxNodes: number;
  readonly maxDepth: number;
}

/**
 * What of the dynamic scope matters: for each `$dynamicAnchor` name, the
 * schema it names in the outermost resource entered that defines it.
 */
interface Scope {
  readonly key: string;
  readonly anchors: ReadonlyMap<string, unknown>;
}

const EMPTY_SCOPE: Scope = { key: "", anchors: new Map() };

/** A `$ref` or `$dynamicRef` seen during the walk, resolved after it. */
interface PendingRef {
  readonly ref: string;
  readonly dynamic: boolean;
  /** The base URI it is resolved against. */
  readonly base: string;
  readonly scope: Scope;
  readonly location: string;
  readonly owner: SchemaNode;
  readonly rule: RefRule;
}

/** Compiles one root schema; use once. */
export class SchemaCompiler implements ReaderHost {
  readonly #label: string;
  readonly #root: unknown;
  readonly #maxNodes: number;
  readonly #maxDepth: number;
  readonly #registry: SchemaRegistry;
  readonly #rootResource: Resource;
  /** Compiled nodes by schema object and scope key. */
  readonly #nodes = new Map<JsonObject, Map<string, SchemaNode>>();
  readonly #all: SchemaNode[] = [];
  readonly #inProgress = new Set<SchemaNode>();
  readonly #locations = new Map<Schema, string>();
  /** The schemas each node applies to the same value: applicators and `$ref`s. */
  readonly #sameValue = new Map<Schema, Schema[]>();
  readonly #pending: PendingRef[] = [];
  readonly #vocabularies = new Map<string, ReadonlySet<string> | undefined>();
  readonly #scopes = new Map<string, Scope>();
  /** The resource and scope of the node being filled. */
  #resource: Resource;
  #scope: Scope = EMPTY_SCOPE;
  #depth = 0;

  constructor(root: unknown, options: CompilerOptions) {
    this.#root = root;
    this.#label = options.label;
    this.#maxNodes = options.maxNodes;
    this.#maxDepth = options.maxDepth;
    const fail = (location: string, detail: string): never => {
      throw new RangeError(`${this.#label}: ${detail} at ${location}`);
    };
    const invalid = (location: string, detail: string): never => this.fail(location, detail);
    // Limits are RangeErrors; a malformed $id or anchor is a TypeError.
    const documents = new Map<string, unknown>();
    for (const [uri, schema] of Object.entries(options.schemas)) {
      const absolute = resolveUri(uri, "about:blank");
      if (absolute === undefined || absolute.startsWith("about:") || uri.includes("#")) {
        this.fail("#", `the schemas option needs absolute URIs without a fragment, not '${uri}'`);
      }
      documents.set(absolute, schema);
    }
    this.#registry = new SchemaRegistry({
      maxNodes: options.maxNodes,
      maxDepth: options.maxDepth,
      fail: (location, detail) =>
        detail.includes("(maxSchema") ? fail(location, detail) : invalid(location, detail),
    }, documents);
    this.#rootResource = this.#registry.add(root, DEFAULT_BASE, true);
    this.#resource = this.#rootResource;
  }

  /** Compiles the root and everything it references. */
  compileRoot(): Schema {
    const root = this.#compileIn(this.#root, "#", EMPTY_SCOPE, this.#rootResource);
    for (let next = this.#pending.shift(); next !== undefined; next = this.#pending.shift()) {
      this.#resolve(next);
    }
    this.#rejectLoops();
    this.#markShared();
    foldUnevaluated(this.#all);
    return root;
  }

  fail(location: string, detail: string, hint = ""): never {
    throw new TypeError(`${this.#label}: ${detail} at ${location}${hint}`);
  }

  compile(schema: unknown, location: string, owner?: SchemaNode, sameValue = false): Schema {
    const node = this.#compileIn(schema, location, this.#scope, this.#resource);
    if (owner !== undefined && sameValue) this.#link(owner, node);
    return node;
  }

  #link(owner: SchemaNode, node: Schema): void {
    const next = this.#sameValue.get(owner);
    if (next === undefined) this.#sameValue.set(owner, [node]);
    else next.push(node);
  }

  /** The scope after entering `resource`: its dynamic anchors not yet named are added. */
  #enter(scope: Scope, resource: Resource): Scope {
    const added = [...resource.dynamicAnchors].filter(([name]) => !scope.anchors.has(name));
    if (added.length === 0) return scope;
    const key = `${scope.key} ${added.map(([name]) => `${name}=${resource.uri}`).join(" ")}`;
    let found = this.#scopes.get(key);
    if (found === undefined) {
      found = { key, anchors: new Map([...scope.anchors, ...added]) };
      this.#scopes.set(key, found);
    }
    return found;
  }

  #compileIn(schema: unknown, location: string, scope: Scope, fallback: Resource): Schema {
    if (typeof schema === "boolean") return schema;
    if (!isJsonObject(schema)) {
      return this.fail(location, "a schema must be an object or a boolean");
    }
    const placement = this.#registry.placement(schema);
    const resource = placement?.resource ?? fallback;
    const at = placement?.location ?? location;
    const inner = this.#enter(scope, resource);
    let byScope = this.#nodes.get(schema);
    if (byScope === undefined) {
      byScope = new Map();
      this.#nodes.set(schema, byScope);
    }
    const known = byScope.get(inner.key);
    if (known !== undefined) {
      if (this.#inProgress.has(known)) {
        this.fail(location, "the schema object contains itself (use $ref for recursion)");
      }
      return known;
    }
    if (this.#all.length >= this.#maxNodes) {
      throw new RangeError(
        `${this.#label}: the schema compiles to more than ${this.#maxNodes} subschemas (maxSchemaNodes) at ${at}`,
      );
    }
    if (this.#depth > this.#maxDepth) {
      throw new RangeError(
        `${this.#label}: schemas nest deeper than the limit of ${this.#maxDepth} (maxSchemaDepth) at ${at}`,
      );
    }
    const node = emptyNode();
    byScope.set(inner.key, node);
    this.#all.push(node);
    this.#locations.set(node, at);
    this.#inProgress.add(node);
    this.#checkKeys(schema, at);
    const saved = [this.#resource, this.#scope] as const;
    [this.#resource, this.#scope] = [resource, inner];
    this.#depth++;
    this.#fill(new SchemaReader(this, this.#active(schema, resource), at, node));
    this.#depth--;
    [this.#resource, this.#scope] = saved;
    this.#inProgress.delete(node);
    return node;
  }

  /** The vocabularies `resource`'s dialect turns on, or `undefined` for all of them. */
  #vocabulary(resource: Resource): ReadonlySet<string> | undefined {
    const dialect = resource.dialect;
    if (this.#vocabularies.has(dialect)) return this.#vocabularies.get(dialect);
    let active: ReadonlySet<string> | undefined;
    const [uri] = splitFragment(resolveUri(dialect, resource.uri) ?? dialect);
    const meta = uri === DIALECT_2020_12 ? undefined : this.#registry.resource(uri);
    const declared = isJsonObject(meta?.root) ? meta.root.$vocabulary : undefined;
    if (isJsonObject(declared)) {
      for (const [vocabulary, required] of Object.entries(declared)) {
        if (required === true && !KNOWN_VOCABULARIES.has(vocabulary)) {
          this.fail(
            resource.location,
            `the dialect '${uri}' requires the unsupported vocabulary '${vocabulary}'`,
          );
        }
      }
      active = new Set(Object.keys(declared).filter((name) => KNOWN_VOCABULARIES.has(name)));
    }
    this.#vocabularies.set(dialect, active);
    return active;
  }

  /** The schema without the keywords of vocabularies its dialect leaves out. */
  #active(schema: JsonObject, resource: Resource): JsonObject {
    const active = this.#vocabulary(resource);
    if (active === undefined) return schema;
    const off = (key: string) => {
      const vocabulary = KEYWORD_VOCABULARY.get(key);
      return vocabulary !== undefined && !active.has(vocabulary);
    };
    if (!Object.keys(schema).some(off)) return schema;
    return Object.fromEntries(Object.entries(schema).filter(([key]) => !off(key)));
  }

  #checkKeys(schema: JsonObject, location: string): void {
    for (const key of Object.keys(schema)) {
      if (VALIDATION.has(key) || key.startsWith("x-")) continue;
      const kind = ANNOTATIONS.get(key);
      if (kind === undefined) {
        this.fail(location, `unsupported schema keyword '${key}'`, suggestion(key));
      }
      const value = schema[key];
      const ok = kind === "any" || value === undefined ||
        (kind === "array"
          ? Array.isArray(value)
          : kind === "object"
          ? isJsonObject(value)
          : typeof value === kind);
      if (!ok) {
        const article = kind === "array" || kind === "object" ? "an" : "a";
        this.fail(location, `'${key}' must be ${article} ${kind}`);
      }
    }
  }

  #fill(read: SchemaReader): void {
    const node = read.node;
    node.types = read.types();
    this.#anyRules(read);
    for (const keyword of ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] as const) {
      const limit = read.number(keyword);
      if (limit !== undefined) node.number.push({ kind: "bound", keyword, limit });
    }
    const divisor = read.number("multipleOf");
    if (divisor !== undefined && divisor <= 0) read.refuse("multipleOf", "a number greater than 0");
    if (divisor !== undefined) node.number.push({ kind: "multipleOf", divisor });
    const minLength = read.count("minLength");
    if (minLength !== undefined && minLength > 0) {
      node.string.push({ kind: "minLength", limit: minLength });
    }
    const maxLength = read.count("maxLength");
    if (maxLength !== undefined) node.string.push({ kind: "maxLength", limit: maxLength });
    const pattern = read.string("pattern");
    if (pattern !== undefined) {
      const regex = read.regex("pattern", pattern);
      node.string.push({ kind: "pattern", source: pattern, regex, maxLength });
    }
    this.#arrayRules(read);
    this.#objectRules(read);
    // Containers: compiled so that their schemas are checked too.
    read.subschemaMap("$defs");
    read.subschemaMap("definitions");
  }

  #anyRules(read: SchemaReader): void {
    const { any } = read.node;
    if (read.has("const")) any.push({ kind: "const", value: read.schema.const });
    const members = read.array("enum");
    if (members !== undefined) any.push({ kind: "enum", members });
    for (const keyword of ["$ref", "$dynamicRef"] as const) {
      const ref = read.string(keyword);
      if (ref === undefined) continue;
      const rule: RefRule = { kind: "ref", target: undefined };
      this.#pending.push({
        ref,
        dynamic: keyword === "$dynamicRef",
        base: this.#resource.uri,
        scope: this.#scope,
        location: read.at(keyword),
        owner: read.node,
        rule,
      });
      any.push(rule);
    }
    for (const keyword of ["$anchor", "$dynamicAnchor"]) {
      const anchor = read.string(keyword);
      if (anchor !== undefined && !ANCHOR_NAME.test(anchor)) {
        read.refuse(keyword, "a plain name such as 'item'");
      }
    }
    for (const kind of ["allOf", "anyOf", "oneOf"] as const) {
      const schemas = read.subschemas(kind, true);
      if (schemas !== undefined) any.push({ kind, schemas });
    }
    const not = read.subschema("not", true);
    if (not !== undefined) any.push({ kind: "not", schema: not });
    const condition = read.subschema("if", true);
    const then = read.subschema("then", condition !== undefined);
    const otherwise = read.subschema("else", condition !== undefined);
    // Without `if`, `then` and `else` do nothing (they are still compiled, to be checked).
    if (condition !== undefined) any.push({ kind: "if", condition, then, otherwise });
  }

  #arrayRules(read: SchemaReader): void {
    const { array } = read.node;
    const prefix = read.subschemas("prefixItems");
    const rest = read.subschema("items");
    if (prefix !== undefined || rest !== undefined) {
      array.push({ kind: "items", keyword: "items", prefix: prefix ?? [], rest });
    }
    const schema = read.subschema("contains");
    const min = read.count("minContains") ?? 1;
    const max = read.count("maxContains") ?? Infinity;
    // Kept with `minContains: 0` too: what it matches counts as evaluated.
    if (schema !== undefined) array.push({ kind: "contains", schema, min, max });
    const minItems = read.count("minItems");
    if (minItems !== undefined && minItems > 0) array.push({ kind: "minItems", limit: minItems });
    const maxItems = read.count("maxItems");
    if (maxItems !== undefined) array.push({ kind: "maxItems", limit: maxItems });
    if (read.boolean("uniqueItems") === true) array.push({ kind: "uniqueItems" });
    read.node.unevaluatedItems = read.subschema("unevaluatedItems");
  }

  #objectRules(read: SchemaReader): void {
    const { object } = read.node;
    const properties = read.subschemaMap("properties");
    const required = read.strings("required");
    const patterns = read.subschemaMap("patternProperties")?.map(([source, schema]) => ({
      source,
      regex: read.regex("patternProperties", source, read.at("patternProperties", source)),
      schema,
    }));
    const additional = read.subschema("additionalProperties");
    const names = read.subschema("propertyNames");
    const anyKeys = properties !== undefined || required !== undefined ||
      patterns !== undefined || additional !== undefined || names !== undefined;
    if (anyKeys) {
      object.push({
        kind: "keys",
        keyword: "additionalProperties",
        properties: properties ?? [],
        required: required ?? [],
        patterns: patterns ?? [],
        additional,
        names,
      });
    }
    const minProperties = read.count("minProperties");
    if (minProperties !== undefined && minProperties > 0) {
      object.push({ kind: "minProperties", limit: minProperties });
    }
    const maxProperties = read.count("maxProperties");
    if (maxProperties !== undefined) object.push({ kind: "maxProperties", limit: maxProperties });
    const dependentRequired = read.stringListMap("dependentRequired");
    if (dependentRequired !== undefined && dependentRequired.length > 0) {
      object.push({ kind: "dependentRequired", rules: dependentRequired });
    }
    const dependentSchemas = read.subschemaMap("dependentSchemas", true);
    if (dependentSchemas !== undefined && dependentSchemas.length > 0) {
      object.push({ kind: "dependentSchemas", rules: dependentSchemas });
    }
    read.node.unevaluatedProperties = read.subschema("unevaluatedProperties");
  }

  /** Resolves one `$ref` or `$dynamicRef`, compiling its target in the reference's scope. */
  #resolve(pending: PendingRef): void {
    const { ref, location } = pending;
    const absolute = resolveUri(ref, pending.base);
    if (absolute === undefined) {
      this.fail(location, `malformed $ref '${ref}' (base URI ${pending.base})`);
    }
    const [uri, fragment] = splitFragment(absolute);
    const resource = this.#registry.resource(uri);
    if (resource === undefined) {
      this.fail(
        location,
        `$ref '${ref}' names '${uri}', which is not among the schemas given (nothing is fetched: pass it in the schemas option)`,
      );
    }
    let target: unknown;
    let at: string;
    if (fragment === "" || fragment.startsWith("/")) {
      [target, at] = this.#follow(resource, fragment, pending);
    } else {
      target = resource.anchors.get(fragment);
      if (target === undefined) this.fail(location, `$ref '${ref}' names no $anchor`);
      at = `${resource.location}${fragment}`;
    }
    // A dynamic reference to a dynamic anchor goes to the outermost one in scope.
    if (pending.dynamic && resource.dynamicAnchors.get(fragment) === target) {
      target = pending.scope.anchors.get(fragment) ?? target;
    }
    const node = this.#compileIn(target, at, pending.scope, resource);
    pending.rule.target = node;
    this.#link(pending.owner, node);
  }

  /** Follows a JSON pointer from a resource's root: the value there and its location. */
  #follow(resource: Resource, pointer: string, pending: PendingRef): [unknown, string] {
    let value = resource.root;
    let location = resource.location;
    for (const raw of pointer === "" ? [] : pointer.slice(1).split("/")) {
      const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
      if (Array.isArray(value) && ARRAY_INDEX.test(key) && Number(key) < value.length) {
        value = value[Number(key)];
      } else if (isJsonObject(value) && Object.hasOwn(value, key)) {
        value = value[key];
      } else {
        return this.fail(pending.location, `$ref '${pending.ref}' points at nothing`);
      }
      location += `/${pointerToken(key)}`;
    }
    return [value, location];
  }

  /**
   * Marks the schemas reachable from some schema along two paths of in-place
   * applicators (see `SchemaNode.memo`): from each node with two or more
   * in-place edges, counts paths (up to 2) in topological order. Past a
   * budget of steps, every schema with two in-place parents is marked
   * instead, which covers them all.
   */
  #markShared(): void {
    const edges = this.#sameValue;
    let budget = 1_000_000;
    const marked = new Set<Schema>();
    for (const [fork, targets] of edges) {
      if (targets.length < 2) continue;
      // Reverse postorder of what the fork reaches, without recursion.
      const order: Schema[] = [];
      const seen = new Set<Schema>([fork]);
      const stack: [Schema, number][] = [[fork, 0]];
      while (stack.length > 0 && budget > 0) {
        const top = stack[stack.length - 1]!;
        const children = edges.get(top[0]) ?? [];
        const child = children[top[1]++];
        budget--;
        if (child === undefined) {
          stack.pop();
          order.push(top[0]);
        } else if (!seen.has(child)) {
          seen.add(child);
          stack.push([child, 0]);
        }
      }
      if (budget <= 0) {
        const parents = new Map<Schema, number>();
        for (const list of edges.values()) {
          for (const node of list) parents.set(node, (parents.get(node) ?? 0) + 1);
        }
        for (const [node, count] of parents) if (count >= 2) marked.add(node);
        break;
      }
      const paths = new Map<Schema, number>([[fork, 1]]);
      for (let i = order.length - 1; i >= 0; i--) {
        const node = order[i]!;
        const count = paths.get(node) ?? 0;
        for (const child of edges.get(node) ?? []) {
          const next = Math.min(2, (paths.get(child) ?? 0) + count);
          paths.set(child, next);
          if (next >= 2) marked.add(child);
        }
      }
    }
    for (const node of marked) if (typeof node !== "boolean") node.memo = true;
  }

  /** Refuses a cycle of `$ref`s and applicators that never moves into the value. */
  #rejectLoops(): void {
    const done = new Set<Schema>();
    const active = new Set<Schema>();
    const visit = (node: Schema): void => {
      active.add(node);
      for (const next of this.#sameValue.get(node) ?? []) {
        if (active.has(next)) {
          const location = this.#locations.get(next) ?? "#";
          this.fail(location, "'$ref' loops back here without moving into the value");
        }
        if (!done.has(next)) visit(next);
      }
      active.delete(node);
      done.add(node);
    };
    for (const node of this.#sameValue.keys()) {
      if (!done.has(node)) visit(node);
    }
  }
}

/** " (did you mean 'required'?)" for a near miss of a known keyword, else "". */
function suggestion(key: string): string {
  if (key.length < 4) return "";
  let best = "";
  let bestDistance = 3;
  for (const known of [...VALIDATION, ...ANNOTATIONS.keys()]) {
    const distance = editDistance(key.toLowerCase(), known.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [known, distance];
  }
  return best === "" ? "" : ` (did you mean '${best}'?)`;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      row.push(Math.min(previous[j]! + 1, row[j - 1]! + 1, substitution));
    }
    previous = row;
  }
  return previous[b.length]!;
}
