/**
 * Walks a schema once and builds its tree of checks: refuses unknown
 * keywords and malformed values, resolves local `$ref`s after the walk (so
 * recursive schemas terminate), and refuses `$ref` loops that would never
 * reach into the value.
 *
 * @module
 */

import { type CheckGroups, FALSE_NODE, fillNode, type Node, TRUE_NODE } from "./_checks.ts";
import * as arrays from "./_arrays.ts";
import * as keywords from "./_keywords.ts";
import * as objects from "./_objects.ts";
import { pointerToken, type ReaderHost, SchemaReader } from "./_reader.ts";
import { isJsonObject, type JsonObject } from "./_values.ts";

/** Keywords that validate (or hold schemas), handled in `#checks`. */
// deno-fmt-ignore
const VALIDATION: ReadonlySet<string> = new Set([
  "type", "enum", "const", "$ref", "allOf", "anyOf", "oneOf", "not", "if", "then", "else",
  "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
  "minLength", "maxLength", "pattern",
  "prefixItems", "items", "contains", "minContains", "maxContains", "minItems", "maxItems",
  "uniqueItems",
  "properties", "required", "patternProperties", "additionalProperties", "propertyNames",
  "minProperties", "maxProperties", "dependentRequired", "dependentSchemas",
  "$defs", "definitions", "$anchor",
]);

/** Keywords accepted and ignored, with the kind of value each must have. */
// deno-fmt-ignore
const ANNOTATIONS: ReadonlyMap<string, "string" | "boolean" | "array" | "any"> = new Map([
  ["$schema", "string"], ["$comment", "string"], ["title", "string"], ["description", "string"],
  ["format", "string"], ["contentMediaType", "string"], ["contentEncoding", "string"],
  ["deprecated", "boolean"], ["readOnly", "boolean"], ["writeOnly", "boolean"],
  ["examples", "array"], ["default", "any"], ["contentSchema", "any"],
]);

const ANCHOR_NAME = /^[A-Za-z_][-A-Za-z0-9._]*$/;
const ARRAY_INDEX = /^(?:0|[1-9][0-9]*)$/;

/** A `$ref` seen during the walk, resolved after it. */
interface PendingRef {
  readonly ref: string;
  readonly location: string;
  readonly owner: Node;
  readonly target: Node;
}

const unresolved = (): never => {
  throw new Error("Cannot validate: a $ref was used before it was resolved");
};

/** Compiles one root schema; use once. */
export class SchemaCompiler implements ReaderHost {
  readonly #label: string;
  readonly #root: unknown;
  /** The root's `$id` without a trailing `#`: refs may start with it. */
  readonly #rootId: string | undefined;
  readonly #nodes = new Map<JsonObject, Node>();
  readonly #inProgress = new Set<JsonObject>();
  readonly #locations = new Map<Node, string>();
  /** The nodes each node applies to the same value: applicators and `$ref`s. */
  readonly #sameValue = new Map<Node, Node[]>();
  readonly #anchors = new Map<string, Node>();
  readonly #pending: PendingRef[] = [];

  constructor(root: unknown, label: string) {
    this.#root = root;
    this.#label = label;
    const id = isJsonObject(root) ? root.$id : undefined;
    this.#rootId = typeof id === "string" ? id.replace(/#$/, "") : undefined;
  }

  /** Compiles the root and everything it references. */
  compileRoot(): Node {
    const root = this.compile(this.#root, "#");
    this.#resolveRefs();
    this.#rejectLoops();
    return root;
  }

  fail(location: string, detail: string, hint = ""): never {
    throw new TypeError(`${this.#label}: ${detail} at ${location}${hint}`);
  }

  compile(schema: unknown, location: string, owner?: Node, sameValue = false): Node {
    const node = this.#compileSchema(schema, location);
    if (owner !== undefined && sameValue) this.#link(owner, node);
    return node;
  }

  #link(owner: Node, node: Node): void {
    const next = this.#sameValue.get(owner);
    if (next === undefined) this.#sameValue.set(owner, [node]);
    else next.push(node);
  }

  #compileSchema(schema: unknown, location: string): Node {
    if (schema === true) return TRUE_NODE;
    if (schema === false) return FALSE_NODE;
    if (!isJsonObject(schema)) {
      return this.fail(location, "a schema must be an object or a boolean");
    }
    const known = this.#nodes.get(schema);
    if (known !== undefined) {
      if (this.#inProgress.has(schema)) {
        this.fail(location, "the schema object contains itself (use $ref for recursion)");
      }
      return known;
    }
    const node: Node = { test: unresolved, report: unresolved };
    this.#nodes.set(schema, node);
    this.#locations.set(node, location);
    this.#inProgress.add(schema);
    this.#checkKeys(schema, location);
    fillNode(node, this.#checks(new SchemaReader(this, schema, location, node)));
    this.#inProgress.delete(schema);
    return node;
  }

  #checkKeys(schema: JsonObject, location: string): void {
    for (const key of Object.keys(schema)) {
      if (VALIDATION.has(key) || key.startsWith("x-")) continue;
      const kind = key === "$id" && location === "#" ? "string" : ANNOTATIONS.get(key);
      if (kind === undefined) {
        const detail = key === "$id"
          ? "'$id' is only supported at the root"
          : `unsupported schema keyword '${key}'`;
        this.fail(location, detail, suggestion(key));
      }
      const value = schema[key];
      const ok = kind === "any" || value === undefined ||
        (kind === "array" ? Array.isArray(value) : typeof value === kind);
      if (!ok) this.fail(location, `'${key}' must be ${kind === "array" ? "an" : "a"} ${kind}`);
    }
  }

  #checks(read: SchemaReader): CheckGroups {
    const types = read.types();
    const groups: CheckGroups = {
      type: types === undefined ? undefined : keywords.typeCheck(types),
      only: types?.length === 1 ? types[0] : undefined,
      any: [],
      string: [],
      number: [],
      array: [],
      object: [],
    };
    this.#anyChecks(read, groups);
    for (const key of ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] as const) {
      const limit = read.number(key);
      if (limit !== undefined) groups.number.push(keywords.boundCheck(key, limit));
    }
    const divisor = read.number("multipleOf");
    if (divisor !== undefined && divisor <= 0) read.refuse("multipleOf", "a number greater than 0");
    if (divisor !== undefined) groups.number.push(keywords.multipleOfCheck(divisor));
    const minLength = read.count("minLength");
    if (minLength !== undefined && minLength > 0) {
      groups.string.push(keywords.minLengthCheck(minLength));
    }
    const maxLength = read.count("maxLength");
    if (maxLength !== undefined) groups.string.push(keywords.maxLengthCheck(maxLength));
    const pattern = read.string("pattern");
    if (pattern !== undefined) {
      groups.string.push(keywords.patternCheck(pattern, read.regex("pattern", pattern)));
    }
    this.#arrayChecks(read, groups);
    this.#objectChecks(read, groups);
    // Containers: compiled so that their schemas are checked too.
    read.subschemaMap("$defs");
    read.subschemaMap("definitions");
    return groups;
  }

  #anyChecks(read: SchemaReader, { any }: CheckGroups): void {
    if (read.has("const")) any.push(keywords.constCheck(read.schema.const));
    const members = read.array("enum");
    if (members !== undefined) any.push(keywords.enumCheck(members));
    const ref = read.string("$ref");
    if (ref !== undefined) {
      const target: Node = { test: unresolved, report: unresolved };
      this.#pending.push({ ref, location: read.at("$ref"), owner: read.node, target });
      any.push(keywords.refCheck(target));
    }
    const anchor = read.string("$anchor");
    if (anchor !== undefined) {
      if (!ANCHOR_NAME.test(anchor)) read.refuse("$anchor", "a plain name such as 'item'");
      if (this.#anchors.has(anchor)) this.fail(read.location, `duplicate $anchor '${anchor}'`);
      this.#anchors.set(anchor, read.node);
    }
    const allOf = read.subschemas("allOf", true);
    if (allOf !== undefined) any.push(keywords.allOfCheck(allOf));
    const anyOf = read.subschemas("anyOf", true);
    if (anyOf !== undefined) any.push(keywords.anyOfCheck(anyOf));
    const oneOf = read.subschemas("oneOf", true);
    if (oneOf !== undefined) any.push(keywords.oneOfCheck(oneOf));
    const not = read.subschema("not", true);
    if (not !== undefined) any.push(keywords.notCheck(not));
    const condition = read.subschema("if", true);
    const then = read.subschema("then", condition !== undefined);
    const otherwise = read.subschema("else", condition !== undefined);
    // Without `if`, `then` and `else` do nothing (they are still compiled, to be checked).
    if (condition !== undefined && (then !== undefined || otherwise !== undefined)) {
      any.push(keywords.conditionalCheck(condition, then, otherwise));
    }
  }

  #arrayChecks(read: SchemaReader, { array }: CheckGroups): void {
    const prefix = read.subschemas("prefixItems");
    const items = read.subschema("items");
    if (prefix !== undefined || items !== undefined) {
      array.push(arrays.itemsCheck(prefix ?? [], items));
    }
    const contains = read.subschema("contains");
    const minContains = read.count("minContains") ?? 1;
    const maxContains = read.count("maxContains") ?? Infinity;
    if (contains !== undefined && (minContains > 0 || maxContains < Infinity)) {
      array.push(arrays.containsCheck(contains, minContains, maxContains));
    }
    const minItems = read.count("minItems");
    if (minItems !== undefined && minItems > 0) array.push(arrays.minItemsCheck(minItems));
    const maxItems = read.count("maxItems");
    if (maxItems !== undefined) array.push(arrays.maxItemsCheck(maxItems));
    if (read.boolean("uniqueItems") === true) array.push(arrays.uniqueItemsCheck());
  }

  #objectChecks(read: SchemaReader, { object }: CheckGroups): void {
    const properties = read.subschemaMap("properties") ?? [];
    const required = read.strings("required") ?? [];
    const patterns = (read.subschemaMap("patternProperties") ?? []).map(([source, node]) => ({
      pattern: read.regex("patternProperties", source, read.at("patternProperties", source)),
      node,
    }));
    const additional = read.subschema("additionalProperties");
    const names = read.subschema("propertyNames");
    const keys = objects.keysCheck({ properties, required, patterns, additional, names });
    if (keys !== undefined) object.push(keys);
    const minProperties = read.count("minProperties");
    if (minProperties !== undefined && minProperties > 0) {
      object.push(objects.minPropertiesCheck(minProperties));
    }
    const maxProperties = read.count("maxProperties");
    if (maxProperties !== undefined) object.push(objects.maxPropertiesCheck(maxProperties));
    const dependentRequired = read.stringListMap("dependentRequired");
    if (dependentRequired !== undefined && dependentRequired.length > 0) {
      object.push(objects.dependentRequiredCheck(dependentRequired));
    }
    const dependentSchemas = read.subschemaMap("dependentSchemas", true);
    if (dependentSchemas !== undefined && dependentSchemas.length > 0) {
      object.push(objects.dependentSchemasCheck(dependentSchemas));
    }
  }

  /** Resolves every `$ref`, compiling targets reached only through one. */
  #resolveRefs(): void {
    const byAnchor: PendingRef[] = [];
    for (let next = this.#pending.shift(); next !== undefined; next = this.#pending.shift()) {
      const fragment = this.#fragment(next);
      if (fragment !== "" && !fragment.startsWith("/")) {
        byAnchor.push(next); // anchors are all known once every target is compiled
        continue;
      }
      const [schema, location] = this.#follow(fragment, next);
      this.#bind(next, this.compile(schema, location));
    }
    for (const pending of byAnchor) {
      const name = this.#fragment(pending);
      const node = this.#anchors.get(name);
      if (node === undefined) this.fail(pending.location, `$ref '${pending.ref}' names no $anchor`);
      this.#bind(pending, node);
    }
  }

  #bind({ owner, target }: PendingRef, node: Node): void {
    target.test = node.test;
    target.report = node.report;
    this.#link(owner, node);
  }

  /** The decoded fragment of a local `$ref` (without `#`). */
  #fragment({ ref, location }: PendingRef): string {
    let local = ref;
    if (this.#rootId !== undefined && this.#rootId !== "" && ref.startsWith(this.#rootId)) {
      // The root's own URI, with or without a fragment, is a local reference.
      local = ref.slice(this.#rootId.length) || "#";
    }
    if (!local.startsWith("#")) {
      this.fail(location, `unsupported $ref '${ref}' (only local references starting with '#')`);
    }
    try {
      return decodeURIComponent(local.slice(1));
    } catch {
      return this.fail(location, `malformed $ref '${ref}'`);
    }
  }

  /** Follows a JSON pointer from the root: the value there and its location. */
  #follow(pointer: string, pending: PendingRef): [unknown, string] {
    let value = this.#root;
    let location = "#";
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

  /** Refuses a cycle of `$ref`s and applicators that never moves into the value. */
  #rejectLoops(): void {
    const done = new Set<Node>();
    const active = new Set<Node>();
    const visit = (node: Node): void => {
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
