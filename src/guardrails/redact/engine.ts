/**
 * The redactor: masks secrets in text before it leaves the server.
 *
 * Compile once with {@linkcode compileRedactor} (options are checked there),
 * then call {@linkcode redactText} on the hot path, or `redactValue` /
 * `redactContent` (value.ts) for JSON-like data and content blocks. They never
 * mutate their input and return it unchanged (the same reference) when there
 * was nothing to mask.
 *
 * @module
 */

import {
  DEFAULT_REDACT_KEYS,
  keyStrengthOf,
  planFor,
  REDACT_PRESETS,
  type RedactPreset,
} from "./presets.ts";
import { type KeyStrength, normaliseKey } from "./key_names.ts";
import {
  type CompiledRule,
  compileRedactRule,
  patternRule,
  type RedactRule,
  runRule,
} from "./rules.ts";
import { type ScanPlan, scanText } from "./scanner.ts";
import { MEMO_MIN_UNITS, rememberedMask, rememberMask } from "./memo.ts";
import { checkConfig } from "../../schema/config.ts";
import type { JsonSchemaMap, JsonSchemaObject } from "../../schema/types.ts";

/**
 * Options for {@linkcode compileRedactor}.
 *
 * @example The presets a desk needs, its own key format, and its own field names
 * ```ts
 * import { redaction, type RedactorOptions } from "@warden/mcp/guardrails";
 * const options: RedactorOptions = {
 *   presets: ["github", "jwt", "bearer", "url", "keyvalue"],
 *   patterns: [/\bODK-[A-Za-z0-9]{24,}\b/],
 *   keys: ["customer_pin", "card_cvc"],
 *   mask: "[hidden]",
 * };
 * const guardrail = redaction(options);
 * ```
 */
export interface RedactorOptions {
  /**
   * Which built-in detectors run: `true` for all of them, `false` for none, or
   * a list of {@linkcode RedactPreset} names.
   *
   * @default {true}
   */
  presets?: boolean | readonly RedactPreset[];
  /**
   * Extra rules. A string is compiled as a regular expression source with the
   * `u` flag; a `RegExp` keeps its flags except `y`. Both always scan the whole
   * text. When a rule has a group named `secret`, only that group is masked.
   * A rule that matches the empty string is refused.
   *
   * @default {[]}
   */
  patterns?: readonly (string | RegExp)[];
  /**
   * Extra structured rules, with keywords, a secret group, an entropy
   * threshold and allowlists: what `loadGitleaksRules()` returns, or your own.
   *
   * @default {[]}
   */
  rules?: readonly RedactRule[];
  /**
   * Extra keys whose values are masked, compared case-insensitively,
   * ignoring `-`, `_` and spaces, otherwise exactly: in data any value but
   * `null`; in text any quoted value, and an unquoted one unless it reads as
   * a word, code or a placeholder.
   *
   * @default {[]}
   */
  keys?: readonly string[];
  /**
   * Whether the default key detection runs: the keys in
   * {@linkcode DEFAULT_REDACT_KEYS}, and every key whose name says secret
   * (`GITHUB_TOKEN`, `db_password`, `apiToken`, `SLACK_BOT_TOKEN`).
   *
   * @default {true}
   */
  defaultKeys?: boolean;
  /**
   * The text that replaces each secret.
   *
   * @default {"[REDACTED]"}
   */
  mask?: string;
  /**
   * How many levels of objects and arrays `redactValue` walks into;
   * a deeper subtree is replaced by the mask as a whole, which is safer than
   * letting it through unexamined.
   *
   * @default {64}
   */
  maxDepth?: number;
}

/**
 * A compiled redactor. Its fields describe it; the compiled rules stay
 * private, so only {@linkcode compileRedactor} can make one.
 *
 * @example Inspecting a redactor
 * ```ts
 * import { compileRedactor } from "./engine.ts";
 * const redactor = compileRedactor({ presets: ["jwt"], mask: "***" });
 * console.assert(redactor.mask === "***");
 * ```
 */
export interface Redactor {
  /** The text that replaces each secret. */
  readonly mask: string;
  /** The built-in detectors that run. */
  readonly presets: readonly RedactPreset[];
  /** The exact sensitive keys, normalised (lower case, no `-`, `_` or spaces). */
  readonly keys: readonly string[];
  /** How deep `redactValue` walks before masking a whole subtree. */
  readonly maxDepth: number;
}

/** A redactor's private parts (internal to the guardrails). */
export interface Compiled {
  readonly plan: ScanPlan;
  readonly rules: readonly CompiledRule[];
  /** The strength of an object key's name, for structured data. */
  readonly strengthOf: (key: string) => KeyStrength;
}

const compiledRedactors = new WeakMap<Redactor, Compiled>();

/**
 * The shape of each of {@linkcode RedactorOptions}' fields (internal: the
 * policy's redact section adds its own). Preset names, regular expressions
 * and key names are checked as they compile.
 */
export const REDACTOR_OPTION_SCHEMAS: JsonSchemaMap = {
  presets: { type: ["boolean", "array"], items: { type: "string" } },
  // A string, or a RegExp (an object to a schema): compileRule tells them apart.
  patterns: { type: "array", items: { type: ["string", "object"] } },
  rules: { type: "array", items: { type: "object" } },
  keys: { type: "array", items: { type: "string" } },
  defaultKeys: { type: "boolean" },
  mask: { type: "string" },
  maxDepth: { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
};
// Other keys pass, as they always have: code may hand over a wider object.
const REDACTOR_OPTIONS_SCHEMA: JsonSchemaObject = {
  type: "object",
  properties: REDACTOR_OPTION_SCHEMAS,
};

/** The `aws` preset's `aws_secret_access_key = <40 characters>`, also without key context. */
const AWS_SECRET_RULE: CompiledRule = compileRedactRule({
  id: "aws-secret-access-key",
  regex: String
    .raw`aws[_-]?secret[_-]?(?:access[_-]?)?key["']?\s{0,16}[:=]\s{0,16}["']?(?<secret>[A-Za-z0-9\/+]{40})(?![A-Za-z0-9\/+=])`,
  flags: "i",
  keywords: ["aws"],
});

function selectPresets(presets: RedactorOptions["presets"]): readonly RedactPreset[] {
  if (presets === undefined || presets === true) return REDACT_PRESETS;
  if (presets === false) return [];
  return presets.map((name: unknown) => {
    const known = REDACT_PRESETS.find((preset) => preset === name);
    if (known === undefined) throw new RangeError(`Unknown redaction preset: '${String(name)}'`);
    return known;
  });
}

function collectKeys(options: RedactorOptions): string[] {
  const keys = new Set(options.defaultKeys === false ? [] : DEFAULT_REDACT_KEYS);
  for (const key of options.keys ?? []) {
    const normal = normaliseKey(key);
    if (normal === "") {
      throw new TypeError(`Invalid redaction key: ${JSON.stringify(key)} is not a non-empty name`);
    }
    keys.add(normal);
  }
  return [...keys];
}

/**
 * Checks the options once and builds a redactor for the redaction functions.
 * The built-in detectors run in one linear pass over the text; `patterns` and
 * `rules` each scan the text (a rule with keywords only text holding one).
 * Every redaction function masks object keys as well as values.
 *
 * @param options What to detect and how to mask it.
 * @returns A reusable, immutable redactor.
 * @throws {SyntaxError} A pattern is not a valid regular expression.
 * @throws {TypeError} A pattern matches the empty string, a key is empty, or an option has the wrong type.
 * @throws {RangeError} A preset name is unknown or `maxDepth` is negative.
 *
 * @example Usage
 * ```ts
 * import { compileRedactor, redactText } from "./engine.ts";
 * const redactor = compileRedactor({ patterns: [String.raw`ORD-\d{6}`], keys: ["pin"] });
 * console.assert(redactText(redactor, "order ORD-123456") === "order [REDACTED]");
 * ```
 */
export function compileRedactor(options: RedactorOptions = {}): Redactor {
  checkConfig(REDACTOR_OPTIONS_SCHEMA, options, "Invalid redactor options");
  const mask = options.mask ?? "[REDACTED]";
  const maxDepth = options.maxDepth ?? 64;
  const presets = [...new Set(selectPresets(options.presets))];
  const keys = collectKeys(options);
  const strengthOf = keyStrengthOf(new Set(keys), options.defaultKeys !== false);
  const plan = planFor(presets, strengthOf, keys.length > 0 || options.defaultKeys !== false);
  const rules = [
    // Key context finds these too; without it, the aws preset still does.
    ...(presets.includes("aws") && plan.strengthOf === undefined ? [AWS_SECRET_RULE] : []),
    ...(options.patterns ?? []).map(patternRule),
    ...(options.rules ?? []).map(compileRedactRule),
  ];
  const redactor: Redactor = Object.freeze({
    mask,
    presets: Object.freeze(presets),
    keys: Object.freeze(keys),
    maxDepth,
  });
  compiledRedactors.set(redactor, { plan, rules, strengthOf });
  return redactor;
}

/** The private parts of a redactor (internal to the guardrails). */
export function compiledOf(redactor: Redactor): Compiled {
  const compiled = compiledRedactors.get(redactor);
  if (compiled === undefined) {
    throw new TypeError("Invalid redactor: create it with compileRedactor()");
  }
  return compiled;
}

/** Start and end offsets of every secret, as a flat list of pairs; none as `undefined`. */
export function findSecrets(compiled: Compiled, text: string): number[] | undefined {
  const spans: number[] = [];
  scanText(compiled.plan, text, spans);
  for (const rule of compiled.rules) runRule(rule, text, spans);
  return spans.length === 0 ? undefined : spans;
}

/** `text` with every secret replaced by `mask`; `text` itself when there is none. */
export function maskText(compiled: Compiled, mask: string, text: string): string {
  // No built-in rule matches fewer than six characters (`k=abcd` is the least key context):
  // short strings, most object keys and values, skip the scan.
  if (text.length < 6 && compiled.rules.length === 0) return text;
  if (text.length < MEMO_MIN_UNITS) return maskFound(compiled, mask, text);
  // A large text this call masked already (memo.ts) is not scanned again.
  const known = rememberedMask(compiled, mask, text);
  if (known !== undefined) return known;
  const masked = maskFound(compiled, mask, text);
  rememberMask(compiled, mask, text, masked);
  return masked;
}

function maskFound(compiled: Compiled, mask: string, text: string): string {
  const flat = findSecrets(compiled, text);
  if (flat === undefined) return text;
  const order: number[] = [];
  for (let index = 0; index < flat.length; index += 2) order.push(index);
  order.sort((a, b) => (flat[a] ?? 0) - (flat[b] ?? 0));
  let result = "";
  let cursor = 0;
  let maskEnd = -1;
  for (const index of order) {
    const start = flat[index] ?? 0;
    const end = flat[index + 1] ?? 0;
    if (end <= start) continue;
    // Overlapping or touching secrets share one mask.
    if (start > maskEnd) {
      result += text.slice(cursor, start) + mask;
      maskEnd = end;
    } else {
      maskEnd = Math.max(maskEnd, end);
    }
    cursor = maskEnd;
  }
  return result + text.slice(cursor);
}

/**
 * Masks every secret the redactor finds in a string. Only the secret is
 * replaced: `Bearer abc123…` keeps `Bearer `, `GITHUB_TOKEN=…` keeps the
 * key, a PEM block is masked whole. Use it for any outgoing string: a
 * reply's text, a log line, a diagnostic, an audit field.
 *
 * @param redactor From {@linkcode compileRedactor}.
 * @param text Any text.
 * @returns The masked text, or `text` itself when nothing was found.
 * @throws {TypeError} `redactor` was not made by {@linkcode compileRedactor}.
 *
 * @example Usage
 * ```ts
 * import { compileRedactor, redactText } from "./engine.ts";
 * const redactor = compileRedactor();
 * const line = redactText(redactor, "Authorization: Bearer a1b2c3d4e5f6g7h8");
 * console.assert(line === "Authorization: Bearer [REDACTED]");
 * ```
 */
export function redactText(redactor: Redactor, text: string): string {
  return maskText(compiledOf(redactor), redactor.mask, text);
}
