/**
 * The npm packages the library itself uses, named by full `npm:` specifier
 * with a version range in this one place, so that Warden's modules resolve
 * when imported by path, URL or JSR with no import map from the consumer.
 * Each is loaded only when a feature needs it, never at start-up.
 *
 * @module
 */

// The one place the library names npm packages inline (see the module doc).
// deno-lint-ignore-file no-import-prefix

// Types only: erased at run time, so naming them loads nothing.
import type * as JsoncParser from "npm:jsonc-parser@^3.3.1";

/** The JSONC parser's module type. */
export type JsoncParserModule = typeof JsoncParser;

/** A node of the JSONC parser's syntax tree. */
export type JsoncNode = JsoncParser.Node;

/** One syntax error the JSONC parser reports. */
export type JsoncParseError = JsoncParser.ParseError;

/** Loads `jsonc-parser` (the policy file's parser). */
export function loadJsoncParser(): Promise<JsoncParserModule> {
  return import("npm:jsonc-parser@^3.3.1");
}
