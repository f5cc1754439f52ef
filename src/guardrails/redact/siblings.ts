/**
 * Context from structure: in JSON, the word that makes a random-looking
 * value a credential often sits beside it rather than in its key
 * (`{"integration": "adobe", "value": "3f9a…"}`) or above it in the key path
 * (`{"datadog": {"value": "…"}}`). An object whose descriptive fields
 * (`service`, `provider`, `integration`, `name`, `type`, …) or whose key
 * names a provider or a credential gives its random-looking values the
 * keyword a keyword-bound rule needs; ids, digests and versions stay as they
 * are, whatever the object is about.
 *
 * @module
 */

import { keyWords } from "./key_names.ts";
import { isPlaceholder, looksRandom } from "./value_shape.ts";

/** Keys whose value says what an object is about. */
const DESCRIPTORS: ReadonlySet<string> = new Set([
  "service",
  "provider",
  "integration",
  "name",
  "type",
  "kind",
  "vendor",
  "platform",
  "source",
  "system",
  "app",
  "application",
  "label",
  "title",
  "description",
  "credential",
  "account",
  "api",
  "connector",
  "plugin",
]);

/** Last words of keys whose values are ids, digests or versions, never credentials. */
const IDENTITIES: ReadonlySet<string> = new Set([
  "id",
  "ids",
  "uuid",
  "guid",
  "sha",
  "sha1",
  "sha256",
  "sha512",
  "hash",
  "digest",
  "checksum",
  "shasum",
  "integrity",
  "etag",
  "commit",
  "revision",
  "rev",
  "ref",
  "version",
  "fingerprint",
  "url",
  "uri",
  "href",
  "path",
  "name",
]);

/**
 * The last word of a key (`commit_id` → `id`), remembered: the same few keys
 * come in every call, and splitting one into words costs three regular
 * expressions. Bounded, as keys come from the data.
 */
function lastWord(key: string): string {
  let word = lastWords.get(key);
  if (word === undefined) {
    word = keyWords(key).at(-1) ?? "";
    if (lastWords.size >= 2048) lastWords.clear();
    lastWords.set(key, word);
  }
  return word;
}

const lastWords = new Map<string, string>();

/** Whether a descriptive field of `object` names a provider or a credential. */
export function siblingsName(
  words: RegExp,
  object: Record<string, unknown>,
  keys: readonly string[],
): boolean {
  // Records with one field have no siblings; most records have no descriptor.
  if (keys.length < 2) return false;
  for (const key of keys) {
    const value = object[key];
    if (typeof value !== "string" || value.length > 200) continue;
    if (!DESCRIPTORS.has(key.toLowerCase()) && !DESCRIPTORS.has(lastWord(key))) {
      continue;
    }
    if (words.test(value)) return true;
  }
  return false;
}

/** Whether a key names an id, a digest, a version or an address (`shasum`, `commit_id`, `url`). */
export function namesIdentity(key: string): boolean {
  return IDENTITIES.has(lastWord(key));
}

/** Whether a string under a key that names nothing is a credential in an object that does. */
export function hintedSecret(key: string, value: string): boolean {
  if (value.length < 16 || !looksRandom(value) || isPlaceholder(value)) return false;
  const last = lastWord(key);
  return !IDENTITIES.has(last) && !DESCRIPTORS.has(last);
}
