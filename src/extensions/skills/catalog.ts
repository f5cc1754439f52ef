/**
 * The skills one server publishes (SEP-2640): each skill's files registered
 * as ordinary resources, so that `resources/read` in either era, the
 * access policy, the audit and the redactor treat them as any resource;
 * the entries `skills/list` and `skills/get` answer with; and the directory
 * tree `resources/directory/read` walks. The extension is declared while at
 * least one skill is registered, and only then.
 *
 * @module
 */

import type { RequestCore } from "../../core/request_core.ts";
import { paginate } from "../../core/pagination.ts";
import type { ResourceDefinition } from "../../core/resources.ts";
import type { JsonRpcParams } from "../../jsonrpc/messages.ts";
import type { SkillBundle, SkillFile } from "./types.ts";
import { DIRECTORY_MIME_TYPE, SKILL_FILE } from "./names.ts";

/** The extension's identifier. */
export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";

/** One directory of a skill: its children's resources/list entries, by URI. */
type Directory = Map<string, Readonly<Record<string, unknown>>>;

function byUri(a: { uri: string }, b: { uri: string }): number {
  return a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0;
}

/** The resource that serves one file of a skill. */
function fileResource(bundle: SkillBundle, file: SkillFile): ResourceDefinition {
  const isManifest = file.path === SKILL_FILE;
  const definition: ResourceDefinition = {
    uri: file.uri,
    // SEP-2640: the SKILL.md resource is named and described by its frontmatter.
    name: isManifest ? String(bundle.frontmatter.name) : file.path,
    mimeType: file.mimeType,
    size: file.bytes.byteLength,
    read: () => file.text ?? file.bytes,
  };
  if (isManifest) definition.description = String(bundle.frontmatter.description);
  return definition;
}

/** The skills of one server. */
export class SkillCatalog {
  readonly #core: RequestCore;
  readonly #pageSize: number | undefined;
  readonly #skills = new Map<string, SkillBundle>();
  readonly #directories = new Map<string, Directory>();
  /** The skills each directory belongs to (more than one where skill paths nest). */
  readonly #owners = new Map<string, SkillBundle[]>();
  #sorted: readonly SkillBundle[] = [];

  constructor(core: RequestCore, pageSize: number | undefined) {
    this.#core = core;
    this.#pageSize = pageSize;
  }

  /** How many skills are registered. */
  get size(): number {
    return this.#skills.size;
  }

  /**
   * Publishes a skill: its files become resources, its entry is listed.
   *
   * @throws {TypeError} When its SKILL.md URI or one of its files' URIs is
   *   already registered (nothing of it is kept then).
   */
  add(bundle: SkillBundle): void {
    if (this.#skills.has(bundle.uri)) {
      throw new TypeError(`Cannot register skill '${bundle.uri}': already registered`);
    }
    const resources = this.#core.registry.resources;
    const added: string[] = [];
    try {
      for (const file of bundle.files) {
        resources.add(fileResource(bundle, file));
        added.push(file.uri);
      }
    } catch (error) {
      for (const uri of added) resources.remove(uri);
      throw error;
    }
    this.#skills.set(bundle.uri, bundle);
    this.#changed();
  }

  /** Withdraws a skill and its files; false when it was not registered. */
  remove(uri: string): boolean {
    const bundle = this.#skills.get(uri);
    if (bundle === undefined) return false;
    for (const file of bundle.files) this.#core.registry.resources.remove(file.uri);
    this.#skills.delete(uri);
    this.#changed();
    return true;
  }

  /** The skill whose SKILL.md is at `uri`. */
  get(uri: string): SkillBundle | undefined {
    return this.#skills.get(uri);
  }

  /**
   * One page of skills/list as `principal`, granted `scopes` by its token,
   * may see it: the skills whose SKILL.md it may read.
   */
  list(
    params: JsonRpcParams,
    principal: string | undefined,
    scopes: readonly string[] | undefined,
  ): Record<string, unknown> {
    const shown = this.#sorted.filter((skill) =>
      this.#core.shown("resource", skill.uri, principal, scopes)
    );
    const { page, nextCursor } = paginate("skills", shown, params.cursor, this.#pageSize);
    const skills = page.map((skill) => skill.entry);
    return nextCursor === undefined ? { skills } : { skills, nextCursor };
  }

  /**
   * The direct children of the directory at `uri`, as `principal` granted
   * `scopes` may see them, one page at a time; undefined when `uri` is no
   * directory, or a directory of a skill the caller may not see (which
   * skills/list hides, so a directory read must not reveal it either).
   */
  directory(
    uri: string,
    params: JsonRpcParams,
    principal: string | undefined,
    scopes: readonly string[] | undefined,
  ): Record<string, unknown> | undefined {
    const children = this.#directories.get(uri);
    if (children === undefined) return undefined;
    for (const skill of this.#owners.get(uri) ?? []) {
      if (!this.#core.shown("resource", skill.uri, principal, scopes)) return undefined;
    }
    const shown = [...children.values()].filter((child) =>
      this.#core.shown("resource", String(child.uri), principal, scopes)
    );
    const { page, nextCursor } = paginate("directory", shown, params.cursor, this.#pageSize);
    return nextCursor === undefined ? { resources: page } : { resources: page, nextCursor };
  }

  /** Rebuilds the sorted list, the directory tree and the extension's declaration. */
  #changed(): void {
    this.#sorted = [...this.#skills.values()].sort(byUri);
    this.#directories.clear();
    this.#owners.clear();
    for (const skill of this.#sorted) this.#index(skill);
    // Children in URI order, so that pages of a directory read are stable.
    for (const children of this.#directories.values()) {
      const sorted = [...children.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      children.clear();
      for (const [uri, child] of sorted) children.set(uri, child);
    }
    if (this.#skills.size > 0) {
      this.#core.extensions.set(SKILLS_EXTENSION, { directoryRead: true });
    } else {
      this.#core.extensions.delete(SKILLS_EXTENSION);
    }
  }

  /** Adds a skill's directories: its root and every folder on the way to each file. */
  #index(skill: SkillBundle): void {
    const directoryAt = (uri: string): Directory => {
      let found = this.#directories.get(uri);
      if (found === undefined) this.#directories.set(uri, found = new Map());
      const owners = this.#owners.get(uri);
      if (owners === undefined) this.#owners.set(uri, [skill]);
      else if (!owners.includes(skill)) owners.push(skill);
      return found;
    };
    directoryAt(skill.root);
    for (const file of skill.files) {
      const segments = file.path.split("/");
      let parent = skill.root;
      for (const segment of segments.slice(0, -1)) {
        const uri = `${parent}/${segment}`;
        directoryAt(parent).set(uri, { uri, name: segment, mimeType: DIRECTORY_MIME_TYPE });
        directoryAt(uri);
        parent = uri;
      }
      const listing = this.#core.registry.resources.get(file.uri)?.listing;
      if (listing !== undefined) directoryAt(parent).set(file.uri, listing);
    }
  }
}
