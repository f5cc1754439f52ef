/**
 * The access policy: which tools, resources and prompts exist for a caller.
 * The core is a pure decision ({@linkcode decideAccess}) over a policy
 * compiled once at start-up; {@linkcode accessPolicy} is the guardrail that
 * puts it in the call pipeline.
 *
 * @module
 */

import { ErrorCode, RpcError } from "../../jsonrpc/errors.ts";
import { checkConfig, checkPlainData, ownField } from "../../schema/config.ts";
import type { JsonSchemaObject } from "../../schema/types.ts";
import { type Compiled, compileRuleSet, decideForms, type RuleSet } from "./rules.ts";
import type { CallKind, GuardedCall } from "../../call/context.ts";
import type { Guardrail } from "../../call/guardrail.ts";

/**
 * The three kinds of item a server exposes: the pipeline's
 * {@linkcode CallKind} under the name the policy options use.
 *
 * @example Usage
 * ```ts
 * import type { ItemKind } from "./access_policy.ts";
 * const kinds: readonly ItemKind[] = ["tool", "resource", "prompt"];
 * ```
 */
export type ItemKind = CallKind;

/**
 * Options for {@linkcode compileAccessPolicy}. Plain data, so it can come from a JSON file.
 *
 * @example Read-only for everyone, refunds for billing, no internal notes
 * ```ts
 * import { accessPolicy, type AccessPolicyOptions } from "@warden/mcp/guardrails";
 * const rules: AccessPolicyOptions = {
 *   tools: { allow: ["get_*", "list_*"] },
 *   resources: { deny: ["notes://internal/*"] },
 *   principals: { billing: { tools: { allow: ["refund_order"] } } },
 * };
 * const access = accessPolicy(rules);
 * ```
 */
export interface AccessPolicyOptions {
  /** Rules for tools, by name. @default {{}} */
  tools?: {
    /**
     * When present, only matching items are visible; an empty list hides all.
     * @default {undefined} (no allow list: everything not denied is visible)
     */
    allow?: readonly string[];
    /**
     * Matching items are hidden, whatever any allow list says.
     * @default {[]}
     */
    deny?: readonly string[];
  };
  /** Rules for resources, by URI. @default {{}} */
  resources?: AccessPolicyOptions["tools"];
  /** Rules for prompts, by name. @default {{}} */
  prompts?: AccessPolicyOptions["tools"];
  /**
   * Rules per principal (the authenticated caller's id), applied on top of
   * the rules for everyone. Matched by exact, case-sensitive name.
   * @default {{}}
   */
  principals?: Readonly<
    Record<string, Pick<AccessPolicyOptions, "tools" | "resources" | "prompts">>
  >;
}

/** Allow and deny lists for one kind of item. */
export type AccessRules = NonNullable<AccessPolicyOptions["tools"]>;

/** The rules of one principal, added to the rules for everyone. */
export type PrincipalRules = Pick<AccessPolicyOptions, "tools" | "resources" | "prompts">;

/**
 * The outcome of {@linkcode decideAccess}. `reason` names the rule that
 * decided, for the audit log and stderr; it is never sent to the client.
 */
export interface AccessDecision {
  /** Whether the item exists for this caller. */
  allowed: boolean;
  /** Which rule decided, e.g. `denied by tools.deny[0] "delete_*"`. */
  reason?: string;
}

/**
 * A compiled, frozen access policy. Its rules are private: the object only
 * proves it came from {@linkcode compileAccessPolicy}, which validated them.
 */
export interface AccessPolicy {
  /** Brand telling policies apart from other objects. */
  readonly type: "warden.access-policy";
}

const PREFIX = "Invalid access policy";
const MAX_LABEL_LENGTH = 80;
// Rules live here rather than on the policy, so a forged object decides nothing.
const compiledPolicies = new WeakMap<AccessPolicy, Compiled>();

const GLOBS: JsonSchemaObject = { type: "array", items: { type: "string" } };
const ACCESS_RULES: JsonSchemaObject = {
  type: "object",
  properties: { allow: GLOBS, deny: GLOBS },
  additionalProperties: false,
};
const KIND_RULES = { tools: ACCESS_RULES, resources: ACCESS_RULES, prompts: ACCESS_RULES };
/** The shape of {@linkcode AccessPolicyOptions}; the globs themselves are checked as they compile. */
const ACCESS_POLICY_SCHEMA: JsonSchemaObject = {
  type: "object",
  properties: {
    ...KIND_RULES,
    principals: {
      type: "object",
      additionalProperties: { type: "object", properties: KIND_RULES, additionalProperties: false },
    },
  },
  additionalProperties: false,
};

/**
 * Validates access options and compiles their globs, once, at start-up.
 *
 * An unknown key anywhere is an error rather than ignored, because a typo
 * such as `deny` spelt `deney` would silently open the server. Errors name
 * the place, e.g. `Invalid access policy: unknown key "tool" at the top
 * level, expected one of tools, resources, prompts, principals` or
 * `Invalid access policy: glob is empty at principals["alice"].tools.deny[1]`.
 *
 * @param options The rules for everyone and per principal.
 * @returns A frozen policy for {@linkcode decideAccess}.
 * @throws {TypeError} If a value has the wrong type or a key is unknown.
 * @throws {RangeError} If a glob is empty or too long.
 *
 * @example Usage
 * ```ts
 * import { compileAccessPolicy } from "./access_policy.ts";
 * const policy = compileAccessPolicy({
 *   tools: { deny: ["delete_*"] },
 *   principals: { admin: { tools: { allow: ["*"] } } },
 * });
 * ```
 */
export function compileAccessPolicy(options: AccessPolicyOptions): AccessPolicy {
  checkPlainData(options, PREFIX);
  checkConfig(ACCESS_POLICY_SCHEMA, options, PREFIX);
  const everyone = compileRuleSet(options, "");
  const principals = new Map<string, RuleSet>();
  for (const [principal, rules] of Object.entries(ownField(options, "principals") ?? {})) {
    if (rules === undefined) continue;
    principals.set(principal, compileRuleSet(rules, `principals[${JSON.stringify(principal)}].`));
  }
  const policy: AccessPolicy = Object.freeze({ type: "warden.access-policy" });
  compiledPolicies.set(policy, { everyone, principals });
  return policy;
}

/**
 * Decides whether an item exists for a caller.
 *
 * - The rules for everyone apply to every caller; a principal's own rules add
 *   to them. An unknown principal, or none (`undefined`), gets just the rules
 *   for everyone.
 * - Deny beats allow: a name matching any deny glob, at either level, is
 *   denied.
 * - The allow list in effect for a kind is the principal's own, if it has one
 *   for that kind, otherwise the one for everyone. If a list is in effect and
 *   no glob in it matches, the item is denied. With no allow list at all,
 *   everything not denied is allowed.
 * - Matching is exact: case-sensitive, over the whole name, with no trimming
 *   or Unicode normalisation, so `Get_Order`, `get_order ` and a homoglyph are
 *   all different names from `get_order`.
 * - A `name` that is not a string, or an unknown `kind`, is denied.
 * - Resource URIs, and the resource globs, are compared in canonical form
 *   (RFC 3986 §6.2.2, see docs/guardrails.md), so `file:///data/%73ecret`
 *   is `file:///data/secret`. The URI is also decided as given and with its
 *   percent-escapes decoded (as a template variable is); if any of these
 *   forms is denied, so is the call. A URI with no canonical form is denied.
 *
 * @param policy A policy from {@linkcode compileAccessPolicy}.
 * @param principal The caller's id, or `undefined` for an anonymous caller.
 * @param kind The kind of item.
 * @param name The tool or prompt name, or the resource URI.
 * @returns Whether the item is allowed, and which rule decided.
 * @throws {TypeError} If `policy` did not come from `compileAccessPolicy()`.
 *
 * @example Usage
 * ```ts
 * import { compileAccessPolicy, decideAccess } from "./access_policy.ts";
 * const policy = compileAccessPolicy({ tools: { deny: ["delete_*"] } });
 * console.assert(decideAccess(policy, "alice", "tool", "get_order").allowed);
 * console.assert(!decideAccess(policy, "alice", "tool", "delete_order").allowed);
 * ```
 */
export function decideAccess(
  policy: AccessPolicy,
  principal: string | undefined,
  kind: ItemKind,
  name: string,
): AccessDecision {
  const { allowed, reason } = decideForms(
    compiledOf(policy),
    principal,
    kind,
    name,
    undefined,
  );
  return { allowed, reason };
}

function compiledOf(policy: AccessPolicy): Compiled {
  const compiled = compiledPolicies.get(policy);
  if (compiled === undefined) {
    throw new TypeError(`${PREFIX}: expected a policy from compileAccessPolicy()`);
  }
  return compiled;
}

/**
 * The access policy as a pipeline guardrail (`stage: "access"`).
 *
 * The options are compiled once, here, so a bad policy fails at start-up.
 * A refused call never reaches the rest of the pipeline: it ends with
 * -32001 and the message `Access denied: <kind> "<name>"`, the name written
 * as a JSON string (quotes and control characters escaped) and cut to 80
 * characters with `…`. The message says nothing else: not the rule, not the
 * principal, so a client learns no more about the policy than that this
 * item is not for it. `visible` hides the same items from the list methods.
 *
 * @param options The rules for everyone and per principal.
 * @param deps Where refusal reasons go.
 * @returns The guardrail, for `createServer({ guardrails })`.
 * @throws {TypeError} If a value in `options` has the wrong type or a key is unknown.
 * @throws {RangeError} If a glob in `options` is empty or too long.
 *
 * @example Read-only tools for everyone, every tool for admins
 * ```ts
 * import { createServer } from "@warden/mcp";
 * import { accessPolicy } from "@warden/mcp/guardrails";
 * const server = createServer({
 *   name: "orders",
 *   version: "1.0.0",
 *   principal: "support",
 *   guardrails: [
 *     accessPolicy(
 *       {
 *         tools: { allow: ["get_*", "list_*"] },
 *         principals: { admin: { tools: { allow: ["*"] } } },
 *       },
 *       { onDenied: (call, reason) => console.error(`denied ${call.name}: ${reason}`) },
 *     ),
 *   ],
 * });
 * ```
 */
export function accessPolicy(
  options: AccessPolicyOptions,
  deps: {
    /**
     * Called with each refused call and the rule that refused it (the
     * decision's `reason`), e.g. for an audit log or stderr. The reason never
     * goes on the wire. A throw from it is not caught: the call stays refused,
     * but the client then gets -32603 instead of -32001.
     * @default {undefined} (nothing is reported)
     */
    onDenied?: (call: GuardedCall, reason: string) => void;
  } = {},
): Guardrail {
  const compiled = compiledOf(compileAccessPolicy(options));
  const onDenied = deps.onDenied;
  return {
    name: "access-policy",
    stage: "access",
    // Not async: an allowed call hands on what `next` gives (an outcome, or its promise).
    run(call, next) {
      const decision = decideForms(
        compiled,
        call.context.principal,
        call.kind,
        call.name,
        call,
      );
      if (decision.allowed) return next(call);
      try {
        onDenied?.(call, decision.reason);
      } catch (error) {
        return Promise.reject(error);
      }
      return {
        status: "denied",
        error: new RpcError(
          ErrorCode.AccessDenied,
          `Access denied: ${itemLabel(call.kind, call.name, call.context.mask)}`,
        ),
      };
    },
    visible(item, principal) {
      return decideForms(compiled, principal, item.kind, item.name, undefined)
        .allowed;
    },
  };
}

/**
 * Names an item in a message for the client: the kind, then the name as a JSON
 * string (a crafted name cannot break the message or a log line), cut to 80
 * characters with `…` (a huge name is not echoed whole).
 *
 * @internal Shared with the rate limiter; not part of the public API.
 * @param kind The kind of item.
 * @param name The tool or prompt name, or the resource URI.
 * @param mask The call's masker: a name too long to show whole is masked before the cut,
 *   which would break a secret in two.
 * @returns E.g. `tool "get_order"`.
 */
export function itemLabel(kind: CallKind, name: string, mask?: (text: string) => string): string {
  if (typeof name !== "string") return `${kind} (name is not a string)`;
  const whole = name.length <= MAX_LABEL_LENGTH || mask === undefined ? name : mask(name);
  if (whole.length <= MAX_LABEL_LENGTH) return `${kind} ${JSON.stringify(whole)}`;
  let shown = whole.slice(0, MAX_LABEL_LENGTH);
  // Don't leave half of a surrogate pair at the cut.
  const last = shown.charCodeAt(shown.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) shown = shown.slice(0, -1);
  return `${kind} ${JSON.stringify(`${shown}…`)}`;
}
