/**
 * `jsonc-parser`, the policy file's parser.
 *
 * @module
 */

// The files of this folder are the one place the library names npm packages (see load.ts).
// deno-lint-ignore-file no-import-prefix

import type * as JsoncParser from "npm:jsonc-parser@^3.3.1";
import { load } from "./load.ts";

/** The JSONC parser's module type. */
export type JsoncParserModule = typeof JsoncParser;

/** A node of the JSONC parser's syntax tree. */
export type JsoncNode = JsoncParser.Node;

/** One syntax error the JSONC parser reports. */
export type JsoncParseError = JsoncParser.ParseError;

/** Loads `jsonc-parser` (the policy file's parser). */
export function loadJsoncParser(): Promise<JsoncParserModule> {
  return load(() => import("npm:jsonc-parser@^3.3.1"), "jsonc-parser");
}
