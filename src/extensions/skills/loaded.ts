/**
 * The seam between loading a skill and publishing it. `loadSkill()` (the
 * `./skills` entry, which parses YAML with an npm package) reads and checks
 * a skill and hands back a `LoadedSkill`; `server.skill()` (the root entry,
 * which must reach no npm package) publishes it. The bundle itself, bytes
 * and digests, stays here, out of the caller's reach, so what a server
 * publishes is always what `loadSkill()` read and hashed: a hand-made or
 * edited value is refused. The catalog a server publishes into comes the same
 * way: `loadSkill()`'s module hands over how to make one, so a server that
 * publishes no skill never loads the catalog's code.
 *
 * @module
 */

import type { RequestCore } from "../../core/request_core.ts";
import type { SkillCatalog } from "./catalog.ts";
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

/** Makes a server's skill catalog. */
export type CatalogMaker = (core: RequestCore, pageSize: number | undefined) => SkillCatalog;

/** Set with the first loaded skill: publishing needs one, so it is there when needed. */
let makeCatalog: CatalogMaker | undefined;

/**
 * The public, frozen face of `bundle`; the bundle is kept for `bundleOf()`,
 * and `make` for the catalog of the first server that publishes a skill.
 */
export function loadedSkill(bundle: SkillBundle, make: CatalogMaker): LoadedSkill {
  makeCatalog ??= make;
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

/** A server's published skills: the catalog is made when the first one is published. */
export class SkillShelf {
  readonly #core: RequestCore;
  readonly #pageSize: number | undefined;
  #catalog: SkillCatalog | undefined;

  constructor(core: RequestCore, pageSize: number | undefined) {
    this.#core = core;
    this.#pageSize = pageSize;
  }

  /** How many skills are published. */
  get size(): number {
    return this.#catalog?.size ?? 0;
  }

  /**
   * The catalog; the skills methods read it only while a skill is published
   * (they do not exist before), so it has been made.
   */
  get catalog(): SkillCatalog {
    if (this.#catalog === undefined) throw new Error("No skill has been published");
    return this.#catalog;
  }

  /**
   * Publishes what `loadSkill()` returned; the handle withdraws it.
   *
   * @throws {TypeError} For a value `loadSkill()` did not return, or a skill
   *   the catalog refuses (a URI already served).
   */
  publish(loaded: object): { uri: string; remove(): boolean } {
    const bundle = bundleOf(loaded);
    // A bundle exists only through loadedSkill(), which was given the maker.
    const catalog = this.#catalog ??= (makeCatalog as CatalogMaker)(this.#core, this.#pageSize);
    catalog.add(bundle);
    return { uri: bundle.uri, remove: () => catalog.remove(bundle.uri) };
  }
}
