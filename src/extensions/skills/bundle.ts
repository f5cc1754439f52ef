/**
 * A skill as the server holds it: its path, its frontmatter, and every file
 * with its bytes, SHA-256 digest, size and MIME type, taken once when the
 * skill is registered. What is served is this snapshot, so a file's bytes
 * and the digest published for them cannot drift apart, and no request
 * ever reaches the disk.
 *
 * @module
 */

import { readFrontmatter } from "./frontmatter.ts";
import { fileMedia } from "./media.ts";
import { pathProblem, SKILL_FILE, SKILL_SCHEME } from "./names.ts";
import type { SkillBundle, SkillFile } from "./types.ts";

/** SEP-2640's limits a server should not exceed: files per skill and bytes per skill. */
export const SKILL_LIMITS = { files: 512, bytes: 16 * 1024 * 1024 } as const;

async function digestOf(bytes: Uint8Array): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as BufferSource));
  let hex = "";
  for (const byte of hash) hex += byte.toString(16).padStart(2, "0");
  return `sha256:${hex}`;
}

/** Checks the skill path's shape; the name rule on its last segment is checked against the frontmatter. */
function checkSkillPath(path: string, label: string): void {
  const problem = pathProblem(path);
  if (problem !== undefined) throw new TypeError(`${label}: the skill path has ${problem}`);
  // The first segment is the URI's authority: a reg-name has no '@'.
  if ((path.split("/")[0] ?? "").includes("@")) {
    throw new TypeError(`${label}: the first segment of the skill path cannot contain '@'`);
  }
}

/**
 * Builds a skill from its files (path from the root to bytes).
 *
 * @param files Every file of the skill; `SKILL.md` must be among them.
 * @param path The skill path; its last segment must equal the frontmatter
 *   `name`. Defaults to the name.
 * @param label The start of every error message.
 * @throws {TypeError} A missing SKILL.md, bad frontmatter, a bad path.
 * @throws {RangeError} More files or bytes than SEP-2640's limits.
 */
export async function bundleSkill(
  files: ReadonlyMap<string, Uint8Array>,
  path: string | undefined,
  label: string,
): Promise<SkillBundle> {
  const manifest = files.get(SKILL_FILE);
  if (manifest === undefined) throw new TypeError(`${label}: a skill needs a ${SKILL_FILE}`);
  const manifestText = fileMedia(SKILL_FILE, manifest).text;
  if (manifestText === undefined) throw new TypeError(`${label}: ${SKILL_FILE} is not UTF-8`);
  const frontmatter = await readFrontmatter(manifestText, label);
  const name = frontmatter.name as string;
  const skillPath = path ?? name;
  checkSkillPath(skillPath, label);
  if (skillPath.split("/").at(-1) !== name) {
    throw new TypeError(
      `${label}: the last segment of the skill path '${skillPath}' must equal the name '${name}'`,
    );
  }
  if (files.size > SKILL_LIMITS.files) {
    throw new RangeError(`${label}: ${files.size} files, the limit is ${SKILL_LIMITS.files}`);
  }
  let total = 0;
  for (const bytes of files.values()) total += bytes.byteLength;
  if (total > SKILL_LIMITS.bytes) {
    throw new RangeError(`${label}: ${total} bytes, the limit is ${SKILL_LIMITS.bytes}`);
  }
  const root = `${SKILL_SCHEME}${skillPath}`;
  const paths = [...files.keys()].sort((a, b) =>
    a === SKILL_FILE ? -1 : b === SKILL_FILE ? 1 : a < b ? -1 : a > b ? 1 : 0
  );
  const built: SkillFile[] = [];
  for (const filePath of paths) {
    const problem = pathProblem(filePath);
    if (problem !== undefined) throw new TypeError(`${label}: file path has ${problem}`);
    const bytes = files.get(filePath) as Uint8Array;
    const media = fileMedia(filePath, bytes);
    const uri = `${root}/${filePath}`;
    built.push({ path: filePath, uri, bytes, ...media, digest: await digestOf(bytes) });
  }
  const uri = `${root}/${SKILL_FILE}`;
  // Its entry is the catalog's to build: it lists the files of the skills nested in it too.
  return { path: skillPath, uri, root, frontmatter: deepFreeze(frontmatter), files: built };
}

/** Freezes a JSON value all the way down, so no handler can change the frontmatter an entry quotes. */
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
