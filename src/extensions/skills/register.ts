/**
 * `server.skill()`: a skill from a directory on disk or from files in
 * memory, read and checked once, then published in the server's catalog.
 * The server loads this module on the first `server.skill()` call, not
 * before: it parses frontmatter with an npm package, which a server that
 * publishes no skill never downloads.
 *
 * @module
 */

import { bundleSkill } from "./bundle.ts";
import type { SkillCatalog, SkillHandle, SkillSource } from "./catalog.ts";
import { readSkillDirectory } from "./disk.ts";

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
 * Reads, checks and publishes a skill.
 *
 * @throws {TypeError} A bad source, SKILL.md, frontmatter, path or file
 *   name; a symbolic link out of the directory; a URI already registered.
 * @throws {RangeError} More than 512 files or 16 MiB.
 */
export async function registerSkill(
  catalog: SkillCatalog,
  source: SkillSource,
): Promise<SkillHandle> {
  if (typeof source !== "object" || source === null) {
    throw new TypeError("Cannot register skill: expected { directory } or { files }");
  }
  const where = "directory" in source ? String(source.directory) : source.path ?? "in memory";
  const label = `Cannot register skill from ${where}`;
  if (source.path !== undefined && typeof source.path !== "string") {
    throw new TypeError(`${label}: path must be a string`);
  }
  const files = "directory" in source
    ? await readSkillDirectory(source.directory, label)
    : filesOf(source.files, label);
  const bundle = await bundleSkill(files, source.path, label);
  catalog.add(bundle);
  return { uri: bundle.uri, remove: () => catalog.remove(bundle.uri) };
}
