/**
 * One rate-limit rule compiled: its globs (over canonical URIs too when it
 * applies to resources, as resource names arrive canonical), its costs by
 * exact name in a `Map`, and its empty key cache.
 *
 * @module
 */

import { ownField } from "../../schema/config.ts";
import { assertGlobPattern, compileGlob } from "../access/glob.ts";
import { canonicalUri } from "../../core/canonical_uri.ts";
import type { CallKind } from "../../call/context.ts";
import type { CompiledRule, RateLimitRule } from "./limits.ts";

/**
 * One rule, compiled; it has passed the rate limits' schema.
 *
 * @param rule The rule as configured.
 * @param index Its place in `rules`, part of its bucket keys and messages.
 * @param prefix The start of an error message, e.g. "Invalid rate limits".
 * @returns The rule with its globs compiled and its costs in a `Map`.
 * @throws {RangeError} If a cost exceeds the capacity.
 */
export function compileRule(rule: RateLimitRule, index: number, prefix: string): CompiledRule {
  const path = `rules[${index}]`;
  const { scope, capacity, refillPerSecond } = rule;
  const kinds = new Set<CallKind>(ownField(rule, "kinds") ?? ["tool"]);
  // Resource names arrive as canonical URIs: a URI glob or cost key matches in that form too.
  const canonical = (name: string): string | undefined => {
    if (!kinds.has("resource")) return undefined;
    const uri = canonicalUri(name);
    return typeof uri === "string" && uri !== name ? uri : undefined;
  };
  const matchers = ownField(rule, "match")?.flatMap((pattern, at) => {
    assertGlobPattern(pattern, prefix, `${path}.match[${at}]`);
    const uri = canonical(pattern);
    return uri === undefined ? [compileGlob(pattern)] : [compileGlob(pattern), compileGlob(uri)];
  });
  const costs = new Map<string, number>();
  for (const [name, cost] of Object.entries(ownField(rule, "cost") ?? {})) {
    if (cost === undefined) continue;
    if (cost > capacity) {
      throw new RangeError(
        `${prefix}: cost ${cost} exceeds the capacity ${capacity} at ${path}.cost[${
          JSON.stringify(name)
        }]`,
      );
    }
    costs.set(name, cost);
    const uri = canonical(name);
    if (uri !== undefined && !costs.has(uri)) costs.set(uri, cost);
  }
  return {
    index,
    scope,
    limit: { capacity, refillPerSecond },
    matchers,
    kinds,
    costs,
    keys: { global: JSON.stringify([index, scope]), items: new Map(), size: 0 },
  };
}
