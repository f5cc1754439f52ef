/**
 * Loads the official JSON Schema Test Suite for the suite, differential and
 * format tests: the draft2020-12 required files and the `remotes/` documents, the
 * latter keyed by the `http://localhost:1234/` URIs the suite expects.
 *
 * @module
 */

import type { JsonSchema } from "../../src/schema/types.ts";
import { sharedPath } from "./shared.ts";

/** One case: a value and whether it is valid. */
export interface SuiteCase {
  readonly description: string;
  readonly data: unknown;
  readonly valid: boolean;
}

/** One group: a schema and its cases. */
export interface SuiteGroup {
  readonly description: string;
  readonly schema: JsonSchema;
  readonly tests: readonly SuiteCase[];
}

/** A suite file, named without `.json`. */
export interface SuiteFile {
  readonly name: string;
  readonly groups: readonly SuiteGroup[];
}

/**
 * Cases that cannot apply to Warden, by "file: group: case", with the
 * reason. Empty: every required case runs.
 */
export const NOT_APPLICABLE: Readonly<Record<string, string>> = {};

/**
 * The suite's root folder (holding `draft2020-12/` and `remotes/`) inside
 * the shared folder named by `WARDEN_SHARED`, or `undefined` when that is
 * unset: then the tests that read the suite are ignored, with one note.
 */
export function suiteRoot(): string | undefined {
  return sharedPath("json-schema-test-suite", "JSON Schema suite tests");
}

/** Every required draft2020-12 file, sorted by name. */
export async function loadSuite(root: string): Promise<SuiteFile[]> {
  const folder = `${root}/draft2020-12`;
  const names: string[] = [];
  for await (const entry of Deno.readDir(folder)) {
    if (entry.isFile && entry.name.endsWith(".json")) names.push(entry.name.slice(0, -5));
  }
  names.sort();
  return await Promise.all(names.map(async (name) => ({
    name,
    groups: JSON.parse(await Deno.readTextFile(`${folder}/${name}.json`)),
  })));
}

/** Every document under `remotes/`, by the URI the suite gives it. */
export async function loadRemotes(root: string): Promise<Record<string, JsonSchema>> {
  const remotes: Record<string, JsonSchema> = {};
  const walk = async (folder: string, prefix: string): Promise<void> => {
    for await (const entry of Deno.readDir(folder)) {
      if (entry.isDirectory) await walk(`${folder}/${entry.name}`, `${prefix}${entry.name}/`);
      else if (entry.name.endsWith(".json")) {
        remotes[`http://localhost:1234/${prefix}${entry.name}`] = JSON.parse(
          await Deno.readTextFile(`${folder}/${entry.name}`),
        );
      }
    }
  };
  await walk(`${root}/remotes`, "");
  return remotes;
}
