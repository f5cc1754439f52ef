/**
 * Masking JSON-like data and MCP content blocks: every string, every object
 * key, and whole values under keys whose names say secret.
 *
 * @module
 */

import { type Compiled, compiledOf, maskText, type Redactor } from "./engine.ts";
import { valueIsSecret } from "./value_shape.ts";
import { hintedSecret, siblingsName } from "./siblings.ts";

/**
 * An object or an array: what the walk descends into. Not `isRecord` (which
 * refuses arrays): arrays are walked too, and this one test per value is
 * all the hot path pays before it branches.
 */
function isContainer(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

interface Walk {
  readonly redactor: Redactor;
  readonly compiled: Compiled;
  // Containers on the path from the root: meeting one again means a cycle.
  // Paths are short, so an array searched in order does; past SHORT_PATH
  // containers a Set holds the whole path, so deep data stays linear.
  readonly path: object[];
  deep: Set<object> | undefined;
  /** Whether a key on the path or a sibling field named a provider or a credential. */
  hinted: boolean;
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
  if (isContainer(value) && typeof value.toJSON === "function") {
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
  if (!isContainer(value) || ArrayBuffer.isView(value)) return value;
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

/** The value under `key`: masked whole when the key says secret and the value agrees. */
function valueUnder(state: Walk, key: string, item: unknown, depth: number): unknown {
  const strength = state.compiled.strengthOf(key);
  if (strength === "none" || item === null || item === undefined) {
    const words = state.compiled.plan.proseWords;
    if (words === undefined) return walk(state, item, depth + 1);
    if (typeof item === "string") {
      return state.hinted && hintedSecret(key, item)
        ? state.redactor.mask
        : walk(state, item, depth + 1);
    }
    // `{"datadog": {…}}`: the key names what its subtree holds.
    if (state.hinted || !isContainer(item) || !words.test(key)) return walk(state, item, depth + 1);
    state.hinted = true;
    const masked = walk(state, item, depth + 1);
    state.hinted = false;
    return masked;
  }
  if (typeof item === "string") {
    return valueIsSecret(item, strength, true, 0, true)
      ? state.redactor.mask
      : walk(state, item, depth + 1);
  }
  // A strong key hides whatever it holds; a weak one only a string that looks random.
  return strength === "strong" ? state.redactor.mask : walk(state, item, depth + 1);
}

function walkObject(state: Walk, object: Record<string, unknown>, depth: number): object {
  const keys = Object.keys(object);
  const outer = state.hinted;
  const words = state.compiled.plan.proseWords;
  if (!outer && words !== undefined) state.hinted = siblingsName(words, object, keys);
  const result = walkFields(state, object, keys, depth);
  state.hinted = outer;
  return result;
}

function walkFields(
  state: Walk,
  object: Record<string, unknown>,
  keys: readonly string[],
  depth: number,
): object {
  let copy: [string, unknown][] | undefined;
  let index = 0;
  for (const key of keys) {
    const item = object[key];
    const masked = valueUnder(state, key, item, depth);
    const name = maskText(state.compiled, state.redactor.mask, key);
    if (copy === undefined && (!Object.is(masked, item) || name !== key)) {
      copy = keys.slice(0, index).map((kept) => [kept, object[kept]]);
    }
    copy?.push([name, masked]);
    index++;
  }
  if (copy === undefined) return object;
  // Two keys masked to the same name both stay, numbered, rather than one overwriting the other.
  const seen = new Set<string>();
  for (const entry of copy) {
    let name = entry[0];
    for (let n = 2; seen.has(name); n++) name = `${entry[0]} (${n})`;
    seen.add(name);
    entry[0] = name;
  }
  // fromEntries defines own properties, so a "__proto__" key stays a plain key.
  return Object.fromEntries(copy);
}

/**
 * Masks secrets in JSON-like data, object keys included: a secret used as a
 * key name is masked like one in a value (two keys masked to the same text
 * both stay, the second as `"[REDACTED] (2)"`). A value under a key whose name
 * says secret is masked whole: any value under a strong key (`password`,
 * `GITHUB_TOKEN`, `apiToken`), a random-looking string under a weak one
 * (`session`, `signature`); `null` hides nothing and stays. The input is
 * never mutated: changed containers are copied, unchanged subtrees are
 * shared, and the input itself comes back when nothing needed masking. A
 * cycle, or a subtree deeper than `maxDepth`, is replaced by the mask.
 * Objects with `toJSON` are examined as JSON.stringify would write them.
 *
 * @param redactor From `compileRedactor()`.
 * @param value Data about to be serialised: arguments, results, log data, audit entries.
 * @returns The masked data, or `value` itself when nothing was masked.
 * @throws {TypeError} `redactor` was not made by `compileRedactor()`.
 *
 * @example Usage
 * ```ts
 * import { compileRedactor } from "./engine.ts";
 * import { redactValue } from "./value.ts";
 * const redactor = compileRedactor();
 * const masked = redactValue(redactor, { user: "ada", apiKey: "k-1234", tokens_used: 42 });
 * console.assert(JSON.stringify(masked) === '{"user":"ada","apiKey":"[REDACTED]","tokens_used":42}');
 * ```
 */
export function redactValue(redactor: Redactor, value: unknown): unknown {
  const compiled = compiledOf(redactor);
  if (typeof value === "string") return maskText(compiled, redactor.mask, value);
  if (!isContainer(value)) return value;
  return walk({ redactor, compiled, path: [], deep: undefined, hinted: false }, value, 0);
}

/** A resource's contents with its `text` and its `uri` masked (a URI can carry a secret too). */
function redactContents(
  redactor: Redactor,
  compiled: Compiled,
  contents: Record<string, unknown>,
): Record<string, unknown> {
  const text = typeof contents.text === "string"
    ? maskText(compiled, redactor.mask, contents.text)
    : contents.text;
  const uri = typeof contents.uri === "string"
    ? maskText(compiled, redactor.mask, contents.uri)
    : contents.uri;
  return text === contents.text && uri === contents.uri ? contents : { ...contents, text, uri };
}

function redactBlock<T>(redactor: Redactor, compiled: Compiled, block: T): T {
  if (!isContainer(block)) return block;
  if (block.type === undefined && typeof block.uri === "string") {
    return redactContents(redactor, compiled, block) as T;
  }
  if (block.type === "text" && typeof block.text === "string") {
    const text = maskText(compiled, redactor.mask, block.text);
    return text === block.text ? block : { ...block, text };
  }
  const resource = block.resource;
  if (block.type === "resource" && isContainer(resource)) {
    const masked = redactContents(redactor, compiled, resource);
    return masked === resource ? block : { ...block, resource: masked };
  }
  return block;
}

/**
 * Masks secrets in MCP content blocks: the `text` of text blocks, and the
 * `text` and `uri` of embedded resources and of a `resources/read` result's
 * `contents` items (a URI the client asked for can carry a secret, and the
 * server repeats it). Everything else (`type`, `mimeType`, base64 `data` and
 * `blob`, `annotations`, `_meta`) is left as it is.
 *
 * @param redactor From {@linkcode compileRedactor}.
 * @param blocks Content blocks or resource contents.
 * @returns New blocks where something was masked, or `blocks` itself when nothing was.
 * @throws {TypeError} `redactor` was not made by {@linkcode compileRedactor}.
 *
 * @example Usage
 * ```ts
 * import { compileRedactor } from "./engine.ts";
 * import { redactContent } from "./value.ts";
 * const redactor = compileRedactor();
 * const blocks = [
 *   { type: "text", text: "key: ghp_R8mZ2kQ7vX4nB1cT6yH3jW9pL5sD0fGaE2uK" },
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
