/**
 * Extra rules a redactor runs besides the built-in ones: plain `patterns`
 * and structured {@linkcode RedactRule}s (what a gitleaks file becomes),
 * with their keywords, secret group, entropy threshold and allowlists.
 *
 * @module
 */

import { entropy } from "./value_shape.ts";

/**
 * A structured rule: an expression, what of it is secret, and when it is not.
 *
 * @example Session cookies, except the placeholder the docs use
 * ```ts
 * import { redaction, type RedactRule } from "@warden/mcp/guardrails";
 * const sessionCookie: RedactRule = {
 *   id: "desk-session-cookie",
 *   regex: "desk_session=([A-Za-z0-9_-]{32,})",
 *   secretGroup: 1,
 *   keywords: ["desk_session"],
 *   entropy: 3.5,
 *   allowlists: [{ stopwords: ["example"] }],
 * };
 * const guardrail = redaction({ rules: [sessionCookie] });
 * ```
 */
export interface RedactRule {
  /** A name for messages. */
  readonly id: string;
  /** The expression: an ECMAScript source (compiled with the `u` flag and `flags`) or a `RegExp`. */
  readonly regex: string | RegExp;
  /** Extra flags for a string `regex` (`i`, `m`, `s`). @default {""} */
  readonly flags?: string;
  /** The capture group that is the secret; 0 for the whole match. @default {the first group that matched, else the whole match} */
  readonly secretGroup?: number;
  /** The rule only runs on text holding one of these (case-insensitive). @default {[]} */
  readonly keywords?: readonly string[];
  /** The least Shannon entropy (bits per character) a secret must have. @default {0} */
  readonly entropy?: number;
  /** Findings these allow are not masked. @default {[]} */
  readonly allowlists?: readonly {
    /** Expressions (ECMAScript, `u` flag) that allow a finding when they match its target. @default {[]} */
    readonly regexes?: readonly (string | RegExp)[];
    /** What `regexes` are matched against. @default {"secret"} */
    readonly regexTarget?: "secret" | "match" | "line";
    /** Words that allow a finding whose secret contains one (case-insensitive). @default {[]} */
    readonly stopwords?: readonly string[];
    /** Whether one check suffices (`OR`) or all must hold (`AND`). @default {"OR"} */
    readonly condition?: "OR" | "AND";
  }[];
}

interface CompiledAllowlist {
  readonly regexes: readonly RegExp[];
  readonly target: "secret" | "match" | "line";
  readonly stopwords: readonly string[];
  readonly and: boolean;
}

/** A rule ready to run. */
export interface CompiledRule {
  readonly re: RegExp;
  readonly keywords: RegExp | undefined;
  readonly group: number | undefined;
  readonly entropy: number;
  readonly allowlists: readonly CompiledAllowlist[];
}

function describe(pattern: string | RegExp): string {
  return typeof pattern === "string" ? `'${pattern}'` : String(pattern);
}

function probeRegExp(source: string, flags: string, name: string): RegExp {
  try {
    return new RegExp(source, flags);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new SyntaxError(`Cannot compile redaction pattern ${name}: ${detail}`);
  }
}

/**
 * Checks one pattern and returns a private copy that scans globally and
 * reports group positions when it has a group named `secret` (internal).
 */
export function compileRule(pattern: string | RegExp): RegExp {
  if (typeof pattern !== "string" && !(pattern instanceof RegExp)) {
    throw new TypeError(
      `Invalid redaction pattern: expected a string or RegExp, got ${typeof pattern}`,
    );
  }
  const source = typeof pattern === "string" ? pattern : pattern.source;
  const flags = typeof pattern === "string" ? "u" : pattern.flags.replace(/[dgy]/gu, "");
  const probe = probeRegExp(source, flags, describe(pattern));
  if (probe.test("")) {
    throw new TypeError(
      `Invalid redaction pattern ${describe(pattern)}: it matches the empty string`,
    );
  }
  return new RegExp(source, hasSecretGroup(source, flags) ? `${flags}dg` : `${flags}g`);
}

/** Whether a pattern has a group named `secret`, however the name was written. */
function hasSecretGroup(source: string, flags: string): boolean {
  const groups = new RegExp(`(?:${source})|`, flags).exec("")?.groups;
  return groups !== undefined && Object.hasOwn(groups, "secret");
}

/** A plain pattern as a compiled rule: its `secret` group, or the whole match. */
export function patternRule(pattern: string | RegExp): CompiledRule {
  return {
    re: compileRule(pattern),
    keywords: undefined,
    group: undefined,
    entropy: 0,
    allowlists: [],
  };
}

const ESCAPE = /[\\^$.*+?()[\]{}|\/]/gu;

/**
 * Checks a structured rule and compiles it.
 *
 * @throws {SyntaxError} The expression does not compile.
 * @throws {TypeError} A field has the wrong type, or the expression matches the empty string.
 */
export function compileRedactRule(rule: RedactRule): CompiledRule {
  const name = typeof rule?.id === "string" ? rule.id : "";
  if (name === "") throw new TypeError("Invalid redaction rule: id must be a non-empty string");
  const where = `Invalid redaction rule '${name}'`;
  const regex = rule.regex;
  if (typeof regex !== "string" && !(regex instanceof RegExp)) {
    throw new TypeError(`${where}: regex must be a string or RegExp`);
  }
  const extra = rule.flags ?? "";
  if (typeof extra !== "string" || !/^[ims]*$/u.test(extra)) {
    throw new TypeError(`${where}: flags may only hold i, m and s`);
  }
  const source = typeof regex === "string" ? regex : regex.source;
  const base = typeof regex === "string" ? `u${extra}` : regex.flags.replace(/[dgy]/gu, "");
  const probe = probeRegExp(source, base, `'${name}'`);
  if (probe.test("")) throw new TypeError(`${where}: it matches the empty string`);
  const groups = new RegExp(`(?:${source})|`, base).exec("")?.length ?? 1;
  const group = rule.secretGroup;
  if (group !== undefined && (!Number.isSafeInteger(group) || group < 0 || group >= groups)) {
    throw new RangeError(`${where}: secretGroup ${group} is not a group of its regex`);
  }
  const keywords = rule.keywords ?? [];
  if (
    !Array.isArray(keywords) || !keywords.every((word) => typeof word === "string" && word !== "")
  ) {
    throw new TypeError(`${where}: keywords must be a list of non-empty strings`);
  }
  const minEntropy = rule.entropy ?? 0;
  if (typeof minEntropy !== "number" || !(minEntropy >= 0)) {
    throw new TypeError(`${where}: entropy must be a non-negative number`);
  }
  return {
    re: new RegExp(source, `${base}dg`),
    keywords: keywords.length === 0
      ? undefined
      : new RegExp(keywords.map((word) => word.replace(ESCAPE, "\\$&")).join("|"), "iu"),
    group,
    entropy: minEntropy,
    allowlists: (rule.allowlists ?? []).map((list, index) =>
      compileAllowlist(list, `${where}: allowlist ${index + 1}`)
    ),
  };
}

function compileAllowlist(list: RuleAllowlist, where: string): CompiledAllowlist {
  const regexes = (list.regexes ?? []).map((pattern) => {
    if (typeof pattern !== "string" && !(pattern instanceof RegExp)) {
      throw new TypeError(`${where}: regexes must be strings`);
    }
    return typeof pattern === "string"
      ? probeRegExp(pattern, "u", `'${pattern}' (${where})`)
      : pattern;
  });
  const target = list.regexTarget ?? "secret";
  if (target !== "secret" && target !== "match" && target !== "line") {
    throw new TypeError(`${where}: regexTarget must be "secret", "match" or "line"`);
  }
  const stopwords = list.stopwords ?? [];
  if (!stopwords.every((word) => typeof word === "string")) {
    throw new TypeError(`${where}: stopwords must be strings`);
  }
  const condition = list.condition ?? "OR";
  if (condition !== "OR" && condition !== "AND") {
    throw new TypeError(`${where}: condition must be "OR" or "AND"`);
  }
  return {
    regexes: regexes.map((re) => new RegExp(re.source, re.flags.replace(/[gy]/gu, ""))),
    target,
    stopwords: stopwords.map((word) => word.toLowerCase()),
    and: condition === "AND",
  };
}

function allowed(list: CompiledAllowlist, secret: string, match: string, line: string): boolean {
  const target = list.target === "secret" ? secret : list.target === "match" ? match : line;
  const checks: boolean[] = [];
  if (list.regexes.length > 0) checks.push(list.regexes.some((re) => re.test(target)));
  if (list.stopwords.length > 0) {
    const lower = secret.toLowerCase();
    checks.push(list.stopwords.some((word) => lower.includes(word)));
  }
  if (checks.length === 0) return false;
  return list.and ? checks.every(Boolean) : checks.some(Boolean);
}

function lineAround(text: string, start: number, end: number): string {
  const from = text.lastIndexOf("\n", start - 1) + 1;
  const to = text.indexOf("\n", end);
  return text.slice(from, to === -1 ? text.length : to);
}

/** Runs one rule over `text`, pushing `start, end` pairs of its secrets onto `spans`. */
export function runRule(rule: CompiledRule, text: string, spans: number[]): void {
  if (rule.keywords !== undefined && !rule.keywords.test(text)) return;
  const re = rule.re;
  re.lastIndex = 0;
  for (let match = re.exec(text); match !== null; match = re.exec(text)) {
    const end = match.index + match[0].length;
    if (end === match.index) re.lastIndex = end + 1;
    let span: [number, number] | undefined = match.indices?.groups?.secret;
    if (rule.group !== undefined) span = match.indices?.[rule.group];
    else if (span === undefined) {
      for (let index = 1; index < match.length && span === undefined; index++) {
        if (match[index] !== undefined && match[index] !== "") span = match.indices?.[index];
      }
    }
    const [start, stop] = span ?? [match.index, end];
    if (stop <= start) continue;
    const secret = text.slice(start, stop);
    if (rule.entropy > 0 && entropy(secret) < rule.entropy) continue;
    if (rule.allowlists.length > 0) {
      const line = rule.allowlists.some((list) => list.target === "line")
        ? lineAround(text, match.index, end)
        : "";
      if (rule.allowlists.some((list) => allowed(list, secret, match[0], line))) continue;
    }
    spans.push(start, stop);
  }
}

/**
 * When a rule's finding is not a secret after all: any (or, with
 * `condition: "AND"`, every) given check that holds lets it through.
 */
export type RuleAllowlist = NonNullable<RedactRule["allowlists"]>[number];
