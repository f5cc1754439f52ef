/**
 * The npm packages the library itself uses, named by full `npm:` specifier
 * with a version range in this one place, so that Warden's modules resolve
 * when imported by path, URL or JSR with no import map from the consumer.
 * Each is loaded only when a feature needs it, never at start-up.
 *
 * @module
 */

// Types only: erased at run time, so naming them loads nothing. The full
// specifiers are this module's purpose (consumers need no import map).
// deno-lint-ignore no-import-prefix
import type * as JsoncParser from "npm:jsonc-parser@^3.3.1";
// deno-lint-ignore no-import-prefix
import type * as SmolToml from "npm:smol-toml@^1.4.2";

/** The JSONC parser's module type. */
export type JsoncParserModule = typeof JsoncParser;

/** Loads `jsonc-parser` (the policy file's parser). */
export function loadJsoncParser(): Promise<JsoncParserModule> {
  // deno-lint-ignore no-import-prefix
  return import("npm:jsonc-parser@^3.3.1");
}

/** The TOML parser's module type. */
export type TomlModule = typeof SmolToml;

/**
 * Loads `smol-toml` (the parser of gitleaks rule files).
 *
 * @example
 * ```ts ignore
 * const { parse } = await loadToml();
 * ```
 */
export function loadToml(): Promise<TomlModule> {
  // deno-lint-ignore no-import-prefix
  return import("npm:smol-toml@^1.4.2");
}
