/**
 * The access policy's compiled rules and the decision over them: globs
 * compiled once (over canonical URIs for resources), and a verdict per name
 * that considers every form of a resource URI.
 *
 * @module
 */

import { ownField } from "../../schema/config.ts";
import { canonicalUri, decodedUri, foldedHost } from "../../core/canonical_uri.ts";
import type { GuardedCall } from "../../call/context.ts";
import type { AccessDecision, ItemKind, PrincipalRules } from "./access_policy.ts";
import { assertGlobPattern, compileGlob } from "./glob.ts";

/** A decision made once, at compile time, and shared by every call it decides. */
export type Verdict = Readonly<Required<AccessDecision>>;

interface Rule {
  /** Whether a name matches the rule's glob. */
  readonly matches: (name: string) => boolean;
  /** Whether a URI with its host folded matches the glob with its host folded. */
  readonly matchesFolded: (name: string) => boolean;
  /** The decision when this rule is the one that matched. */
  readonly verdict: Verdict;
}

/** The allow and deny lists of one kind of item. */
interface KindRules {
  readonly allow:
    | { readonly path: string; readonly rules: readonly Rule[]; readonly missed: Verdict }
    | undefined;
  readonly deny: readonly Rule[];
}

/** One level's rules (everyone's, or one principal's), by kind. */
export type RuleSet = ReadonlyMap<ItemKind, KindRules>;

/** A compiled policy: the rules for everyone and each principal's. */
export interface Compiled {
  /** The rules for every caller. */
  readonly everyone: RuleSet;
  /** Each principal's own rules, added to everyone's. */
  readonly principals: ReadonlyMap<string, RuleSet>;
}

const PREFIX = "Invalid access policy";
const NOT_A_STRING: Verdict = verdict(false, "name is not a string");
const UNKNOWN_KIND: Verdict = verdict(false, "unknown item kind");
const NO_ALLOW_LIST: Verdict = verdict(true, "no allow list");
const NOT_CANONICAL: Verdict = verdict(false, "the URI has no canonical form");
const NEVER = (): boolean => false;
const KINDS: ReadonlyMap<keyof PrincipalRules, ItemKind> = new Map([
  ["tools", "tool"],
  ["resources", "resource"],
  ["prompts", "prompt"],
]);

/** The decision on one form of a name; the verdicts are built at compile time. */
function decide(
  compiled: Compiled,
  principal: string | undefined,
  kind: ItemKind,
  name: string,
  folded = false,
): Verdict {
  if (typeof name !== "string") return NOT_A_STRING;
  const everyone = compiled.everyone.get(kind);
  if (everyone === undefined) return UNKNOWN_KIND;
  const own = typeof principal === "string"
    ? compiled.principals.get(principal)?.get(kind)
    : undefined;
  const denied = firstMatch(everyone.deny, name, folded) ?? firstMatch(own?.deny, name, folded);
  if (denied !== undefined) return denied.verdict;
  const allow = own?.allow ?? everyone.allow;
  if (allow === undefined) return NO_ALLOW_LIST;
  return firstMatch(allow.rules, name, folded)?.verdict ?? allow.missed;
}

/**
 * {@linkcode decide} over every form of a resource URI a decision could see:
 * the canonical one, the one given, the one the client sent, the decoded one
 * and the one with its host folded to lower case (against folded globs). A
 * form that is denied denies the call, so no spelling of a denied URI gets
 * through and a URI whose forms are decided differently is refused.
 * `call` is the guarded call when deciding in the pipeline: it carries the
 * URI as sent, and says whether the name is a URI template (a completion's
 * reference); the request core has already refused a URI with no canonical form.
 */
export function decideForms(
  compiled: Compiled,
  principal: string | undefined,
  kind: ItemKind,
  name: string,
  call: GuardedCall | undefined,
): Verdict {
  if (kind !== "resource" || typeof name !== "string") {
    return decide(compiled, principal, kind, name);
  }
  // In the pipeline, with no resource rules for this caller (a policy on tools only), there is
  // nothing to spell around, and the request core refuses a URI with no canonical form itself.
  if (
    call !== undefined && !hasRules(compiled.everyone) &&
    !hasRules(principalRules(compiled, principal))
  ) {
    return NO_ALLOW_LIST;
  }
  const sent = call?.sentName;
  const template = call?.method === "completion/complete";
  const canonical = canonicalUri(name, template);
  if (typeof canonical !== "string") {
    // In the pipeline the request core refuses such a URI with -32602 whatever the policy,
    // so the client learns nothing about the rules; a deny glob still applies to it as sent.
    return call !== undefined ? decide(compiled, principal, kind, name) : NOT_CANONICAL;
  }
  let decided = decide(compiled, principal, kind, canonical);
  if (name !== canonical) decided = stricter(decided, decide(compiled, principal, kind, name));
  if (sent !== undefined && sent !== name) {
    decided = stricter(decided, decide(compiled, principal, kind, sent));
  }
  const decoded = decodedUri(canonical);
  if (decoded !== canonical) {
    decided = stricter(decided, decide(compiled, principal, kind, decoded));
  }
  const folded = foldedHost(canonical);
  if (folded !== canonical) {
    decided = stricter(decided, decide(compiled, principal, kind, folded, true));
  }
  return decided;
}

/** Whether a level has any resource rule. */
function hasRules(rules: RuleSet | undefined): boolean {
  const resources = rules?.get("resource");
  return resources !== undefined && (resources.allow !== undefined || resources.deny.length > 0);
}

function principalRules(compiled: Compiled, principal: string | undefined): RuleSet | undefined {
  return typeof principal === "string" ? compiled.principals.get(principal) : undefined;
}

/** The denial of the two, if either denies. */
function stricter(first: Verdict, second: Verdict): Verdict {
  return first.allowed && !second.allowed ? second : first;
}

function verdict(allowed: boolean, reason: string): Verdict {
  return Object.freeze({ allowed, reason });
}

function firstMatch(
  rules: readonly Rule[] | undefined,
  name: string,
  folded: boolean,
): Rule | undefined {
  if (rules === undefined) return undefined;
  for (const rule of rules) if ((folded ? rule.matchesFolded : rule.matches)(name)) return rule;
  return undefined;
}

/** One level's rules, compiled; `options` has passed the policy schema. */
export function compileRuleSet(options: PrincipalRules, prefix: string): RuleSet {
  const ruleSet = new Map<ItemKind, KindRules>();
  for (const [key, kind] of KINDS) {
    const rules = ownField(options, key) ?? {};
    const path = `${prefix}${key}`;
    const allow = ownField(rules, "allow");
    const deny = ownField(rules, "deny");
    ruleSet.set(kind, {
      allow: allow === undefined ? undefined : {
        path: `${path}.allow`,
        rules: compileList(allow, `${path}.allow`, true, kind === "resource"),
        missed: verdict(false, `not in ${path}.allow`),
      },
      deny: deny === undefined ? [] : compileList(deny, `${path}.deny`, false, kind === "resource"),
    });
  }
  return ruleSet;
}

/**
 * Compiles one allow or deny list. A glob over URIs is put in canonical form
 * first, as the URIs it is matched against are; one that has none could
 * never match and is an error.
 */
function compileList(
  patterns: readonly string[],
  path: string,
  allows: boolean,
  uris: boolean,
): readonly Rule[] {
  return patterns.map((pattern, index) => {
    const source = `${path}[${index}]`;
    assertGlobPattern(pattern, PREFIX, source);
    const described = `${source} ${JSON.stringify(pattern)}`;
    const canonical = uris ? canonicalUri(pattern) : pattern;
    if (typeof canonical !== "string") {
      throw new RangeError(`${PREFIX}: glob ${canonical.refused} at ${source}`);
    }
    return {
      matches: compileGlob(canonical),
      matchesFolded: uris ? compileGlob(foldedHost(canonical)) : NEVER,
      verdict: verdict(allows, `${allows ? "allowed" : "denied"} by ${described}`),
    };
  });
}
