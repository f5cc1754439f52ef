/**
 * Rate limits as data: which calls share a token bucket, and whether a call
 * may pass. Pure: {@linkcode compileRateLimits} checks and freezes the
 * rules, {@linkcode bucketKeys} names the buckets a call draws from, and
 * {@linkcode decideRateLimit} takes buckets and the clock in and gives a
 * decision and new buckets back. The bucket arithmetic is in
 * `src/store/token_bucket.ts`; the guardrail that keeps buckets between
 * calls is in `rate_limit.ts`.
 *
 * @module
 */

import { checkConfig, checkPlainData } from "../../schema/config.ts";
import { compileRule } from "./compile_rule.ts";
import type { JsonSchemaObject } from "../../schema/types.ts";
import type { CallKind } from "../../call/context.ts";
import type { BucketTake } from "../../store/shared_store.ts";
import { type BucketLimit, takeTokens, type TokenBucket } from "../../store/token_bucket.ts";

/**
 * One rate limit: a bucket per scope value, for the calls it matches.
 *
 * @example Exports cost five tokens of a caller's twenty, refilled one a second
 * ```ts
 * import type { RateLimitRule } from "@warden/mcp/guardrails";
 * const perCaller: RateLimitRule = {
 *   scope: "principal",
 *   capacity: 20,
 *   refillPerSecond: 1,
 *   kinds: ["tool", "resource"],
 *   cost: { export_orders: 5 },
 * };
 * ```
 */
export interface RateLimitRule {
  /**
   * Who shares a bucket: every call (`global`), calls to one item (`tool`),
   * calls by one principal (`principal`), or one principal's calls to one
   * item (`tool+principal`). Anonymous callers share one principal bucket.
   */
  scope: "global" | "tool" | "principal" | "tool+principal";
  /** Tokens a bucket holds (the burst size), above 0. */
  capacity: number;
  /** Tokens added per second, above 0. */
  refillPerSecond: number;
  /**
   * Globs over the item name (the URI for resources); the rule applies to
   * matching items only.
   * @default {undefined} (every item)
   */
  match?: readonly string[];
  /**
   * The kinds of item the rule applies to.
   * @default {["tool"]}
   */
  kinds?: readonly ("tool" | "resource" | "prompt")[];
  /**
   * Tokens a call costs, by exact item name; each above 0 and at most
   * `capacity`. Names not listed cost 1.
   * @default {{}}
   */
  cost?: Readonly<Record<string, number>>;
}

/** Who shares a bucket. */
export type RateLimitScope = RateLimitRule["scope"];

/**
 * Options for {@linkcode compileRateLimits} and {@linkcode createRateLimiter}.
 *
 * @example A ceiling for the whole server, and a tighter one for searches
 * ```ts
 * import { rateLimit, type RateLimiterOptions } from "@warden/mcp/guardrails";
 * const limits: RateLimiterOptions = {
 *   rules: [
 *     { scope: "global", capacity: 100, refillPerSecond: 50 },
 *     { scope: "tool+principal", match: ["search_*"], capacity: 3, refillPerSecond: 0.5 },
 *   ],
 * };
 * const limiter = rateLimit(limits);
 * ```
 */
export interface RateLimiterOptions {
  /** The rules; a call must pass every rule that applies to it. */
  rules: readonly RateLimitRule[];
}

/** Compiled, frozen rate limits. The rules are private to this module. */
export interface RateLimits {
  /** Brand telling compiled limits apart from other objects. */
  readonly type: "warden.rate-limits";
}

/** The call a rate limit decision is about. */
export interface RateLimitCall {
  /** The kind of item called. */
  kind: CallKind;
  /** The tool or prompt name, or the resource URI. */
  name: string;
  /** The caller's id, or `undefined` for an anonymous caller. */
  principal: string | undefined;
}

/** Why a call was refused: when to retry, and the indexes of the refusing rules. */
export interface RateLimitRefusal {
  /** Whole seconds until every refusing bucket can pay, at least 1. */
  retryAfterSeconds: number;
  /** Indexes in `rules` of the rules that refused. */
  refusedBy: readonly number[];
}

/**
 * The outcome of {@linkcode decideRateLimit}, with the buckets to store.
 * A refused call charges nothing, so its `updates` are empty.
 */
export type RateLimitDecision =
  | { allowed: true; updates: ReadonlyMap<string, TokenBucket> }
  | ({ allowed: false; updates: ReadonlyMap<string, TokenBucket> } & RateLimitRefusal);

/** What {@linkcode createRateLimiter}'s function answers. */
export type RateLimitOutcome = { allowed: true } | ({ allowed: false } & RateLimitRefusal);

export interface CompiledRule {
  readonly index: number;
  readonly scope: RateLimitScope;
  readonly limit: BucketLimit;
  readonly matchers: readonly ((name: string) => boolean)[] | undefined;
  readonly kinds: ReadonlySet<CallKind>;
  readonly costs: ReadonlyMap<string, number>;
  /** Bucket keys already built for this rule (see {@linkcode keyFor}). */
  readonly keys: KeyCache;
}

/**
 * A rule's bucket keys by kind, name and principal (`""`, `""` and `null`
 * where its scope ignores them): building a key costs a JSON.stringify, and
 * the same items and callers come back call after call. At most
 * {@linkcode KEY_CACHE_LIMIT} keys are kept; then the cache starts over.
 */
interface KeyCache {
  readonly global: string;
  readonly items: Map<string, Map<string, Map<string | null, string>>>;
  size: number;
}

const KEY_CACHE_LIMIT = 4096;

const PREFIX = "Invalid rate limits";
const ITEM_KINDS: ReadonlySet<CallKind> = new Set<CallKind>(["tool", "resource", "prompt"]);
const ABOVE_ZERO: JsonSchemaObject = { type: "number", exclusiveMinimum: 0 };
/** The shape of {@linkcode RateLimiterOptions}; globs and costs over capacity are checked in code. */
const RATE_LIMITS_SCHEMA: JsonSchemaObject = {
  type: "object",
  properties: {
    rules: {
      type: "array",
      items: {
        type: "object",
        properties: {
          scope: { enum: ["global", "tool", "principal", "tool+principal"] },
          capacity: ABOVE_ZERO,
          refillPerSecond: ABOVE_ZERO,
          match: { type: "array", items: { type: "string" }, minItems: 1 },
          kinds: { type: "array", items: { enum: [...ITEM_KINDS] }, minItems: 1 },
          cost: { type: "object", additionalProperties: ABOVE_ZERO },
        },
        required: ["scope", "capacity", "refillPerSecond"],
        additionalProperties: false,
      },
    },
  },
  required: ["rules"],
  additionalProperties: false,
};
// Rules live here rather than on the object, so a forged object limits nothing.
const compiledLimits = new WeakMap<RateLimits, readonly CompiledRule[]>();

/**
 * Validates rate limit options once, at start-up, and compiles their globs.
 * Errors name the place, e.g. `Invalid rate limits: rules[1].capacity must
 * be > 0, got 0`; unknown keys are errors, so a typo cannot silently drop a
 * limit.
 *
 * @param options The rules.
 * @returns Frozen limits for {@linkcode bucketKeys} and {@linkcode decideRateLimit}.
 * @throws {TypeError} If a value has the wrong type or a key is unknown.
 * @throws {RangeError} If a number, scope, kind or glob is out of range.
 *
 * @example Usage
 * ```ts
 * import { compileRateLimits } from "./limits.ts";
 * const limits = compileRateLimits({
 *   rules: [{ scope: "tool+principal", capacity: 10, refillPerSecond: 1 }],
 * });
 * ```
 */
export function compileRateLimits(options: RateLimiterOptions): RateLimits {
  // Plain data first: a hole in `rules` is an error, not one rule fewer.
  checkPlainData(options, PREFIX);
  checkConfig(RATE_LIMITS_SCHEMA, options, PREFIX);
  const rules = options.rules.map((rule, index) => compileRule(rule, index, PREFIX));
  const limits: RateLimits = Object.freeze({ type: "warden.rate-limits" });
  compiledLimits.set(limits, rules);
  return limits;
}

/**
 * Lists the keys of the buckets a call would touch, one per rule that applies
 * to it, so a store can fetch them before {@linkcode decideRateLimit}. A key
 * is the JSON text of a tuple (rule index, scope, then the item's kind and
 * name and/or the principal), so no name can be crafted to collide with
 * another combination.
 *
 * @param limits Limits from {@linkcode compileRateLimits}.
 * @param call The call.
 * @returns The bucket keys, in rule order.
 * @throws {TypeError} If `limits` or `call` is malformed.
 *
 * @example Usage
 * ```ts
 * import { bucketKeys, compileRateLimits } from "./limits.ts";
 * const limits = compileRateLimits({ rules: [{ scope: "global", capacity: 5, refillPerSecond: 1 }] });
 * const keys = bucketKeys(limits, { kind: "tool", name: "get_order", principal: "alice" });
 * console.assert(keys.length === 1);
 * ```
 */
export function bucketKeys(limits: RateLimits, call: RateLimitCall): readonly string[] {
  const rules = rulesOf(limits);
  checkCall(call.kind, call.name);
  const keys: string[] = [];
  for (const rule of rules) {
    if (applies(rule, call.kind, call.name)) {
      keys.push(keyFor(rule, call.kind, call.name, call.principal));
    }
  }
  return keys;
}

/**
 * Decides whether a call passes every rate limit that applies to it.
 *
 * Each applicable rule takes the call's cost from its bucket (see
 * {@linkcode takeTokens}). The call is allowed only if every rule allows it;
 * otherwise no bucket is charged, and `retryAfterSeconds` is the largest
 * among the refusing rules. A call no rule applies to is allowed.
 *
 * @param limits Limits from {@linkcode compileRateLimits}.
 * @param call The call.
 * @param buckets The current buckets by key; a missing key is a full bucket.
 * @param now The current time in milliseconds.
 * @returns The decision, and the buckets to store if allowed.
 * @throws {TypeError} If `limits` or `call` is malformed.
 *
 * @example Usage
 * ```ts
 * import { compileRateLimits, decideRateLimit } from "./limits.ts";
 * const limits = compileRateLimits({ rules: [{ scope: "tool", capacity: 1, refillPerSecond: 1 }] });
 * const call = { kind: "tool", name: "get_order", principal: undefined } as const;
 * const first = decideRateLimit(limits, call, new Map(), 0);
 * const second = decideRateLimit(limits, call, first.updates, 0);
 * console.assert(first.allowed && !second.allowed);
 * ```
 */
export function decideRateLimit(
  limits: RateLimits,
  call: RateLimitCall,
  buckets: ReadonlyMap<string, TokenBucket>,
  now: number,
): RateLimitDecision {
  const rules = rulesOf(limits);
  checkCall(call.kind, call.name);
  const updates = new Map<string, TokenBucket>();
  const refusal = charge(
    rules,
    call,
    (key) => buckets.get(key),
    (key, bucket) => updates.set(key, bucket),
    now,
  );
  if (refusal === undefined) return { allowed: true, updates };
  return { allowed: false, ...refusal, updates };
}

/** The buckets a call draws from on a shared store: one per rule that applies. */
export function planTakes(
  rules: readonly CompiledRule[],
  call: RateLimitCall,
): readonly BucketTake[] {
  checkCall(call.kind, call.name);
  const takes: BucketTake[] = [];
  for (const rule of rules) {
    if (!applies(rule, call.kind, call.name)) continue;
    takes.push({
      key: keyFor(rule, call.kind, call.name, call.principal),
      capacity: rule.limit.capacity,
      refillPerSecond: rule.limit.refillPerSecond,
      cost: rule.costs.get(call.name) ?? 1,
    });
  }
  return takes;
}

export function rulesOf(limits: RateLimits): readonly CompiledRule[] {
  const rules = compiledLimits.get(limits);
  if (rules === undefined) {
    throw new TypeError(`${PREFIX}: expected limits from compileRateLimits()`);
  }
  return rules;
}

export function checkCall(kind: CallKind, name: string): void {
  if (!ITEM_KINDS.has(kind) || typeof name !== "string") {
    throw new TypeError("Invalid rate limit call: expected a known kind and a string name");
  }
}

function applies(rule: CompiledRule, kind: CallKind, name: string): boolean {
  if (!rule.kinds.has(kind)) return false;
  const matchers = rule.matchers;
  if (matchers === undefined) return true;
  for (const matches of matchers) if (matches(name)) return true;
  return false;
}

/**
 * The rule's bucket key for a call: the JSON text of a tuple of the rule's
 * index and scope and the parts of the call the scope looks at.
 */
function keyFor(
  rule: CompiledRule,
  kind: CallKind,
  name: string,
  principal: string | undefined,
): string {
  const { scope, keys } = rule;
  if (scope === "global") return keys.global;
  const byItem = scope !== "principal";
  const byCaller = scope !== "tool";
  const item = byItem ? kind : "";
  const itemName = byItem ? name : "";
  const who = byCaller && typeof principal === "string" ? principal : null;
  let names = keys.items.get(item);
  if (names === undefined) keys.items.set(item, names = new Map());
  let callers = names.get(itemName);
  if (callers === undefined) names.set(itemName, callers = new Map());
  let key = callers.get(who);
  if (key === undefined) {
    const parts = [rule.index, scope, ...(byItem ? [kind, name] : []), ...(byCaller ? [who] : [])];
    key = JSON.stringify(parts);
    if (++keys.size > KEY_CACHE_LIMIT) {
      keys.items.clear();
      keys.size = 0;
    } else {
      callers.set(who, key);
    }
  }
  return key;
}

/**
 * Takes the call's cost from the bucket of every rule that applies, all or
 * nothing: the core of {@linkcode decideRateLimit} and of the limiter, which
 * reads, decides and writes with no `await` in between. Nothing is written
 * unless every rule allows the call. The first rule's bucket waits in locals,
 * so the common one-rule call allocates nothing but the bucket it writes.
 */
export function charge(
  rules: readonly CompiledRule[],
  call: RateLimitCall,
  read: (key: string) => TokenBucket | undefined,
  write: (key: string, bucket: TokenBucket) => void,
  now: number,
): RateLimitRefusal | undefined {
  const { kind, name, principal } = call;
  let firstKey: string | undefined;
  let firstBucket: TokenBucket | undefined;
  let more: [key: string, bucket: TokenBucket][] | undefined;
  let refusedBy: number[] | undefined;
  let retryAfterSeconds = 0;
  for (const rule of rules) {
    if (!applies(rule, kind, name)) continue;
    const key = keyFor(rule, kind, name, principal);
    const result = takeTokens(read(key), rule.limit, rule.costs.get(name) ?? 1, now);
    if (!result.allowed) {
      (refusedBy ??= []).push(rule.index);
      retryAfterSeconds = Math.max(retryAfterSeconds, result.retryAfterSeconds);
    } else if (firstKey === undefined) {
      firstKey = key;
      firstBucket = result.bucket;
    } else {
      (more ??= []).push([key, result.bucket]);
    }
  }
  if (refusedBy !== undefined) return { retryAfterSeconds, refusedBy };
  if (firstKey !== undefined && firstBucket !== undefined) write(firstKey, firstBucket);
  if (more !== undefined) { for (const [key, bucket] of more) write(key, bucket); }
  return undefined;
}
