/**
 * Decides, once the tree is complete, which `unevaluatedProperties` and
 * `unevaluatedItems` can be known from the schema alone. Annotations that
 * reach a node unconditionally (its own `properties`, `patternProperties`,
 * `additionalProperties`, `prefixItems` and `items`, and those of `allOf`
 * members and `$ref` targets, which must all pass anyway) give a fixed set
 * of evaluated names, patterns and a prefix length: the keyword then becomes
 * a plain keys or items rule that both backends compile like any other.
 * Only annotations that depend on which branch of `anyOf`, `oneOf`, `if` or
 * `dependentSchemas` passed, or on which items `contains` matched, are left
 * for run time (`_annotations.ts`).
 *
 * @module
 */

import type { KeysRule, PatternRule, Schema, SchemaNode } from "./_tree.ts";

/** Property annotations known from the schema alone. */
interface StaticProperties {
  readonly names: Set<string>;
  readonly patterns: PatternRule[];
  all: boolean;
}

/** Item annotations known from the schema alone: how many from the start, or all. */
interface StaticItems {
  prefix: number;
  all: boolean;
}

/** The schemas applied to the same value whatever happens (`allOf`, `$ref`). */
function unconditional(node: SchemaNode): Schema[] {
  const found: Schema[] = [];
  for (const rule of node.any) {
    if (rule.kind === "allOf") found.push(...rule.schemas);
    if (rule.kind === "ref" && rule.target !== undefined) found.push(rule.target);
  }
  return found;
}

/** The schemas applied to the same value only when some branch passes. */
function conditional(node: SchemaNode): Schema[] {
  const found: Schema[] = [];
  for (const rule of node.any) {
    if (rule.kind === "anyOf" || rule.kind === "oneOf") found.push(...rule.schemas);
    if (rule.kind === "if") {
      for (const sub of [rule.condition, rule.then, rule.otherwise]) {
        if (sub !== undefined) found.push(sub);
      }
    }
  }
  for (const rule of node.object) {
    if (rule.kind === "dependentSchemas") found.push(...rule.rules.map(([, sub]) => sub));
  }
  return found;
}

/** Whether a schema can evaluate properties (`kind` "props") or items, directly or in place. */
export function evaluates(
  schema: Schema,
  kind: "props" | "items",
  memo: Map<Schema, boolean>,
): boolean {
  if (typeof schema === "boolean") return false;
  const known = memo.get(schema);
  if (known !== undefined) return known;
  // In-place applicators never loop (the compiler refuses that), so this terminates.
  const own = kind === "props"
    ? schema.unevaluatedProperties !== undefined ||
      schema.object.some((rule) => rule.kind === "keys")
    : schema.unevaluatedItems !== undefined ||
      schema.array.some((rule) => rule.kind === "items" || rule.kind === "contains");
  const result = own ||
    [...unconditional(schema), ...conditional(schema)].some((sub) => evaluates(sub, kind, memo));
  memo.set(schema, result);
  return result;
}

function staticProperties(
  node: SchemaNode,
  memo: Map<Schema, boolean>,
  into: StaticProperties,
): boolean {
  if (node.unevaluatedProperties !== undefined) into.all = true;
  for (const rule of node.object) {
    if (rule.kind !== "keys") continue;
    for (const [name] of rule.properties) into.names.add(name);
    into.patterns.push(...rule.patterns);
    if (rule.additional !== undefined) into.all = true;
  }
  if (conditional(node).some((sub) => evaluates(sub, "props", memo))) return false;
  return unconditional(node).every((sub) =>
    typeof sub === "boolean" || staticProperties(sub, memo, into)
  );
}

function staticItems(node: SchemaNode, memo: Map<Schema, boolean>, into: StaticItems): boolean {
  if (node.unevaluatedItems !== undefined) into.all = true;
  for (const rule of node.array) {
    if (rule.kind === "contains") return false;
    if (rule.kind !== "items") continue;
    into.prefix = Math.max(into.prefix, rule.prefix.length);
    if (rule.rest !== undefined) into.all = true;
  }
  if (conditional(node).some((sub) => evaluates(sub, "items", memo))) return false;
  return unconditional(node).every((sub) =>
    typeof sub === "boolean" || staticItems(sub, memo, into)
  );
}

/** Folds every `unevaluated*` that the schema alone decides into a plain rule (see above). */
export function foldUnevaluated(nodes: readonly SchemaNode[]): void {
  const propsMemo = new Map<Schema, boolean>();
  const itemsMemo = new Map<Schema, boolean>();
  // Decide first, rewrite after: a node's decision reads its children's raw keywords.
  const folds: (() => void)[] = [];
  for (const node of nodes) {
    const properties = node.unevaluatedProperties;
    if (properties !== undefined) {
      const found: StaticProperties = { names: new Set(), patterns: [], all: false };
      // Its own keyword counts as evaluating everything: read it without.
      node.unevaluatedProperties = undefined;
      const known = staticProperties(node, propsMemo, found);
      node.unevaluatedProperties = properties;
      if (known) {
        folds.push(() => {
          node.unevaluatedProperties = undefined;
          if (found.all) return;
          // Merged into the node's own keys rule (one pass over the keys), names and
          // patterns from elsewhere joining as `true` schemas.
          const index = node.object.findIndex((rule) => rule.kind === "keys");
          const own = node.object[index];
          const base = own?.kind === "keys" ? own : undefined;
          const declared = new Set(base?.properties.map(([name]) => name));
          const ownPatterns = new Set(base?.patterns);
          const merged: KeysRule = {
            kind: "keys",
            keyword: "unevaluatedProperties",
            properties: [
              ...(base?.properties ?? []),
              ...[...found.names].filter((name) => !declared.has(name))
                .map((name) => [name, true] as const),
            ],
            required: base?.required ?? [],
            patterns: [
              ...(base?.patterns ?? []),
              ...found.patterns.filter((pattern) => !ownPatterns.has(pattern))
                .map((pattern) => ({ ...pattern, schema: true })),
            ],
            additional: properties,
            names: base?.names,
          };
          if (base === undefined) node.object.push(merged);
          else node.object[index] = merged;
        });
      }
    }
    const items = node.unevaluatedItems;
    if (items !== undefined) {
      const found: StaticItems = { prefix: 0, all: false };
      node.unevaluatedItems = undefined;
      const known = staticItems(node, itemsMemo, found);
      node.unevaluatedItems = items;
      if (known) {
        folds.push(() => {
          node.unevaluatedItems = undefined;
          if (found.all) return;
          const prefix = Array.from({ length: found.prefix }, (): Schema => true);
          node.array.push({ kind: "items", keyword: "unevaluatedItems", prefix, rest: items });
        });
      }
    }
  }
  for (const fold of folds) fold();
}
