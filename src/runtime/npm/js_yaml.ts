/**
 * `js-yaml`, the parser of skill frontmatter (SEP-2640 publishes it
 * verbatim, so it must be read as YAML 1.2 reads it, not by a hand-made
 * subset). Chosen over `yaml`, which reads environment variables on every
 * parse and so needs `--allow-env` on Deno.
 *
 * @module
 */

// The files of this folder are the one place the library names npm packages (see load.ts).
// deno-lint-ignore-file no-import-prefix

import type * as JsYaml from "npm:js-yaml@^4.1.0";
import { load } from "./load.ts";

/** The YAML parser's module type. */
export type JsYamlModule = typeof JsYaml;

/** Loads `js-yaml` (the parser of skill frontmatter). */
export function loadJsYaml(): Promise<JsYamlModule> {
  return load(() => import("npm:js-yaml@^4.1.0"), "js-yaml");
}
