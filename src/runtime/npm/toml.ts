/**
 * `smol-toml`, the parser of gitleaks rule files.
 *
 * @module
 */

// The files of this folder are the one place the library names npm packages (see load.ts).
// deno-lint-ignore-file no-import-prefix

import type * as SmolToml from "npm:smol-toml@^1.4.2";
import { load } from "./load.ts";

/** The TOML parser's module type. */
export type TomlModule = typeof SmolToml;

/** Loads `smol-toml` (the parser of gitleaks rule files). */
export function loadToml(): Promise<TomlModule> {
  return load(() => import("npm:smol-toml@^1.4.2"), "smol-toml");
}
