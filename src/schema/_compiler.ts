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

import { EMPTY_SCOPE, type Scope, Scopes, Vocabularies } from "./_dialect.ts";
import { type ReaderHost, SchemaReader } from "./_reader.ts";
import {
  DEFAULT_BASE,
  pointerToken,
  resolveUri,
  type Resource,
  SchemaRegistry,
  splitFragment,
} from "./_registry.ts";
import { emptyNode, type RefRule, type Schema, type SchemaNode } from "./_tree.ts";
import { FORMATS } from "./_formats.ts";
import { markShared, rejectLoops } from "./_graph.ts";
import { FORMAT_ASSERTION_VOCABULARY } from "./_metaschemas.ts";
import { suggestion } from "./_suggest.ts";
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

/** Keywords of earlier drafts that 2020-12 replaced, with what to write instead. */
const EARLIER_DRAFTS: ReadonlyMap<string, string> = new Map([
  ["dependencies", "use dependentRequired or dependentSchemas"],
  ["additionalItems", "use items after prefixItems"],
  ["$recursiveRef", "use $dynamicRef"],
  ["$recursiveAnchor", "use $dynamicAnchor"],
]);

/** What the compiler needs to know; see `CompileOptions` in `compile.ts`. */
export interface CompilerOptions {
  readonly label: string;
  readonly schemas: Readonly<Record<string, unknown>>;
  readonly maxNodes: number;
  readonly maxDepth: number;
  readonly assertFormats: boolean;
  readonly unknownKeywords: "annotate" | "refuse-typos" | "refuse";
}

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
  readonly #assertFormats: boolean;
  readonly #unknownKeywords: CompilerOptions["unknownKeywords"];
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
  readonly #vocabularies: Vocabularies;
  readonly #scopes = new Scopes();
  /** The resource and scope of the node being filled. */
  #resource: Resource;
  #scope: Scope = EMPTY_SCOPE;
  #depth = 0;

  constructor(root: unknown, options: CompilerOptions) {
    this.#root = root;
    this.#label = options.label;
    this.#maxNodes = options.maxNodes;
    this.#maxDepth = options.maxDepth;
    this.#assertFormats = options.assertFormats;
    this.#unknownKeywords = options.unknownKeywords;
    // A limit passed is a RangeError; a malformed $id or anchor is a TypeError.
    const exceeded = (location: string, detail: string): never => {
      throw new RangeError(`${this.#label}: ${detail} at ${location}`);
    };
    const invalid = (location: string, detail: string): never => this.fail(location, detail);
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
      exceeded,
      invalid,
    }, documents);
    this.#vocabularies = new Vocabularies(this.#registry, invalid);
    this.#rootResource = this.#registry.add(root, DEFAULT_BASE, true);
    this.#resource = this.#rootResource;
  }

  /** Compiles the root and everything it references. */
  compileRoot(): Schema {
    const root = this.#compileIn(this.#root, "#", EMPTY_SCOPE, this.#rootResource);
    // Resolving compiles targets, which may add references: the list grows as it is read.
    for (let i = 0; i < this.#pending.length; i++) this.#resolve(this.#pending[i]!);
    rejectLoops(this.#sameValue, (node) => {
      this.fail(
        this.#locations.get(node) ?? "#",
        "'$ref' loops back here without moving into the value",
      );
    });
    markShared(this.#sameValue);
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

  #compileIn(schema: unknown, location: string, scope: Scope, fallback: Resource): Schema {
    if (typeof schema === "boolean") return schema;
    if (!isJsonObject(schema)) {
      return this.fail(location, "a schema must be an object or a boolean");
    }
    const placement = this.#registry.placement(schema);
    const resource = placement?.resource ?? fallback;
    const at = placement?.location ?? location;
    const inner = this.#scopes.enter(scope, resource);
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
    this.#fill(new SchemaReader(this, this.#vocabularies.active(schema, resource), at, node));
    this.#depth--;
    [this.#resource, this.#scope] = saved;
    this.#inProgress.delete(node);
    return node;
  }

  #checkKeys(schema: JsonObject, location: string): void {
    for (const key of Object.keys(schema)) {
      if (VALIDATION.has(key) || key.startsWith("x-")) continue;
      const kind = ANNOTATIONS.get(key);
      if (kind === undefined) {
        // 2020-12 makes an unknown keyword an annotation; a near miss of a known one is a typo,
        // and an earlier draft's keyword would silently stop validating what it used to.
        if (this.#unknownKeywords === "annotate") continue;
        const hint = suggestion(key, [...VALIDATION, ...ANNOTATIONS.keys()]);
        const earlier = EARLIER_DRAFTS.get(key);
        if (hint === "" && earlier === undefined && this.#unknownKeywords === "refuse-typos") {
          continue;
        }
        if (earlier !== undefined) {
          this.fail(
            location,
            `unsupported schema keyword '${key}' (an earlier draft's; ${earlier})`,
          );
        }
        this.fail(location, `unsupported schema keyword '${key}'`, hint);
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
    this.#format(read);
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

  /** `format`: asserted when asked to, or when the dialect uses format-assertion. */
  #format(read: SchemaReader): void {
    const name = read.string("format");
    const check = name === undefined ? undefined : FORMATS.get(name);
    if (name === undefined || check === undefined) return;
    const asserted = this.#assertFormats ||
      this.#vocabularies.of(this.#resource)?.has(FORMAT_ASSERTION_VOCABULARY) === true;
    if (asserted) read.node.string.push({ kind: "format", name, check });
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
}
