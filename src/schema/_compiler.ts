/**
 * Walks a schema once and builds its tree of rules (`_tree.ts`): refuses
 * unknown keywords and malformed values, resolves local `$ref`s after the
 * walk (so recursive schemas terminate), and refuses `$ref` loops that
 * would never reach into the value. The backends turn the tree into code.
 *
 * @module
 */

import { pointerToken, type ReaderHost, SchemaReader } from "./_reader.ts";
import { emptyNode, type RefRule, type Schema, type SchemaNode } from "./_tree.ts";
import { isJsonObject, type JsonObject } from "./_values.ts";

/** Keywords that validate (or hold schemas), handled in `#fill`. */
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
  readonly owner: SchemaNode;
  readonly rule: RefRule;
}

/** Compiles one root schema; use once. */
export class SchemaCompiler implements ReaderHost {
  readonly #label: string;
  readonly #root: unknown;
  /** The root's `$id` without a trailing `#`: refs may start with it. */
  readonly #rootId: string | undefined;
  readonly #nodes = new Map<JsonObject, SchemaNode>();
  readonly #inProgress = new Set<JsonObject>();
  readonly #locations = new Map<Schema, string>();
  /** The schemas each node applies to the same value: applicators and `$ref`s. */
  readonly #sameValue = new Map<Schema, Schema[]>();
  readonly #anchors = new Map<string, SchemaNode>();
  readonly #pending: PendingRef[] = [];

  constructor(root: unknown, label: string) {
    this.#root = root;
    this.#label = label;
    const id = isJsonObject(root) ? root.$id : undefined;
    this.#rootId = typeof id === "string" ? id.replace(/#$/, "") : undefined;
  }

  /** Compiles the root and everything it references. */
  compileRoot(): Schema {
    const root = this.compile(this.#root, "#");
    this.#resolveRefs();
    this.#rejectLoops();
    return root;
  }

  fail(location: string, detail: string, hint = ""): never {
    throw new TypeError(`${this.#label}: ${detail} at ${location}${hint}`);
  }

  compile(schema: unknown, location: string, owner?: SchemaNode, sameValue = false): Schema {
    const node = this.#compileSchema(schema, location);
    if (owner !== undefined && sameValue) this.#link(owner, node);
    return node;
  }

  #link(owner: SchemaNode, node: Schema): void {
    const next = this.#sameValue.get(owner);
    if (next === undefined) this.#sameValue.set(owner, [node]);
    else next.push(node);
  }

  #compileSchema(schema: unknown, location: string): Schema {
    if (typeof schema === "boolean") return schema;
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
    const node = emptyNode();
    this.#nodes.set(schema, node);
    this.#locations.set(node, location);
    this.#inProgress.add(schema);
    this.#checkKeys(schema, location);
    this.#fill(new SchemaReader(this, schema, location, node));
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
      node.string.push({ kind: "pattern", source: pattern, regex: read.regex("pattern", pattern) });
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
    const ref = read.string("$ref");
    if (ref !== undefined) {
      const rule: RefRule = { kind: "ref", target: undefined };
      this.#pending.push({ ref, location: read.at("$ref"), owner: read.node, rule });
      any.push(rule);
    }
    const anchor = read.string("$anchor");
    if (anchor !== undefined) {
      if (!ANCHOR_NAME.test(anchor)) read.refuse("$anchor", "a plain name such as 'item'");
      if (this.#anchors.has(anchor)) this.fail(read.location, `duplicate $anchor '${anchor}'`);
      this.#anchors.set(anchor, read.node);
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
    if (condition !== undefined && (then !== undefined || otherwise !== undefined)) {
      any.push({ kind: "if", condition, then, otherwise });
    }
  }

  #arrayRules(read: SchemaReader): void {
    const { array } = read.node;
    const prefix = read.subschemas("prefixItems");
    const rest = read.subschema("items");
    if (prefix !== undefined || rest !== undefined) {
      array.push({ kind: "items", prefix: prefix ?? [], rest });
    }
    const schema = read.subschema("contains");
    const min = read.count("minContains") ?? 1;
    const max = read.count("maxContains") ?? Infinity;
    if (schema !== undefined && (min > 0 || max < Infinity)) {
      array.push({ kind: "contains", schema, min, max });
    }
    const minItems = read.count("minItems");
    if (minItems !== undefined && minItems > 0) array.push({ kind: "minItems", limit: minItems });
    const maxItems = read.count("maxItems");
    if (maxItems !== undefined) array.push({ kind: "maxItems", limit: maxItems });
    if (read.boolean("uniqueItems") === true) array.push({ kind: "uniqueItems" });
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

  #bind({ owner, rule }: PendingRef, node: Schema): void {
    rule.target = node;
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
