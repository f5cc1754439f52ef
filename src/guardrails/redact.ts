/**
 * The redactor: masks secrets in text, in JSON-like values and in MCP content
 * blocks before they leave the server.
 *
 * Compile once with {@linkcode compileRedactor} (options are checked there),
 * then call {@linkcode redactText}, {@linkcode redactValue} or
 * {@linkcode redactContent} on the hot path. These never mutate their input and
 * return it unchanged (the same reference) when there was nothing to mask.
 *
 * @module
 */

import {
  compilePresetRule,
  compileRule,
  DEFAULT_REDACT_KEYS,
  normaliseKey,
  presetGroups,
  REDACT_PRESETS,
  type RedactPreset,
} from "./redact_presets.ts";

/** Options for {@linkcode compileRedactor}. */
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
   * Extra keys whose values are always masked, compared like the default keys
   * (case-insensitive, ignoring `-`, `_` and spaces, otherwise exact).
   *
   * @default {[]}
   */
  keys?: readonly string[];
  /**
   * Whether the keys in {@linkcode DEFAULT_REDACT_KEYS} (`password`, `token`,
   * `api_key`, `authorization`, `cookie`, `session` and others) are masked.
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
   * How many levels of objects and arrays {@linkcode redactValue} walks into;
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
 * import { compileRedactor } from "@warden/mcp/guardrails";
 * const redactor = compileRedactor({ presets: ["jwt"], mask: "***" });
 * console.assert(redactor.mask === "***");
 * ```
 */
export interface Redactor {
  /** The text that replaces each secret. */
  readonly mask: string;
  /** The built-in detectors that run. */
  readonly presets: readonly RedactPreset[];
  /** The sensitive keys, normalised (lower case, no `-`, `_` or spaces). */
  readonly keys: readonly string[];
  /** How deep {@linkcode redactValue} walks before masking a whole subtree. */
  readonly maxDepth: number;
}

/**
 * Compiled rules and the hints a text must match before they run (see
 * `RuleGroup`); user patterns have no hints and always run.
 */
interface CompiledGroup {
  readonly hint: RegExp | undefined;
  readonly confirm: RegExp | undefined;
  readonly rules: readonly RegExp[];
}

interface Compiled {
  /** Every hint in one pattern: a text it does not match skips every hinted group at once. */
  readonly anyHint: RegExp | undefined;
  readonly groups: readonly CompiledGroup[];
  readonly keys: ReadonlySet<string>;
  // Normalising a key allocates; field names repeat, so their verdicts are kept.
  readonly verdicts: Map<string, boolean>;
  /** The state of the last finished {@linkcode redactValue} walk, for the next one. */
  idleWalk: Walk | undefined;
}

const compiledRedactors = new WeakMap<Redactor, Compiled>();
const VERDICT_CACHE_LIMIT = 1024;

function selectPresets(presets: RedactorOptions["presets"]): readonly RedactPreset[] {
  if (presets === undefined || presets === true) return REDACT_PRESETS;
  if (presets === false) return [];
  if (!Array.isArray(presets)) {
    throw new TypeError("Invalid redactor options: presets must be a boolean or a list of names");
  }
  return presets.map((name: unknown) => {
    const known = REDACT_PRESETS.find((preset) => preset === name);
    if (known === undefined) throw new RangeError(`Unknown redaction preset: '${String(name)}'`);
    return known;
  });
}

function collectKeys(options: RedactorOptions): string[] {
  const keys = new Set(options.defaultKeys === false ? [] : DEFAULT_REDACT_KEYS);
  for (const key of options.keys ?? []) {
    const normal = typeof key === "string" ? normaliseKey(key) : "";
    if (normal === "") {
      throw new TypeError(`Invalid redaction key: ${JSON.stringify(key)} is not a non-empty name`);
    }
    keys.add(normal);
  }
  return [...keys];
}

/**
 * Checks the options once and builds a redactor for the redaction functions.
 * A built-in rule only scans text that holds a literal it needs (`AKIA`,
 * `eyJ`, `://`, a sensitive key before `:` or `=`, …), so ordinary text costs
 * a few quick searches; `patterns` scan all text.
 *
 * @param options What to detect and how to mask it.
 * @returns A reusable, immutable redactor.
 * @throws {SyntaxError} A pattern is not a valid regular expression.
 * @throws {TypeError} A pattern matches the empty string, a key is empty, or an option has the wrong type.
 * @throws {RangeError} A preset name is unknown or `maxDepth` is not a non-negative integer.
 *
 * @example Usage
 * ```ts
 * import { compileRedactor, redactText } from "@warden/mcp/guardrails";
 * const redactor = compileRedactor({ patterns: [String.raw`ORD-\d{6}`], keys: ["pin"] });
 * console.assert(redactText(redactor, "order ORD-123456") === "order [REDACTED]");
 * ```
 */
export function compileRedactor(options: RedactorOptions = {}): Redactor {
  const mask = options.mask ?? "[REDACTED]";
  if (typeof mask !== "string") {
    throw new TypeError("Invalid redactor options: mask must be a string");
  }
  const maxDepth = options.maxDepth ?? 64;
  if (!Number.isSafeInteger(maxDepth) || maxDepth < 0) {
    throw new RangeError(
      `Invalid redactor options: maxDepth must be a non-negative integer, got ${maxDepth}`,
    );
  }
  const presets = [...new Set(selectPresets(options.presets))];
  const keys = collectKeys(options);
  const hinted = presets.flatMap((preset) => presetGroups(preset, keys));
  const groups: CompiledGroup[] = hinted.map(({ hint, confirm, patterns }) => ({
    hint,
    confirm,
    rules: patterns.map(compilePresetRule),
  }));
  const patterns = (options.patterns ?? []).map(compileRule);
  if (patterns.length > 0) groups.push({ hint: undefined, confirm: undefined, rules: patterns });
  // Case-insensitive, so it matches wherever a case-sensitive hint would.
  const anyHint = hinted.length === 0
    ? undefined
    : new RegExp(hinted.map(({ hint }) => `(?:${hint.source})`).join("|"), "iu");
  const redactor: Redactor = Object.freeze({
    mask,
    presets: Object.freeze(presets),
    keys: Object.freeze(keys),
    maxDepth,
  });
  compiledRedactors.set(redactor, {
    anyHint,
    groups,
    keys: new Set(keys),
    verdicts: new Map(),
    idleWalk: undefined,
  });
  return redactor;
}

function compiledOf(redactor: Redactor): Compiled {
  const compiled = compiledRedactors.get(redactor);
  if (compiled === undefined) {
    throw new TypeError("Invalid redactor: create it with compileRedactor()");
  }
  return compiled;
}

/** Start and end offsets of every secret any rule finds, sorted by start; none as `undefined`. */
function findSecrets(compiled: Compiled, text: string): [number, number][] | undefined {
  let spans: [number, number][] | undefined;
  const hinted = compiled.anyHint?.test(text) ?? false;
  for (const { hint, confirm, rules } of compiled.groups) {
    if (hint !== undefined && (!hinted || !hint.test(text) || confirm?.test(text) === false)) {
      continue;
    }
    for (const rule of rules) {
      // A global expression resumes at `lastIndex`: start every scan from the top.
      rule.lastIndex = 0;
      for (let match = rule.exec(text); match !== null; match = rule.exec(text)) {
        const end = match.index + match[0].length;
        if (end === match.index) rule.lastIndex = end + 1;
        // Only rules with a `secret` group have the `d` flag, and so `indices`.
        const [start, stop] = match.indices?.groups?.secret ?? [match.index, end];
        if (stop > start) (spans ??= []).push([start, stop]);
      }
    }
  }
  return spans?.sort((a, b) => a[0] - b[0]);
}

function maskText(compiled: Compiled, mask: string, text: string): string {
  const spans = findSecrets(compiled, text);
  if (spans === undefined) return text;
  let result = "";
  let cursor = 0;
  let maskEnd = -1;
  for (const [start, end] of spans) {
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
 * Masks every secret the redactor's rules find in a string. Only the secret
 * is replaced: `Bearer abc123…` keeps `Bearer `, a PEM block is masked whole.
 *
 * @param redactor From {@linkcode compileRedactor}.
 * @param text Any text.
 * @returns The masked text, or `text` itself when nothing was found.
 * @throws {TypeError} `redactor` was not made by {@linkcode compileRedactor}.
 *
 * @example Usage
 * ```ts
 * import { compileRedactor, redactText } from "@warden/mcp/guardrails";
 * const redactor = compileRedactor();
 * const line = redactText(redactor, "Authorization: Bearer a1b2c3d4e5f6g7h8");
 * console.assert(line === "Authorization: Bearer [REDACTED]");
 * ```
 */
export function redactText(redactor: Redactor, text: string): string {
  return maskText(compiledOf(redactor), redactor.mask, text);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

function isSensitiveKey(compiled: Compiled, key: string): boolean {
  let verdict = compiled.verdicts.get(key);
  if (verdict === undefined) {
    verdict = compiled.keys.has(normaliseKey(key));
    if (compiled.verdicts.size >= VERDICT_CACHE_LIMIT) compiled.verdicts.clear();
    compiled.verdicts.set(key, verdict);
  }
  return verdict;
}

interface Walk {
  readonly redactor: Redactor;
  readonly compiled: Compiled;
  // Containers on the path from the root: meeting one again means a cycle.
  // Paths are short, so an array searched in order does; past SHORT_PATH
  // containers a Set holds the whole path, so deep data stays linear.
  readonly path: object[];
  deep: Set<object> | undefined;
}

const SHORT_PATH = 32;

/** Puts `container` on the path; false when it is there already (a cycle). */
function enter(state: Walk, container: object): boolean {
  const { path } = state;
  if (path.length < SHORT_PATH) {
    if (path.includes(container)) return false;
  } else {
    state.deep ??= new Set(path);
    if (state.deep.has(container)) return false;
    state.deep.add(container);
  }
  path.push(container);
  return true;
}

function leave(state: Walk): void {
  const container = state.path.pop();
  if (state.deep === undefined || container === undefined) return;
  if (state.path.length < SHORT_PATH) state.deep = undefined;
  else state.deep.delete(container);
}

function walk(state: Walk, value: unknown, depth: number): unknown {
  if (isRecord(value) && typeof value.toJSON === "function") {
    // Examine what JSON.stringify will write (it calls toJSON once, not on the
    // result), but keep the original when that needs no mask.
    const json: unknown = value.toJSON.call(value, "");
    if (json !== value) {
      const masked = walkJson(state, json, depth);
      return Object.is(masked, json) ? value : masked;
    }
  }
  return walkJson(state, value, depth);
}

function walkJson(state: Walk, value: unknown, depth: number): unknown {
  const { redactor, compiled } = state;
  if (typeof value === "string") return maskText(compiled, redactor.mask, value);
  if (!isRecord(value) || ArrayBuffer.isView(value)) return value;
  if (depth > redactor.maxDepth || !enter(state, value)) return redactor.mask;
  const result = Array.isArray(value)
    ? walkArray(state, value, depth)
    : walkObject(state, value, depth);
  leave(state);
  return result;
}

function walkArray(state: Walk, items: readonly unknown[], depth: number): readonly unknown[] {
  let copy: unknown[] | undefined;
  let index = 0;
  for (const item of items) {
    const masked = walk(state, item, depth + 1);
    if (copy === undefined && !Object.is(masked, item)) copy = items.slice(0, index);
    copy?.push(masked);
    index++;
  }
  return copy ?? items;
}

function walkObject(state: Walk, object: Record<string, unknown>, depth: number): object {
  const keys = Object.keys(object);
  let copy: [string, unknown][] | undefined;
  let index = 0;
  for (const key of keys) {
    const item = object[key];
    let masked: unknown;
    if (!isSensitiveKey(state.compiled, key)) masked = walk(state, item, depth + 1);
    else masked = item === null || item === undefined ? item : state.redactor.mask;
    if (copy === undefined && !Object.is(masked, item)) {
      copy = keys.slice(0, index).map((kept) => [kept, object[kept]]);
    }
    copy?.push([key, masked]);
    index++;
  }
  // fromEntries defines own properties, so a "__proto__" key stays a plain key.
  return copy === undefined ? object : Object.fromEntries(copy);
}

/**
 * Masks secrets in JSON-like data: the whole value under a sensitive key
 * (except `null`), and every secret the text rules find in string values.
 * Object keys are not rewritten. The input is never mutated: changed
 * containers are copied, unchanged subtrees are shared, and the input itself
 * comes back when nothing needed masking. A cycle, or a subtree deeper than
 * `maxDepth`, is replaced by the mask. Objects with `toJSON` are examined as
 * JSON.stringify would write them.
 *
 * @param redactor From {@linkcode compileRedactor}.
 * @param value Data about to be serialised: arguments, results, log data.
 * @returns The masked data, or `value` itself when nothing was masked.
 * @throws {TypeError} `redactor` was not made by {@linkcode compileRedactor}.
 *
 * @example Usage
 * ```ts
 * import { compileRedactor, redactValue } from "@warden/mcp/guardrails";
 * const redactor = compileRedactor();
 * const masked = redactValue(redactor, { user: "ada", apiKey: "k-1234", tokens_used: 42 });
 * console.assert(JSON.stringify(masked) === '{"user":"ada","apiKey":"[REDACTED]","tokens_used":42}');
 * ```
 */
export function redactValue(redactor: Redactor, value: unknown): unknown {
  const compiled = compiledOf(redactor);
  if (typeof value === "string") return maskText(compiled, redactor.mask, value);
  if (!isRecord(value)) return value;
  // A walk leaves its path empty, so its state can serve the next one; a
  // nested walk (from a toJSON) or one a throw cut short gets a fresh state.
  const state = compiled.idleWalk ?? { redactor, compiled, path: [], deep: undefined };
  compiled.idleWalk = undefined;
  const masked = walk(state, value, 0);
  compiled.idleWalk = state;
  return masked;
}

function redactBlock<T>(redactor: Redactor, compiled: Compiled, block: T): T {
  if (!isRecord(block)) return block;
  const isText = block.type === "text" ||
    (block.type === undefined && typeof block.uri === "string");
  if (isText && typeof block.text === "string") {
    const text = maskText(compiled, redactor.mask, block.text);
    return text === block.text ? block : { ...block, text };
  }
  const resource = block.resource;
  if (block.type === "resource" && isRecord(resource) && typeof resource.text === "string") {
    const text = maskText(compiled, redactor.mask, resource.text);
    return text === resource.text ? block : { ...block, resource: { ...resource, text } };
  }
  return block;
}

/**
 * Masks secrets in MCP content blocks: the `text` of text blocks and the
 * `resource.text` of embedded resources. Everything else (`type`, `mimeType`,
 * `uri`, base64 `data` and `blob`, `annotations`, `_meta`) is left as it is.
 * Items of a `resources/read` result's `contents` (no `type`, a `uri` and a
 * `text`) are masked too.
 *
 * @param redactor From {@linkcode compileRedactor}.
 * @param blocks Content blocks or resource contents.
 * @returns New blocks where something was masked, or `blocks` itself when nothing was.
 * @throws {TypeError} `redactor` was not made by {@linkcode compileRedactor}.
 *
 * @example Usage
 * ```ts
 * import { compileRedactor, redactContent } from "@warden/mcp/guardrails";
 * const redactor = compileRedactor();
 * const blocks = [
 *   { type: "text", text: "key: ghp_0123456789abcdefghijABCDEFGHIJ012345" },
 *   { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
 * ];
 * const [text, image] = redactContent(redactor, blocks);
 * console.assert(text?.text === "key: [REDACTED]" && image === blocks[1]);
 * ```
 */
export function redactContent<T>(redactor: Redactor, blocks: readonly T[]): readonly T[] {
  const compiled = compiledOf(redactor);
  let copy: T[] | undefined;
  let index = 0;
  for (const block of blocks) {
    const masked = redactBlock(redactor, compiled, block);
    if (copy === undefined && masked !== block) copy = blocks.slice(0, index);
    copy?.push(masked);
    index++;
  }
  return copy ?? blocks;
}
