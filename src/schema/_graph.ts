/**
 * Checks on the graph of in-place applications the compiler records: for
 * each schema, the schemas it applies to the same value (`allOf`, `anyOf`,
 * `oneOf`, `not`, `if`/`then`/`else`, `dependentSchemas`, `$ref`,
 * `$dynamicRef`). A cycle there would never move into the value; two paths
 * to one schema would evaluate it twice at one value, and nested, that
 * doubles per level.
 *
 * @module
 */

import type { Schema } from "./_tree.ts";

/** The in-place edges, from each schema (duplicates kept: `allOf: [a, a]` is two). */
export type SameValueGraph = ReadonlyMap<Schema, readonly Schema[]>;

/** Calls `fail` with a schema on a cycle, which must throw. */
export function rejectLoops(edges: SameValueGraph, fail: (node: Schema) => never): void {
  const done = new Set<Schema>();
  const active = new Set<Schema>();
  const visit = (node: Schema): void => {
    active.add(node);
    for (const next of edges.get(node) ?? []) {
      if (active.has(next)) fail(next);
      if (!done.has(next)) visit(next);
    }
    active.delete(node);
    done.add(node);
  };
  for (const node of edges.keys()) {
    if (!done.has(node)) visit(node);
  }
}

/** The most steps `markShared` takes before marking conservatively. */
const BUDGET = 1_000_000;

/**
 * Sets `memo` on the schemas reachable from some schema along two in-place
 * paths (see `SchemaNode.memo`): from each schema with two or more edges,
 * counts paths (up to 2) in topological order. Past a budget of steps,
 * every schema with two in-place parents is marked instead, which covers
 * them all. Loops were refused before, so the graph is acyclic.
 */
export function markShared(edges: SameValueGraph): void {
  let budget = BUDGET;
  const marked = new Set<Schema>();
  for (const [fork, targets] of edges) {
    if (targets.length < 2) continue;
    // Reverse postorder of what the fork reaches, without recursion.
    const order: Schema[] = [];
    const seen = new Set<Schema>([fork]);
    const stack: [Schema, number][] = [[fork, 0]];
    while (stack.length > 0 && budget > 0) {
      const top = stack[stack.length - 1]!;
      const child = (edges.get(top[0]) ?? [])[top[1]++];
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
