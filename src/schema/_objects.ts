/**
 * Checks for the object keywords.
 *
 * `properties`, `required`, `patternProperties`, `additionalProperties` and
 * `propertyNames` share one pass over the value's own keys. Walking the
 * value (`for...in`, then `object[key]`) is V8's fast path; looking up each
 * property the schema names (`object[name]` with a changing `name`) is not.
 * A property counts as present when it is own, enumerable and not
 * `undefined`, so names inherited from `Object.prototype` (`constructor`,
 * `toString`) are never mistaken for ones the caller sent.
 *
 * @module
 */

import { acceptsAll, type Check, FALSE_NODE, leaf, type Node } from "./_checks.ts";
import {
  additionalMessage,
  dependentRequiredMessage,
  fewerMessage,
  moreMessage,
  propertyNameMessage,
  requiredMessage,
  unevaluatedMessage,
} from "./_messages.ts";
import { hasProperty as has, type JsonObject, propertyStep } from "./_values.ts";

/** A `patternProperties` entry. */
export interface PatternEntry {
  readonly pattern: RegExp;
  readonly node: Node;
}

/** The keywords checked in the pass over an object's keys. */
export interface KeyRules {
  /** The keyword `additional` stands for. */
  readonly keyword: "additionalProperties" | "unevaluatedProperties";
  readonly properties: readonly [string, Node][];
  readonly required: readonly string[];
  readonly patterns: readonly PatternEntry[];
  readonly additional: Node | undefined;
  readonly names: Node | undefined;
}

/** What the schema says about one property name. */
interface Entry {
  /** Its `properties` schema, unless that accepts everything. */
  node: Node | undefined;
  /** Listed in `properties`, so never "additional". */
  declared: boolean;
  required: boolean;
  /** The JSON path step to it, built once. */
  readonly step: string;
}

function entries(rules: KeyRules): Map<string, Entry> {
  const table = new Map<string, Entry>();
  const entry = (key: string): Entry => {
    let found = table.get(key);
    if (found === undefined) {
      found = { node: undefined, declared: false, required: false, step: propertyStep(key) };
      table.set(key, found);
    }
    return found;
  };
  for (const [key, node] of rules.properties) {
    const found = entry(key);
    found.declared = true;
    if (!acceptsAll(node)) found.node = node;
  }
  for (const key of rules.required) entry(key).required = true;
  return table;
}

/** What {@linkcode keysCheck} works out once, for its test and its report. */
interface KeysPlan {
  readonly keyword: KeyRules["keyword"];
  readonly table: Map<string, Entry>;
  readonly requiredCount: number;
  readonly patterns: readonly PatternEntry[];
  /** `additionalProperties`, unless it accepts everything. */
  readonly additional: Node | undefined;
  /** `propertyNames`, unless it accepts everything. */
  readonly names: Node | undefined;
  /** The table's keys, in order (see {@linkcode keysTest}). */
  readonly order: readonly string[];
  /** The table's entries, in the same order. */
  readonly orderEntries: readonly Entry[];
  /** Whether anything applies to keys `properties` does not list. */
  readonly undeclared: boolean;
}

/** Told which rule a property breaks: its name, its value, or as an additional property. */
type Failure = (node: Node, kind: "name" | "value" | "additional") => void;

/** The keywords of {@linkcode KeyRules} as one check, or `undefined` if none applies. */
export function keysCheck(rules: KeyRules): Check<JsonObject> | undefined {
  const plan = keysPlan(rules);
  if (plan === undefined) return undefined;
  return { test: keysTest(plan), report: keysReport(plan) };
}

/** The plan for `rules`, or `undefined` when no rule can fail. */
function keysPlan(rules: KeyRules): KeysPlan | undefined {
  const table = entries(rules);
  const requiredCount = [...table.values()].filter((entry) => entry.required).length;
  const { patterns } = rules;
  const additional = rules.additional !== undefined && !acceptsAll(rules.additional)
    ? rules.additional
    : undefined;
  const names = rules.names !== undefined && !acceptsAll(rules.names) ? rules.names : undefined;
  const checked = [...table.values()].some((entry) => entry.node !== undefined);
  if (!checked && requiredCount === 0 && patterns.length === 0 && !additional && !names) {
    return undefined;
  }
  return {
    keyword: rules.keyword,
    table,
    requiredCount,
    patterns,
    additional,
    names,
    order: [...table.keys()],
    orderEntries: [...table.values()],
    undeclared: patterns.length > 0 || additional !== undefined,
  };
}

/** Calls `fail` for each rule the property breaks; returns false at the first without it. */
function visitKey(
  plan: KeysPlan,
  key: string,
  value: unknown,
  entry: Entry | undefined,
  fail?: Failure,
): boolean {
  const { names, patterns, additional } = plan;
  let ok = true;
  if (names !== undefined && !names.test(key)) {
    if (fail === undefined) return false;
    fail(names, "name");
    ok = false;
  }
  if (entry?.node !== undefined && !entry.node.test(value)) {
    if (fail === undefined) return false;
    fail(entry.node, "value");
    ok = false;
  }
  if (!plan.undeclared) return ok;
  let matched = entry?.declared === true;
  for (let i = 0; i < patterns.length; i++) {
    const { pattern, node } = patterns[i]!;
    if (!pattern.test(key)) continue;
    matched = true;
    if (!node.test(value)) {
      if (fail === undefined) return false;
      fail(node, "value");
      ok = false;
    }
  }
  if (!matched && additional !== undefined && !additional.test(value)) {
    if (fail === undefined) return false;
    fail(additional, "additional");
    ok = false;
  }
  return ok;
}

/** The pass/fail test: one walk over the value's keys, stopping at the first failure. */
function keysTest(plan: KeysPlan): (object: JsonObject) => boolean {
  const { table, requiredCount, patterns, names, order, orderEntries, undeclared } = plan;
  return (object) => {
    let requiredSeen = 0;
    let index = 0;
    for (const key in object) {
      const value = object[key];
      // Values usually list their keys in the schema's order: comparing the next
      // expected key (interned strings compare by pointer) saves most map lookups.
      const entry = order[index] === key ? orderEntries[index] : table.get(key);
      index++;
      if (value === undefined) continue;
      if (entry !== undefined) {
        if (entry.required) requiredSeen++;
        // The common case, a declared property with no other rule, stays inline.
        if (!names && entry.declared && patterns.length === 0) {
          if (entry.node !== undefined && !entry.node.test(value)) return false;
          continue;
        }
      }
      if ((names || undeclared || entry?.node) && !visitKey(plan, key, value, entry)) return false;
    }
    return requiredSeen === requiredCount;
  };
}

/** The report: every rule each property breaks, then every required property missing. */
function keysReport(plan: KeysPlan): Check<JsonObject>["report"] {
  const { table, keyword } = plan;
  return (object, path, out) => {
    const present = new Set<string>();
    for (const key in object) {
      const value = object[key];
      if (value === undefined) continue;
      present.add(key);
      const entry = table.get(key);
      const step = entry?.step ?? propertyStep(key);
      visitKey(plan, key, value, entry, (node, kind) => {
        if (kind === "name") {
          out.push({ path, keyword: "propertyNames", message: propertyNameMessage(key) });
        } else if (kind === "additional" && node === FALSE_NODE) {
          const message = keyword === "additionalProperties"
            ? additionalMessage(key)
            : unevaluatedMessage(key);
          out.push({ path, keyword, message });
        } else {
          node.report(value, path + step, out);
        }
      });
    }
    for (const [key, entry] of table) {
      if (!entry.required || present.has(key)) continue;
      out.push({ path, keyword: "required", message: requiredMessage(key) });
    }
  };
}

function countProperties(object: JsonObject): number {
  let count = 0;
  for (const key in object) {
    if (object[key] !== undefined) count++;
  }
  return count;
}

/** `minProperties`. */
export function minPropertiesCheck(limit: number): Check<JsonObject> {
  const message = fewerMessage(limit, "property", "properties");
  return leaf("minProperties", message, (object) => countProperties(object) >= limit);
}

/** `maxProperties`. */
export function maxPropertiesCheck(limit: number): Check<JsonObject> {
  const message = moreMessage(limit, "property", "properties");
  return leaf("maxProperties", message, (object) => countProperties(object) <= limit);
}

/** `dependentRequired`: when a property is present, others must be too. */
export function dependentRequiredCheck(
  rules: readonly (readonly [string, readonly string[]])[],
): Check<JsonObject> {
  return {
    test: (object) => {
      for (const [when, needed] of rules) {
        if (!has(object, when)) continue;
        for (const key of needed) {
          if (!has(object, key)) return false;
        }
      }
      return true;
    },
    report: (object, path, out) => {
      for (const [when, needed] of rules) {
        if (!has(object, when)) continue;
        for (const key of needed) {
          if (has(object, key)) continue;
          const message = dependentRequiredMessage(key, when);
          out.push({ path, keyword: "dependentRequired", message });
        }
      }
    },
  };
}

/** `dependentSchemas`: when a property is present, the whole object must match a schema. */
export function dependentSchemasCheck(
  rules: readonly (readonly [string, Node])[],
): Check<JsonObject> {
  return {
    test: (object) => {
      for (const [when, node] of rules) {
        if (has(object, when) && !node.test(object)) return false;
      }
      return true;
    },
    report: (object, path, out) => {
      for (const [when, node] of rules) {
        if (has(object, when) && !node.test(object)) node.report(object, path, out);
      }
    },
  };
}
