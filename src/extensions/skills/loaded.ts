/**
 * The seam between loading a skill and publishing it. `loadSkill()` (the
 * `./skills` entry, which parses YAML with an npm package) reads and checks
 * a skill and hands back a `LoadedSkill`; `server.skill()` (the root entry,
 * which must reach no npm package) publishes it. The bundle itself, bytes
 * and digests, stays here, out of the caller's reach, so what a server
 * publishes is always what `loadSkill()` read and hashed: a hand-made or
 * edited value is refused.
 *
 * @module
 */

import type { SkillBundle } from "./types.ts";

/**
 * A skill read and checked by `loadSkill()`, ready for `server.skill()`.
 * The public signatures spell this shape inline (`loadSkill()`'s return
 * type, `server.skill()`'s parameter) so that it costs no exported symbol.
 */
export interface LoadedSkill {
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
}

/** Every loaded skill's bundle; weak, so a skill no server keeps is collected. */
const bundles = new WeakMap<object, SkillBundle>();

/** The public, frozen face of `bundle`; the bundle is kept for `bundleOf()`. */
export function loadedSkill(bundle: SkillBundle): LoadedSkill {
  const loaded: LoadedSkill = Object.freeze({
    path: bundle.path,
    uri: bundle.uri,
    frontmatter: bundle.frontmatter,
    files: Object.freeze(bundle.files.map((file) =>
      Object.freeze({
        path: file.path,
        uri: file.uri,
        digest: file.digest,
        size: file.bytes.byteLength,
      })
    )),
  });
  bundles.set(loaded, bundle);
  return loaded;
}

/**
 * The bundle behind `loaded`.
 *
 * @throws {TypeError} When `loaded` is not a value `loadSkill()` returned.
 */
export function bundleOf(loaded: object): SkillBundle {
  const bundle = typeof loaded === "object" && loaded !== null ? bundles.get(loaded) : undefined;
  if (bundle === undefined) {
    throw new TypeError(
      "Cannot publish skill: expected what loadSkill() from '@warden/mcp/skills' returned " +
        "(load it with the same version of Warden as the server)",
    );
  }
  return bundle;
}
