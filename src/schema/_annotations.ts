/**
 * Run-time annotations for the `unevaluated*` keywords the compiler could
 * not fold (`_unevaluated.ts`): which properties and items the keywords
 * around them evaluated, when that depends on which branches passed.
 *
 * A schema's `collect` is its verdict and its annotations in one pass. It
 * runs the schema's other checks once, then each in-place subschema once
 * (in collecting mode only when that subschema can evaluate something),
 * so every subschema is evaluated a bounded number of times per instance
 * location: nested `anyOf`/`oneOf` under `unevaluated*` stay linear in the
 * schema's size, never exponential in its depth. Every branch of `anyOf`
 * is tried (its annotations count when it passes), as the specification
 * requires.
 *
 * @module
 */

import type { SchemaViolation } from "./compile.ts";
import type { Check, Node } from "./_checks.ts";
import { unevaluatedItemMessage, unevaluatedMessage } from "./_messages.ts";
import { evaluates } from "./_unevaluated.ts";
import type { AnyRule, ArrayRule, KeysRule, ObjectRule, Schema, SchemaNode } from "./_tree.ts";
import { hasProperty, isJsonObject, type JsonObject, propertyStep } from "./_values.ts";

/** What one schema evaluated at one instance location. */
export interface Annotations {
  /** Property names evaluated. */
  readonly props: Set<string>;
  /** Whether every property was (`additionalProperties`, `unevaluatedProperties`). */
  allProps: boolean;
  /** How many items from the start were evaluated (`Infinity` for all). */
  items: number;
  /** Indexes `contains` matched. */
  readonly contained: Set<number>;
}

/** Annotations of nothing evaluated yet. */
export function freshAnnotations(): Annotations {
  return { props: new Set(), allProps: false, items: 0, contained: new Set() };
}

/** Adds what `from` evaluated to `into`. */
export function mergeAnnotations(into: Annotations, from: Annotations): void {
  for (const key of from.props) into.props.add(key);
  for (const index of from.contained) into.contained.add(index);
  if (from.allProps) into.allProps = true;
  if (from.items > into.items) into.items = from.items;
}

/**
 * Checks a value and adds what it evaluated to `into`. With `strict` false
 * (to explain a failure), nothing fails: the schema's own keywords annotate
 * whatever their checks say, subschemas only when they pass, and its own
 * `unevaluated*` are left out.
 */
export type Collect = (value: unknown, into: Annotations, strict: boolean) => boolean;

/** What building collectors needs from the closure builder. */
export interface AnnotationHost {
  /** The compiled closures of a schema. */
  node(schema: Schema): Node;
  /** A schema's collector (built once, possibly later). */
  collect(schema: Schema): Collect;
  /** The closures of a schema without its in-place applicators and `contains`. */
  base(schema: SchemaNode): Node;
  /** Runs `run` as part of one validation (collector results are shared within it). */
  session<T>(run: () => T): T;
}

/** One step of a collector, for one keyword. */
type Step = (value: unknown, into: Annotations, strict: boolean) => boolean;

/** An `if` rule. */
type IfRule = Extract<AnyRule, { readonly kind: "if" }>;

/** A `contains` rule. */
type ContainsRule = Extract<ArrayRule, { readonly kind: "contains" }>;

/** Whether a schema's collector can add anything (memoised per build). */
export class Evaluates {
  readonly #props = new Map<Schema, boolean>();
  readonly #items = new Map<Schema, boolean>();

  /** Whether `schema` can evaluate properties or items of the value it applies to. */
  any(schema: Schema): boolean {
    return evaluates(schema, "props", this.#props) || evaluates(schema, "items", this.#items);
  }
}

/** Builds the collector of `schema`; see the module comment. */
export function buildCollect(schema: SchemaNode, host: AnnotationHost, memo: Evaluates): Collect {
  const base = host.base(schema);
  const steps: Step[] = [];
  for (const rule of schema.any) anySteps(rule, host, memo, steps);
  for (const rule of schema.object) {
    const step = objectStep(rule, host, memo);
    if (step !== undefined) steps.push(step);
  }
  for (const rule of schema.array) {
    const step = arrayStep(rule, host);
    if (step !== undefined) steps.push(step);
  }
  const properties = schema.unevaluatedProperties === undefined
    ? undefined
    : host.node(schema.unevaluatedProperties);
  const items = schema.unevaluatedItems === undefined
    ? undefined
    : host.node(schema.unevaluatedItems);
  return collector(base, steps, properties, items);
}

/** Adds the steps of one in-place applicator (none for a rule that evaluates nothing). */
function anySteps(rule: AnyRule, host: AnnotationHost, memo: Evaluates, steps: Step[]): void {
  switch (rule.kind) {
    case "ref":
      if (rule.target !== undefined) steps.push(appliedStep(rule.target, host, memo));
      break;
    case "allOf":
      for (const sub of rule.schemas) steps.push(appliedStep(sub, host, memo));
      break;
    case "anyOf": {
      const run = branchesStep(rule.schemas, host);
      steps.push((value, into, strict) => run(value, into) > 0 || !strict);
      break;
    }
    case "oneOf": {
      const run = branchesStep(rule.schemas, host);
      steps.push((value, into, strict) => run(value, into) === 1 || !strict);
      break;
    }
    case "if":
      steps.push(ifStep(rule, host, memo));
      break;
  }
}

/** A subschema applied in place: strict adds to `into` directly, lenient only if it passes. */
function appliedStep(sub: Schema, host: AnnotationHost, memo: Evaluates): Step {
  if (!memo.any(sub)) {
    const node = host.node(sub);
    return (value, _into, strict) => node.test(value) || !strict;
  }
  const collect = host.collect(sub);
  return (value, into, strict) => {
    if (strict) return collect(value, into, true);
    const found = freshAnnotations();
    if (collect(value, found, true)) mergeAnnotations(into, found);
    return true;
  };
}

/** Collects each branch into its own annotations; returns how many passed. */
function branchesStep(
  subs: readonly Schema[],
  host: AnnotationHost,
): (value: unknown, into: Annotations) => number {
  const collects = subs.map((sub) => host.collect(sub));
  return (value, into) => {
    let passed = 0;
    for (const collect of collects) {
      const found = freshAnnotations();
      if (!collect(value, found, true)) continue;
      passed++;
      mergeAnnotations(into, found);
    }
    return passed;
  };
}

/** `if`: a passing condition counts, then `then` applies; otherwise `else` does. */
function ifStep(rule: IfRule, host: AnnotationHost, memo: Evaluates): Step {
  const condition = host.collect(rule.condition);
  const then = rule.then === undefined ? undefined : appliedStep(rule.then, host, memo);
  const otherwise = rule.otherwise === undefined
    ? undefined
    : appliedStep(rule.otherwise, host, memo);
  return (value, into, strict) => {
    const found = freshAnnotations();
    if (condition(value, found, true)) {
      mergeAnnotations(into, found);
      return then === undefined || then(value, into, strict);
    }
    return otherwise === undefined || otherwise(value, into, strict);
  };
}

/** The step of an object rule that evaluates properties, if it is one. */
function objectStep(rule: ObjectRule, host: AnnotationHost, memo: Evaluates): Step | undefined {
  if (rule.kind === "dependentSchemas") {
    const rules = rule.rules.map(([when, sub]) => [when, appliedStep(sub, host, memo)] as const);
    return (value, into, strict) => {
      if (!isJsonObject(value)) return true;
      for (const [when, step] of rules) {
        if (hasProperty(value, when) && !step(value, into, strict)) return false;
      }
      return true;
    };
  }
  return rule.kind === "keys" ? keysStep(rule) : undefined;
}

/** The properties `properties`, `patternProperties` and `additionalProperties` evaluated. */
function keysStep(rule: KeysRule): Step {
  const declared = new Set(rule.properties.map(([name]) => name));
  const patterns = rule.patterns.map(({ regex }) => regex);
  const all = rule.additional !== undefined;
  return (value, into) => {
    if (!isJsonObject(value)) return true;
    if (all) {
      into.allProps = true;
      return true;
    }
    for (const key in value) {
      if (value[key] === undefined) continue;
      if (declared.has(key) || patterns.some((pattern) => pattern.test(key))) {
        into.props.add(key);
      }
    }
    return true;
  };
}

/** The step of an array rule that evaluates items, if it is one. */
function arrayStep(rule: ArrayRule, host: AnnotationHost): Step | undefined {
  if (rule.kind === "items") {
    const count = rule.rest === undefined ? rule.prefix.length : Infinity;
    return (value, into) => {
      if (Array.isArray(value) && count > into.items) into.items = count;
      return true;
    };
  }
  return rule.kind === "contains" ? containsStep(rule, host) : undefined;
}

/** `contains`: notes every index that matched; passes within `minContains`..`maxContains`. */
function containsStep(rule: ContainsRule, host: AnnotationHost): Step {
  const node = host.node(rule.schema);
  const { min, max } = rule;
  return (value, into, strict) => {
    if (!Array.isArray(value)) return true;
    let matches = 0;
    for (let i = 0; i < value.length; i++) {
      if (!node.test(value[i])) continue;
      matches++;
      into.contained.add(i);
    }
    return (matches >= min && matches <= max) || !strict;
  };
}

/** The collector itself: the schema's other checks, its steps, then its own `unevaluated*`. */
function collector(
  base: Node,
  steps: readonly Step[],
  properties: Node | undefined,
  items: Node | undefined,
): Collect {
  return (value, into, strict) => {
    if (strict && !base.test(value)) return false;
    const own = freshAnnotations();
    for (let i = 0; i < steps.length; i++) {
      if (!steps[i]!(value, own, strict)) return false;
    }
    if (strict) {
      if (properties !== undefined && isJsonObject(value)) {
        if (!unevaluatedPropertiesPass(properties, value, own)) return false;
        own.allProps = true;
      }
      if (items !== undefined && Array.isArray(value)) {
        if (!unevaluatedItemsPass(items, value, own)) return false;
        own.items = Infinity;
      }
    }
    mergeAnnotations(into, own);
    return true;
  };
}

function unevaluatedPropertiesPass(node: Node, object: JsonObject, seen: Annotations): boolean {
  if (seen.allProps) return true;
  for (const key in object) {
    const value = object[key];
    if (value === undefined || seen.props.has(key)) continue;
    if (!node.test(value)) return false;
  }
  return true;
}

function unevaluatedItemsPass(node: Node, items: readonly unknown[], seen: Annotations): boolean {
  for (let i = Math.min(seen.items, items.length); i < items.length; i++) {
    if (!seen.contained.has(i) && !node.test(items[i])) return false;
  }
  return true;
}

/**
 * The checks for a schema's own run-time `unevaluatedProperties` and
 * `unevaluatedItems`, for its report: each gathers what the schema's other
 * keywords evaluated (leniently, see {@linkcode Collect}) and reports what
 * is left.
 */
export function unevaluatedChecks(
  schema: SchemaNode,
  host: AnnotationHost,
): { object?: Check<JsonObject>; array?: Check<readonly unknown[]> } {
  const collect = host.collect(schema);
  const gather = (value: unknown): Annotations =>
    host.session(() => {
      const found = freshAnnotations();
      collect(value, found, false);
      return found;
    });
  const checks: { object?: Check<JsonObject>; array?: Check<readonly unknown[]> } = {};
  if (schema.unevaluatedProperties !== undefined) {
    const rejectsAll = schema.unevaluatedProperties === false;
    const node = host.node(schema.unevaluatedProperties);
    checks.object = {
      test: (object) => unevaluatedPropertiesPass(node, object, gather(object)),
      report: (object, path, out: SchemaViolation[]) => {
        const seen = gather(object);
        if (seen.allProps) return;
        for (const key in object) {
          const value = object[key];
          if (value === undefined || seen.props.has(key) || node.test(value)) continue;
          if (rejectsAll) {
            out.push({ path, keyword: "unevaluatedProperties", message: unevaluatedMessage(key) });
          } else {
            node.report(value, path + propertyStep(key), out);
          }
        }
      },
    };
  }
  if (schema.unevaluatedItems !== undefined) {
    const rejectsAll = schema.unevaluatedItems === false;
    const node = host.node(schema.unevaluatedItems);
    checks.array = {
      test: (items) => unevaluatedItemsPass(node, items, gather(items)),
      report: (items, path, out) => {
        const seen = gather(items);
        for (let i = Math.min(seen.items, items.length); i < items.length; i++) {
          if (seen.contained.has(i) || node.test(items[i])) continue;
          if (rejectsAll) {
            out.push({ path, keyword: "unevaluatedItems", message: unevaluatedItemMessage(i) });
          } else {
            node.report(items[i], `${path}[${i}]`, out);
          }
        }
      },
    };
  }
  return checks;
}
