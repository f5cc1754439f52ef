/**
 * `yaml`, the parser of skill frontmatter (SEP-2640 publishes it verbatim,
 * so it must be read as YAML 1.2 reads it, not by a hand-made subset).
 *
 * @module
 */

// The files of this folder are the one place the library names npm packages (see load.ts).
// deno-lint-ignore-file no-import-prefix

import type * as Yaml from "npm:yaml@^2.8.2";
import { load } from "./load.ts";

/** The YAML parser's module type. */
export type YamlModule = typeof Yaml;

/** Loads `yaml` (the parser of skill frontmatter). */
export function loadYaml(): Promise<YamlModule> {
  return load(() => import("npm:yaml@^2.8.2"), "yaml");
}
