/**
 * The closure backend: turns a compiled schema tree into a tree of
 * closures, with no `eval`. It is the fallback where `new Function` is
 * forbidden (a Content Security Policy, an eval-free sandbox) and the
 * reference the generated code is tested against.
 *
 * @module
 */

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
import type { AnyRule, ArrayRule, ObjectRule, Schema, SchemaNode } from "./_tree.ts";
import type { JsonObject } from "./_values.ts";

const unresolved = (): never => {
  throw new Error("Cannot validate: a $ref was used before it was resolved");
};

/** Builds the closures of `root` and of every schema it reaches. */
export function buildClosures(root: Schema): Node {
  const built = new Map<SchemaNode, Node>();
  /** `$ref` targets, bound once every node is built (so recursion terminates). */
  const pending: [Node, Schema | undefined][] = [];

  const node = (schema: Schema): Node => {
    if (schema === true) return TRUE_NODE;
    if (schema === false) return FALSE_NODE;
    let found = built.get(schema);
    if (found === undefined) {
      found = { test: unresolved, report: unresolved };
      built.set(schema, found);
      fillNode(found, groups(schema));
    }
    return found;
  };

  const anyCheck = (rule: AnyRule): Check<unknown> => {
    switch (rule.kind) {
      case "const":
        return keywords.constCheck(rule.value);
      case "enum":
        return keywords.enumCheck(rule.members);
      case "ref": {
        const target: Node = { test: unresolved, report: unresolved };
        pending.push([target, rule.target]);
        return keywords.refCheck(target);
      }
      case "allOf":
        return keywords.allOfCheck(rule.schemas.map(node));
      case "anyOf":
        return keywords.anyOfCheck(rule.schemas.map(node));
      case "oneOf":
        return keywords.oneOfCheck(rule.schemas.map(node));
      case "not":
        return keywords.notCheck(node(rule.schema));
      case "if":
        return keywords.conditionalCheck(
          node(rule.condition),
          rule.then === undefined ? undefined : node(rule.then),
          rule.otherwise === undefined ? undefined : node(rule.otherwise),
        );
    }
  };

  const arrayCheck = (rule: ArrayRule): Check<readonly unknown[]> => {
    switch (rule.kind) {
      case "items":
        return arrays.itemsCheck(
          rule.prefix.map(node),
          rule.rest === undefined ? undefined : node(rule.rest),
        );
      case "contains":
        return arrays.containsCheck(node(rule.schema), rule.min, rule.max);
      case "minItems":
        return arrays.minItemsCheck(rule.limit);
      case "maxItems":
        return arrays.maxItemsCheck(rule.limit);
      case "uniqueItems":
        return arrays.uniqueItemsCheck();
    }
  };

  const objectCheck = (rule: ObjectRule): Check<JsonObject> | undefined => {
    switch (rule.kind) {
      case "keys":
        return objects.keysCheck({
          properties: rule.properties.map(([key, schema]) => [key, node(schema)]),
          required: rule.required,
          patterns: rule.patterns.map(({ regex, schema }) => ({
            pattern: regex,
            node: node(schema),
          })),
          additional: rule.additional === undefined ? undefined : node(rule.additional),
          names: rule.names === undefined ? undefined : node(rule.names),
        });
      case "minProperties":
        return objects.minPropertiesCheck(rule.limit);
      case "maxProperties":
        return objects.maxPropertiesCheck(rule.limit);
      case "dependentRequired":
        return objects.dependentRequiredCheck(rule.rules);
      case "dependentSchemas":
        return objects.dependentSchemasCheck(
          rule.rules.map(([key, schema]) => [key, node(schema)]),
        );
    }
  };

  const groups = (schema: SchemaNode): CheckGroups => {
    const { types } = schema;
    return {
      type: types === undefined ? undefined : keywords.typeCheck(types),
      only: types?.length === 1 ? types[0] : undefined,
      any: schema.any.map(anyCheck),
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
            return keywords.patternCheck(rule.source, rule.regex);
        }
      }),
      array: schema.array.map(arrayCheck),
      object: schema.object.map(objectCheck).filter((check) => check !== undefined),
    };
  };

  const rootNode = node(root);
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [target, schema] = next;
    if (schema === undefined) return unresolved();
    // Built completely by now: nothing is in progress between two builds.
    const { test, report } = node(schema);
    target.test = test;
    target.report = report;
  }
  return rootNode;
}
