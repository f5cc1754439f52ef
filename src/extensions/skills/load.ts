/**
 * `loadSkill()`: a skill from a directory on disk or from files in memory,
 * read and checked once, for `server.skill()` to publish. Only the
 * `./skills` entry reaches this module: it parses frontmatter with an npm
 * package, which a server importing only the root entry never loads.
 *
 * @module
 */

import { bundleSkill } from "./bundle.ts";
import { readSkillDirectory } from "./disk.ts";
import { SkillCatalog } from "./catalog.ts";
import { loadedSkill } from "./loaded.ts";

const encoder = new TextEncoder();

function filesOf(
  files: Readonly<Record<string, string | Uint8Array>>,
  label: string,
): Map<string, Uint8Array> {
  if (typeof files !== "object" || files === null) {
    throw new TypeError(`${label}: files must be an object of paths to contents`);
  }
  const map = new Map<string, Uint8Array>();
  for (const [path, content] of Object.entries(files)) {
    if (typeof content === "string") map.set(path, encoder.encode(content));
    else if (content instanceof Uint8Array) map.set(path, content.slice());
    else throw new TypeError(`${label}: the content of '${path}' must be a string or bytes`);
  }
  return map;
}

/**
 * Reads and checks a skill: its files, its SKILL.md frontmatter, its path;
 * hashes every file.
 *
 * @throws {TypeError} A bad source, SKILL.md, frontmatter, path or file
 *   name; a symbolic link out of the directory.
 * @throws {RangeError} More than 512 files or 16 MiB.
 *
 * @example Loading a skill from memory and publishing it
 * ```ts
 * import { createServer } from "@warden/mcp";
 * import { loadSkill } from "@warden/mcp/skills";
 *
 * const skill = await loadSkill({
 *   files: { "SKILL.md": "---\nname: demo\ndescription: A demo skill.\n---\n# Demo\n" },
 * });
 * const server = createServer({ name: "demo", version: "1.0.0" });
 * server.skill(skill); // skill://demo/SKILL.md
 * ```
 */
export async function loadSkill(
  source:
    & { readonly path?: string }
    & (
      | { readonly directory: string | URL }
      | { readonly files: Readonly<Record<string, string | Uint8Array>> }
    ),
): Promise<{
  /** The skill path, e.g. `order-desk` or `acme/billing/refunds`. */
  readonly path: string;
  /** The URI of its SKILL.md, `skill://<path>/SKILL.md`. */
  readonly uri: string;
  /** Its frontmatter, as parsed (frozen). */
  readonly frontmatter: Readonly<Record<string, unknown>>;
  /** Its files, SKILL.md first: path from the root, resource URI, SHA-256 digest, size. */
  readonly files: readonly {
    readonly path: string;
    readonly uri: string;
    readonly digest: string;
    readonly size: number;
  }[];
}> {
  if (typeof source !== "object" || source === null) {
    throw new TypeError("Cannot load skill: expected { directory } or { files }");
  }
  const where = "directory" in source ? String(source.directory) : source.path ?? "in memory";
  const label = `Cannot load skill from ${where}`;
  if (source.path !== undefined && typeof source.path !== "string") {
    throw new TypeError(`${label}: path must be a string`);
  }
  const files = "directory" in source
    ? await readSkillDirectory(source.directory, label)
    : filesOf(source.files, label);
  return loadedSkill(
    await bundleSkill(files, source.path, label),
    (core, pageSize) => new SkillCatalog(core, pageSize),
  );
}
