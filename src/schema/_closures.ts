/**
 * The closure backend: turns a compiled schema tree into a tree of
 * closures, with no `eval`. It is the fallback where `new Function` is
 * forbidden (a Content Security Policy, an eval-free sandbox) and the
 * reference the generated code is tested against.
 *
 * @module
 */

import {
  type AnnotationHost,
  type Annotations,
  buildCollect,
  type Collect,
  Evaluates,
  freshAnnotations,
  mergeAnnotations,
  unevaluatedChecks,
} from "./_annotations.ts";
import {
  type Check,
  type CheckGroups,
  FALSE_NODE,
  fillNode,
  type Node,
  TRUE_NODE,
} from "./_checks.ts";
import * as arrays from "./_arrays.ts";
import * as keywords from "./_keywords.ts";
import * as objects from "./_objects.ts";
import {
  type AnyRule,
  type ArrayRule,
  needsAnnotations,
  type ObjectRule,
  type Schema,
  type SchemaNode,
} from "./_tree.ts";
import type { JsonObject } from "./_values.ts";

const unresolved = (): never => {
  throw new Error("Cannot validate: a $ref was used before it was resolved");
};

/** In-place applicators: left out of a collector's base, which applies them itself. */
const IN_PLACE: ReadonlySet<string> = new Set(["ref", "allOf", "anyOf", "oneOf", "if"]);

/**
 * Builds the closures of schemas, sharing them between calls. Call
 * {@linkcode ClosureBuilder.finish} once every node wanted has been asked
 * for, before validating: it binds the `$ref`s.
 */
export class ClosureBuilder implements AnnotationHost {
  readonly #built = new Map<SchemaNode, Node>();
  readonly #bases = new Map<SchemaNode, Node>();
  readonly #collects = new Map<Schema, Collect>();
  readonly #evaluates = new Evaluates();
  /** `$ref` targets, bound once every node is built (so recursion terminates). */
  readonly #pending: [Node, Schema | undefined][] = [];
  /** Collector results by value, then schema, for the current session (see `session`). */
  readonly #memo = new Map<unknown, Map<SchemaNode, Annotations | null>>();
  #sessions = 0;
  /** The maps of nodes that remember their results (`SchemaNode.memo`). */
  readonly #remembered: Map<unknown, unknown>[] = [];
  /** Collectors named but not built yet. */
  readonly #unbuilt: [SchemaNode, { collect: Collect }][] = [];

  /** The closures of `schema`. */
  node(schema: Schema): Node {
    if (schema === true) return TRUE_NODE;
    if (schema === false) return FALSE_NODE;
    let found = this.#built.get(schema);
    if (found === undefined) {
      found = { test: unresolved, report: unresolved };
      this.#built.set(schema, found);
      if (needsAnnotations(schema)) {
        // Its verdict needs its annotations; its report explains with ordinary checks.
        const extra = unevaluatedChecks(schema, this);
        const groups = this.#groups(schema, false);
        if (extra.object !== undefined) groups.object.push(extra.object);
        if (extra.array !== undefined) groups.array.push(extra.array);
        fillNode(found, groups);
        const collect = this.collect(schema);
        found.test = (value) => this.session(() => collect(value, freshAnnotations(), true));
      } else {
        fillNode(found, this.#groups(schema, false));
      }
      if (schema.memo) this.#remember(found);
    }
    return found;
  }

  /** Whether validating must run in a session (see `session`). */
  get usesSessions(): boolean {
    return this.#remembered.length > 0 || this.#collects.size > 0;
  }

  /**
   * Makes a node remember its verdicts by value, and report each value at
   * each path once, until the session ends (see `SchemaNode.memo`).
   */
  #remember(node: Node): void {
    const { test, report } = node;
    const verdicts = new Map<unknown, boolean>();
    const reported = new Map<unknown, Set<string>>();
    this.#remembered.push(verdicts, reported);
    node.test = (value) => {
      let verdict = verdicts.get(value);
      if (verdict === undefined) {
        verdict = test(value);
        verdicts.set(value, verdict);
      }
      return verdict;
    };
    node.report = (value, path, out) => {
      let paths = reported.get(value);
      if (paths === undefined) {
        paths = new Set();
        reported.set(value, paths);
      }
      if (paths.has(path)) return;
      paths.add(path);
      report(value, path, out);
    };
  }

  /** The closures of `schema` without in-place applicators and `contains`. */
  base(schema: SchemaNode): Node {
    let found = this.#bases.get(schema);
    if (found === undefined) {
      found = { test: unresolved, report: unresolved };
      this.#bases.set(schema, found);
      fillNode(found, this.#groups(schema, true));
    }
    return found;
  }

  /** The collector of `schema` (see `_annotations.ts`); built by `finish`. */
  collect(schema: Schema): Collect {
    let found = this.#collects.get(schema);
    if (found === undefined) {
      if (typeof schema === "boolean") {
        found = (_value, _into, strict) => schema || !strict;
      } else {
        // Collectors of recursive schemas refer to each other: each is built after it is named.
        const holder: { collect: Collect } = { collect: unresolved };
        this.#unbuilt.push([schema, holder]);
        const memo = this.#memo;
        found = (value, into, strict) => {
          if (!strict) return holder.collect(value, into, false);
          // Once per schema and value in a session: shared subschemas stay linear.
          let results = memo.get(value);
          if (results === undefined) {
            results = new Map();
            memo.set(value, results);
          }
          let result = results.get(schema);
          if (result === undefined) {
            const found = freshAnnotations();
            result = holder.collect(value, found, true) ? found : null;
            results.set(schema, result);
          }
          if (result === null) return false;
          mergeAnnotations(into, result);
          return true;
        };
      }
      this.#collects.set(schema, found);
    }
    return found;
  }

  /**
   * Runs `run` as (part of) one validation: collector results are
   * remembered by schema and value until the outermost session ends, so a
   * subschema shared by several branches is evaluated once per value.
   */
  session<T>(run: () => T): T {
    this.enter();
    try {
      return run();
    } finally {
      this.exit();
    }
  }

  /** Opens a session (see `session`); every `enter` needs its `exit`. */
  enter(): void {
    this.#sessions++;
  }

  /** Closes a session; the outermost forgets what it remembered. */
  exit(): void {
    if (--this.#sessions > 0) return;
    this.#memo.clear();
    for (const map of this.#remembered) map.clear();
  }

  /** Builds the collectors named so far and binds every `$ref`, until nothing is left. */
  finish(): void {
    while (this.#pending.length > 0 || this.#unbuilt.length > 0) {
      for (let next = this.#unbuilt.pop(); next !== undefined; next = this.#unbuilt.pop()) {
        const [schema, holder] = next;
        holder.collect = buildCollect(schema, this, this.#evaluates);
      }
      for (let next = this.#pending.pop(); next !== undefined; next = this.#pending.pop()) {
        const [target, schema] = next;
        if (schema === undefined) return unresolved();
        // Built completely by now: nothing is in progress between two builds.
        const { test, report } = this.node(schema);
        target.test = test;
        target.report = report;
      }
    }
  }

  #optional(schema: Schema | undefined): Node | undefined {
    return schema === undefined ? undefined : this.node(schema);
  }

  #anyCheck(rule: AnyRule): Check<unknown> | undefined {
    switch (rule.kind) {
      case "const":
        return keywords.constCheck(rule.value);
      case "enum":
        return keywords.enumCheck(rule.members);
      case "ref": {
        const target: Node = { test: unresolved, report: unresolved };
        this.#pending.push([target, rule.target]);
        return keywords.refCheck(target);
      }
      case "allOf":
        return keywords.allOfCheck(rule.schemas.map((sub) => this.node(sub)));
      case "anyOf":
        return keywords.anyOfCheck(rule.schemas.map((sub) => this.node(sub)));
      case "oneOf":
        return keywords.oneOfCheck(rule.schemas.map((sub) => this.node(sub)));
      case "not":
        return keywords.notCheck(this.node(rule.schema));
      case "if":
        // Without `then` and `else`, `if` only annotates.
        if (rule.then === undefined && rule.otherwise === undefined) return undefined;
        return keywords.conditionalCheck(
          this.node(rule.condition),
          this.#optional(rule.then),
          this.#optional(rule.otherwise),
        );
    }
  }

  #arrayCheck(rule: ArrayRule): Check<readonly unknown[]> | undefined {
    switch (rule.kind) {
      case "items":
        return arrays.itemsCheck(
          rule.prefix.map((sub) => this.node(sub)),
          this.#optional(rule.rest),
          rule.keyword,
        );
      case "contains":
        // `minContains: 0` without `maxContains` only annotates.
        if (rule.min === 0 && rule.max === Infinity) return undefined;
        return arrays.containsCheck(this.node(rule.schema), rule.min, rule.max);
      case "minItems":
        return arrays.minItemsCheck(rule.limit);
      case "maxItems":
        return arrays.maxItemsCheck(rule.limit);
      case "uniqueItems":
        return arrays.uniqueItemsCheck();
    }
  }

  #objectCheck(rule: ObjectRule): Check<JsonObject> | undefined {
    switch (rule.kind) {
      case "keys":
        return objects.keysCheck({
          keyword: rule.keyword,
          properties: rule.properties.map(([key, schema]) => [key, this.node(schema)]),
          required: rule.required,
          patterns: rule.patterns.map(({ regex, schema }) => ({
            pattern: regex,
            node: this.node(schema),
          })),
          additional: this.#optional(rule.additional),
          names: this.#optional(rule.names),
        });
      case "minProperties":
        return objects.minPropertiesCheck(rule.limit);
      case "maxProperties":
        return objects.maxPropertiesCheck(rule.limit);
      case "dependentRequired":
        return objects.dependentRequiredCheck(rule.rules);
      case "dependentSchemas":
        return objects.dependentSchemasCheck(
          rule.rules.map(([key, schema]) => [key, this.node(schema)]),
        );
    }
  }

  /** The checks of a schema; `base` leaves out what a collector applies itself. */
  #groups(schema: SchemaNode, base: boolean): CheckGroups {
    const { types } = schema;
    const any = base ? schema.any.filter((rule) => !IN_PLACE.has(rule.kind)) : schema.any;
    const array = base ? schema.array.filter((rule) => rule.kind !== "contains") : schema.array;
    const object = base
      ? schema.object.filter((rule) => rule.kind !== "dependentSchemas")
      : schema.object;
    return {
      type: types === undefined ? undefined : keywords.typeCheck(types),
      only: types?.length === 1 ? types[0] : undefined,
      any: any.map((rule) => this.#anyCheck(rule)).filter((check) => check !== undefined),
      number: schema.number.map((rule) =>
        rule.kind === "bound"
          ? keywords.boundCheck(rule.keyword, rule.limit)
          : keywords.multipleOfCheck(rule.divisor)
      ),
      string: schema.string.map((rule) => {
        switch (rule.kind) {
          case "minLength":
            return keywords.minLengthCheck(rule.limit);
          case "maxLength":
            return keywords.maxLengthCheck(rule.limit);
          case "pattern":
            return keywords.patternCheck(rule.source, rule.regex, rule.maxLength);
          case "format":
            return keywords.formatCheck(rule.name, rule.check);
        }
      }),
      array: array.map((rule) => this.#arrayCheck(rule)).filter((check) => check !== undefined),
      object: object.map((rule) => this.#objectCheck(rule)).filter((check) => check !== undefined),
    };
  }
}

/**
 * Builds the closures of `root` and of every schema it reaches, as a node
 * whose test and report each run as one session where needed.
 */
export function buildClosures(root: Schema): Node {
  const builder = new ClosureBuilder();
  const node = builder.node(root);
  builder.finish();
  if (!builder.usesSessions) return node;
  return {
    test: (value) => builder.session(() => node.test(value)),
    report: (value, path, out) => builder.session(() => node.report(value, path, out)),
  };
}
