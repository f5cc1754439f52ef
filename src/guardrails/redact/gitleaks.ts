/**
 * Extra redaction rules from a gitleaks configuration file (TOML): its
 * `[[rules]]` with `regex`, `secretGroup`, `keywords`, `entropy` and
 * per-rule allowlists, and the file's global allowlists, which apply to
 * every rule of the file. Regexes are Go RE2; they are translated to
 * ECMAScript (`re2.ts`) or refused with the rule id and the file named.
 *
 * MCP traffic has no file paths or commits, so an allowlist's `paths` and
 * `commits` never allow a finding (a redactor that errs masks more), and a
 * rule's `path` does not narrow where it runs; a rule with only a `path`
 * and no `regex` (a rule about files) is left out.
 *
 * @module
 */

import { loadToml } from "../../runtime/npm/toml.ts";
import { isRecord } from "../../jsonrpc/messages.ts";
import { readTextFile } from "../../runtime/host.ts";
import { translateRe2 } from "./re2.ts";
import type { RedactRule, RuleAllowlist } from "./rules.ts";
import { compileRedactRule } from "./rules.ts";

const RULE_KEYS = new Set([
  "id",
  "description",
  "regex",
  "secretGroup",
  "entropy",
  "keywords",
  "path",
  "tags",
  "allowlist",
  "allowlists",
  "skipReport",
]);
const ALLOWLIST_KEYS = new Set([
  "description",
  "condition",
  "regexTarget",
  "regexes",
  "stopwords",
  "paths",
  "commits",
  "targetRules",
]);

function stringList(value: unknown, where: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) {
    throw new TypeError(`${where} must be a list of strings`);
  }
  return value;
}

function translated(pattern: string, where: string): string {
  try {
    const { source, flags } = translateRe2(pattern);
    return flags === "" ? source : `(?${flags}:${source})`;
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new SyntaxError(`${where}: cannot translate '${pattern}': ${detail}`);
  }
}

interface Allowlist extends RuleAllowlist {
  readonly targetRules: readonly string[];
}

function allowlist(value: unknown, where: string): Allowlist {
  if (!isRecord(value)) throw new TypeError(`${where} must be a table`);
  for (const key of Object.keys(value)) {
    if (!ALLOWLIST_KEYS.has(key)) throw new TypeError(`${where}: unknown key '${key}'`);
  }
  const { condition, regexTarget } = value;
  if (condition !== undefined && condition !== "OR" && condition !== "AND") {
    throw new TypeError(`${where}: condition must be "OR" or "AND"`);
  }
  if (
    regexTarget !== undefined && regexTarget !== "secret" && regexTarget !== "match" &&
    regexTarget !== "line"
  ) {
    throw new TypeError(`${where}: regexTarget must be "secret", "match" or "line"`);
  }
  const paths = stringList(value.paths, `${where}: paths`).length +
    stringList(value.commits, `${where}: commits`).length;
  const regexes = stringList(value.regexes, `${where}: regexes`).map((pattern) =>
    translated(pattern, `${where}: regexes`)
  );
  const stopwords = stringList(value.stopwords, `${where}: stopwords`);
  // A path or commit condition can never hold here: under AND the list allows nothing.
  const never = condition === "AND" && paths > 0;
  return {
    regexes: never ? [] : regexes,
    stopwords: never ? [] : stopwords,
    regexTarget: regexTarget ?? "secret",
    condition: condition ?? "OR",
    targetRules: stringList(value.targetRules, `${where}: targetRules`),
  };
}

function allowlists(value: unknown, where: string): Allowlist[] {
  if (value === undefined) return [];
  const items = Array.isArray(value) ? value : [value];
  return items.map((item, index) =>
    allowlist(item, items.length > 1 ? `${where} ${index + 1}` : where)
  );
}

function rule(
  value: unknown,
  index: number,
  global: readonly Allowlist[],
): RedactRule | undefined {
  if (!isRecord(value)) throw new TypeError(`rule ${index + 1} must be a table`);
  const id = value.id;
  if (typeof id !== "string" || id === "") {
    throw new TypeError(`rule ${index + 1}: id must be a non-empty string`);
  }
  const where = `rule '${id}'`;
  for (const key of Object.keys(value)) {
    if (!RULE_KEYS.has(key)) throw new TypeError(`${where}: unknown key '${key}'`);
  }
  if (typeof value.regex !== "string" || value.regex === "") {
    // A rule that only matches file paths (`pkcs12-file`) has nothing to look for in MCP traffic.
    if (value.regex === undefined && typeof value.path === "string") return undefined;
    throw new TypeError(`${where}: regex must be a non-empty string`);
  }
  const { secretGroup, entropy } = value;
  if (
    secretGroup !== undefined && !(typeof secretGroup === "number" && Number.isInteger(secretGroup))
  ) {
    throw new TypeError(`${where}: secretGroup must be an integer`);
  }
  if (entropy !== undefined && typeof entropy !== "number") {
    throw new TypeError(`${where}: entropy must be a number`);
  }
  const own = [
    ...allowlists(value.allowlist, `${where}: allowlist`),
    ...allowlists(value.allowlists, `${where}: allowlists`),
  ];
  const applying = global.filter((list) =>
    list.targetRules.length === 0 || list.targetRules.includes(id)
  );
  const result: RedactRule = {
    id,
    regex: translated(value.regex, where),
    ...(secretGroup === undefined ? {} : { secretGroup }),
    ...(entropy === undefined ? {} : { entropy }),
    keywords: stringList(value.keywords, `${where}: keywords`),
    allowlists: [...own, ...applying].map(({ targetRules: _, ...list }) => list),
  };
  compileRedactRule(result);
  return result;
}

/**
 * Parses the text of a gitleaks configuration into redaction rules. `source`
 * names the file in messages.
 *
 * @param text The TOML text.
 * @param source The file's name, for messages.
 * @returns One rule per `[[rules]]` entry, global allowlists folded in.
 * @throws {SyntaxError} The TOML does not parse ("Cannot parse gitleaks rules FILE: … at 3:7"), or a regex cannot be translated.
 * @throws {TypeError} A rule or allowlist has an unknown key or a wrong type, or the file uses `[extend]`.
 *
 * @example
 * ```ts
 * import { compileRedactor, redactText } from "./engine.ts";
 * import { parseGitleaksRules } from "./gitleaks.ts";
 * const rules = await parseGitleaksRules(
 *   "[[rules]]\nid = 'order-desk'\nregex = '''ODK-[A-Za-z0-9]{24}'''\nkeywords = ['odk-']\n",
 *   "rules.toml",
 * );
 * const redactor = compileRedactor({ rules });
 * console.assert(redactText(redactor, "key ODK-abcdefghijklmnopqrstuvwx") === "key [REDACTED]");
 * ```
 */
export async function parseGitleaksRules(text: string, source: string): Promise<RedactRule[]> {
  const { parse } = await loadToml();
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message.split("\n")[0] ?? "" : String(error);
    const line = isRecord(error) && typeof error.line === "number" ? error.line : undefined;
    const column = isRecord(error) && typeof error.column === "number" ? error.column : undefined;
    const at = line === undefined ? "" : ` at ${line}:${column ?? 1}`;
    throw new SyntaxError(
      `Cannot parse gitleaks rules ${source}: ${
        detail.replace(/^Invalid TOML document: /u, "")
      }${at}`,
    );
  }
  try {
    if (!isRecord(document)) throw new TypeError("expected a table at the top level");
    if (document.extend !== undefined) {
      throw new TypeError("[extend] is not supported: list every rule in this file");
    }
    const global = [
      ...allowlists(document.allowlist, "allowlist"),
      ...allowlists(document.allowlists, "allowlists"),
    ];
    const rules = document.rules ?? [];
    if (!Array.isArray(rules)) throw new TypeError("rules must be an array of tables ([[rules]])");
    return rules.flatMap((item, index) => rule(item, index, global) ?? []);
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    const message = `Cannot load gitleaks rules ${source}: ${error.message}`;
    if (error instanceof SyntaxError) throw new SyntaxError(message);
    if (error instanceof RangeError) throw new RangeError(message);
    throw new TypeError(message);
  }
}

/**
 * Reads a gitleaks configuration file into redaction rules (see
 * {@linkcode parseGitleaksRules}). Needs only `--allow-read=FILE` on Deno.
 *
 * @param path The file.
 * @returns Its rules, for `compileRedactor({ rules })` or `redact.rules`.
 * @throws {Error} The file cannot be read ("Cannot read gitleaks rules FILE: …").
 *
 * @example
 * ```ts ignore
 * import { loadGitleaksRules } from "@warden/mcp/guardrails";
 * import { compileRedactor } from "./engine.ts";
 * const redactor = compileRedactor({ rules: await loadGitleaksRules("gitleaks.toml") });
 * ```
 */
export async function loadGitleaksRules(path: string): Promise<RedactRule[]> {
  const text = await readTextFile(path, "gitleaks rules");
  return await parseGitleaksRules(text, path);
}
