/**
 * Which scopes an item needs: globs over tool and prompt names and resource
 * URIs, each naming the scopes a caller's token must carry, compiled once.
 * Every matching rule adds its scopes, so a broad rule cannot be widened by
 * a narrower one. Resource globs and URIs are compared in canonical form
 * (as the access policy compares them), and a URI needs the scopes of every
 * spelling it has: as sent, canonical, decoded and host-folded.
 *
 * @module
 */

import { canonicalUri, decodedUri, foldedHost } from "../core/canonical_uri.ts";
import { assertGlobPattern, compileGlob } from "../guardrails/access/glob.ts";

/** The kinds of item a scope rule names. */
export type ScopedKind = "tool" | "resource" | "prompt";

/** Scope rules as configured: per kind, glob → the scopes it needs. */
export interface ScopeRules {
  /** Tool names. */
  readonly tools?: Readonly<Record<string, readonly string[]>>;
  /** Resource URIs. */
  readonly resources?: Readonly<Record<string, readonly string[]>>;
  /** Prompt names. */
  readonly prompts?: Readonly<Record<string, readonly string[]>>;
}

interface ScopeRule {
  readonly matches: (name: string) => boolean;
  readonly scopes: readonly string[];
}

/** Compiled rules: what {@linkcode scopesNeeded} reads. */
export type CompiledScopes = ReadonlyMap<ScopedKind, readonly ScopeRule[]>;

const PREFIX = "Invalid auth options";
const KINDS = [["tools", "tool"], ["resources", "resource"], ["prompts", "prompt"]] as const;
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/**
 * Checks one scope value (RFC 6749 section 3.3: printable ASCII without
 * space, quote or backslash).
 *
 * @throws {TypeError} When `scope` is not such a string.
 */
export function checkScope(scope: unknown, path: string): asserts scope is string {
  if (typeof scope !== "string" || !SCOPE_TOKEN.test(scope)) {
    throw new TypeError(`${PREFIX}: ${path} is not a scope token`);
  }
}

/**
 * Compiles scope rules.
 *
 * @throws {TypeError} A rule that is not a list of scope tokens, or a bad glob.
 */
export function compileScopes(rules: ScopeRules | undefined): CompiledScopes {
  const compiled = new Map<ScopedKind, ScopeRule[]>();
  for (const [key, kind] of KINDS) {
    const list: ScopeRule[] = [];
    const table = rules?.[key];
    if (table !== undefined) {
      if (typeof table !== "object" || table === null || Array.isArray(table)) {
        throw new TypeError(`${PREFIX}: scopes.${key} must be an object`);
      }
      for (const [pattern, scopes] of Object.entries(table)) {
        const path = `scopes.${key}[${JSON.stringify(pattern)}]`;
        assertGlobPattern(pattern, PREFIX, path);
        if (!Array.isArray(scopes) || scopes.length === 0) {
          throw new TypeError(`${PREFIX}: ${path} must be a non-empty list of scopes`);
        }
        scopes.forEach((scope, index) => checkScope(scope, `${path}[${index}]`));
        const canonical = kind === "resource" ? canonicalUri(pattern) : pattern;
        if (typeof canonical !== "string") {
          throw new RangeError(`${PREFIX}: glob ${canonical.refused} at ${path}`);
        }
        list.push({ matches: compileGlob(canonical), scopes: Object.freeze([...scopes]) });
      }
    }
    compiled.set(kind, list);
  }
  return compiled;
}

/** Every scope `name` of `kind` needs, in rule order, without duplicates. */
export function scopesNeeded(
  compiled: CompiledScopes,
  kind: ScopedKind,
  name: string,
): readonly string[] {
  const rules = compiled.get(kind);
  if (rules === undefined || rules.length === 0 || typeof name !== "string") return [];
  const needed: string[] = [];
  for (const spelling of kind === "resource" ? spellings(name) : [name]) {
    for (const rule of rules) {
      if (!rule.matches(spelling)) continue;
      for (const scope of rule.scopes) if (!needed.includes(scope)) needed.push(scope);
    }
  }
  return needed;
}

/**
 * Every spelling of a URI a rule may have been written for: as sent, and
 * (when it has one) its canonical, decoded and host-folded forms. A URI with
 * no canonical form is refused by the request core whatever the scopes.
 */
function spellings(uri: string): readonly string[] {
  const canonical = canonicalUri(uri);
  if (typeof canonical !== "string") return [uri];
  const all = new Set([uri, canonical, decodedUri(canonical), foldedHost(canonical)]);
  return [...all];
}

/** The scopes of `needed` that `granted` lacks. */
export function missingScopes(
  granted: readonly string[],
  needed: readonly string[],
): readonly string[] {
  return needed.filter((scope) => !granted.includes(scope));
}
