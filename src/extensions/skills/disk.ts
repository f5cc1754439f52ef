/**
 * Reading a skill directory from disk, once, at registration: every regular
 * file under it, by its path from the root. A symbolic link is followed
 * only when it resolves inside the skill's directory; one that leads out
 * of it stops the registration, so that no file outside the directory is
 * ever published. Names starting with a dot (`.git`, `.env`) are left out,
 * and so is a link leading to one or into one.
 *
 * @module
 */

import { segmentProblem } from "./names.ts";

/** How deep a skill's directories may nest. */
const MAX_DEPTH = 16;

type Fs = typeof import("node:fs/promises");
type Path = typeof import("node:path");

interface Walk {
  readonly fs: Fs;
  readonly path: Path;
  readonly root: string;
  readonly label: string;
  readonly files: Map<string, Uint8Array>;
  readonly seen: Set<string>;
}

async function walk(state: Walk, real: string, relative: string, depth: number): Promise<void> {
  if (depth > MAX_DEPTH) {
    throw new RangeError(`${state.label}: directories nest deeper than ${MAX_DEPTH} levels`);
  }
  // A directory reached twice (a link back up the tree) is read once.
  if (state.seen.has(real)) return;
  state.seen.add(real);
  const { fs, path: paths } = state;
  const names = (await fs.readdir(real)).sort();
  for (const name of names) {
    if (name.startsWith(".")) continue;
    const path = relative === "" ? name : `${relative}/${name}`;
    const problem = segmentProblem(name);
    if (problem !== undefined) {
      throw new TypeError(`${state.label}: '${path}' cannot be a skill file name: ${problem}`);
    }
    const target = await fs.realpath(paths.join(real, name));
    const fromRoot = paths.relative(state.root, target);
    if (fromRoot.startsWith("..") || paths.isAbsolute(fromRoot)) {
      throw new TypeError(
        `${state.label}: '${path}' is a symbolic link out of the skill directory; it is never served`,
      );
    }
    // A link to a hidden file or into a hidden directory (`.env`, `.git/`) is left out like them.
    if (fromRoot.split(paths.sep).some((segment) => segment.startsWith("."))) continue;
    const info = await fs.stat(target);
    if (info.isDirectory()) await walk(state, target, path, depth + 1);
    else if (info.isFile()) state.files.set(path, new Uint8Array(await fs.readFile(target)));
  }
}

/**
 * Every file of the skill in `directory`, by its `/`-separated path from
 * the root.
 *
 * @throws {TypeError} A link out of the directory, a file name that cannot
 *   be a URI path segment. Errors of the file system pass through.
 */
export async function readSkillDirectory(
  directory: string | URL,
  label: string,
): Promise<Map<string, Uint8Array>> {
  const fs = await import("node:fs/promises");
  const path = await import("node:path");
  const { fileURLToPath } = await import("node:url");
  const root = await fs.realpath(directory instanceof URL ? fileURLToPath(directory) : directory);
  const files = new Map<string, Uint8Array>();
  await walk({ fs, path, root, label, files, seen: new Set() }, root, "", 0);
  return files;
}
