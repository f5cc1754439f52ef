/**
 * The skills one server publishes (SEP-2640): each skill's files registered
 * as ordinary resources, so that `resources/read` in either era, the
 * access policy, the audit and the redactor treat them as any resource;
 * the entries `skills/list` and `skills/get` answer with; and the directory
 * tree `resources/directory/read` walks. The extension is declared while at
 * least one skill is registered, and only then.
 *
 * Skills nest (SEP-2640): a skill registered under another's root is, to the
 * enclosing skill, supporting content. So the enclosing skill's entry lists
 * the nested skill's files too and its directories list the nested skill's
 * folder, whichever order the two are registered or removed in; every entry
 * is rebuilt when the set of skills changes. A file both skills hold (the
 * enclosing one loaded from a directory that contains the nested one) is one
 * resource, served once, and must have the same bytes in both.
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

/** One served file: the skills holding it (its own skill last, the deepest). */
interface Held {
  readonly file: SkillFile;
  readonly holders: SkillBundle[];
}

function byRootDepth(a: SkillBundle, b: SkillBundle): number {
  return a.root.length - b.root.length;
}

/** Whether `inner` is nested in `outer` (or is it). */
function within(inner: SkillBundle, outer: SkillBundle): boolean {
  return inner.root === outer.root || inner.root.startsWith(`${outer.root}/`);
}

/**
 * A skill's entry: its own files and those of every skill nested in it,
 * each once, its SKILL.md first, then by URI. Frozen: no handler can change it.
 */
function entryOf(
  skill: SkillBundle,
  nested: readonly SkillBundle[],
): Readonly<Record<string, unknown>> {
  const files = new Map<string, SkillFile>();
  for (const file of skill.files) files.set(file.uri, file);
  for (const inner of nested) for (const file of inner.files) files.set(file.uri, file);
  const sorted = [...files.values()].sort((a, b) =>
    a.uri === skill.uri ? -1 : b.uri === skill.uri ? 1 : a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0
  );
  const resources = sorted.map((file) =>
    Object.freeze({ uri: file.uri, digest: file.digest, size: file.bytes.byteLength })
  );
  return Object.freeze({
    uri: skill.uri,
    frontmatter: skill.frontmatter,
    resources: Object.freeze(resources),
  });
}

/** The skills of one server. */
export class SkillCatalog {
  readonly #core: RequestCore;
  readonly #pageSize: number | undefined;
  readonly #skills = new Map<string, SkillBundle>();
  /** Every served file, by URI, with the skills holding it. */
  readonly #files = new Map<string, Held>();
  /** Each skill's entry, nested skills' files included, by SKILL.md URI. */
  readonly #entries = new Map<string, Readonly<Record<string, unknown>>>();
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
   * Publishes a skill: its files become resources, its entry is listed, and
   * the entries and directories of the skills it nests in or holds are rebuilt.
   * A file another skill already serves (a nested skill inside an enclosing
   * one loaded from disk) is shared when its bytes are the same.
   *
   * @throws {TypeError} When its SKILL.md URI is already registered, or one
   *   of its files' URIs is served otherwise (another resource, or another
   *   skill's file with different bytes); nothing of it is kept then.
   */
  add(bundle: SkillBundle): void {
    if (this.#skills.has(bundle.uri)) {
      throw new TypeError(`Cannot register skill '${bundle.uri}': already registered`);
    }
    for (const file of bundle.files) {
      const held = this.#files.get(file.uri);
      if (held !== undefined && held.file.digest !== file.digest) {
        throw new TypeError(
          `Cannot register skill '${bundle.uri}': '${file.uri}' is already served by skill ` +
            `'${held.holders[0]?.uri}' with different content`,
        );
      }
    }
    const resources = this.#core.registry.resources;
    const added: string[] = [];
    try {
      for (const file of bundle.files) {
        if (this.#files.has(file.uri)) continue;
        resources.add(fileResource(bundle, file));
        added.push(file.uri);
      }
    } catch (error) {
      for (const uri of added) resources.remove(uri);
      throw error;
    }
    for (const file of bundle.files) {
      const held = this.#files.get(file.uri);
      if (held === undefined) this.#files.set(file.uri, { file, holders: [bundle] });
      else this.#hold(held, bundle, file);
    }
    this.#skills.set(bundle.uri, bundle);
    this.#changed();
  }

  /** Withdraws a skill and the files no other skill holds; false when it was not registered. */
  remove(uri: string): boolean {
    const bundle = this.#skills.get(uri);
    if (bundle === undefined) return false;
    const resources = this.#core.registry.resources;
    for (const file of bundle.files) {
      const held = this.#files.get(file.uri);
      if (held === undefined) continue;
      const own = held.holders.at(-1);
      held.holders.splice(held.holders.indexOf(bundle), 1);
      const next = held.holders.at(-1);
      if (next === undefined) {
        resources.remove(file.uri);
        this.#files.delete(file.uri);
      } else if (own === bundle) {
        // The file's own skill is gone: the resource is named as the next skill holding it.
        resources.remove(file.uri);
        const its = next.files.find((candidate) => candidate.uri === file.uri) as SkillFile;
        resources.add(fileResource(next, its));
      }
    }
    this.#skills.delete(uri);
    this.#changed();
    return true;
  }

  /** Adds `bundle` to a shared file's holders; the deepest one names the resource. */
  #hold(held: Held, bundle: SkillBundle, file: SkillFile): void {
    const own = held.holders.at(-1) as SkillBundle;
    held.holders.push(bundle);
    held.holders.sort(byRootDepth);
    if (held.holders.at(-1) === bundle && own !== bundle) {
      // A nested skill's SKILL.md is named and described by its own frontmatter (SEP-2640).
      const resources = this.#core.registry.resources;
      resources.remove(file.uri);
      resources.add(fileResource(bundle, file));
    }
  }

  /** The skill whose SKILL.md is at `uri`. */
  get(uri: string): SkillBundle | undefined {
    return this.#skills.get(uri);
  }

  /**
   * The entry of the skill whose SKILL.md is at `uri`, nested skills' files
   * included, as `principal` granted `scopes` may see it.
   */
  entry(
    uri: string,
    principal: string | undefined,
    scopes: readonly string[] | undefined,
  ): Readonly<Record<string, unknown>> | undefined {
    const entry = this.#entries.get(uri);
    return entry === undefined ? undefined : this.#seen(entry, principal, scopes);
  }

  /**
   * `entry` without the files the caller may not see (a nested skill the
   * policy hides, one denied file): a listing names no URI or digest it
   * hides elsewhere. The published entry itself when nothing is hidden.
   */
  #seen(
    entry: Readonly<Record<string, unknown>>,
    principal: string | undefined,
    scopes: readonly string[] | undefined,
  ): Readonly<Record<string, unknown>> {
    const resources = entry.resources as readonly { readonly uri: string }[];
    let kept: { readonly uri: string }[] | undefined;
    for (let at = 0; at < resources.length; at++) {
      const file = resources[at] as { readonly uri: string };
      const shown = this.#core.shown("resource", file.uri, principal, scopes);
      // Copied only from the first hidden file on: the common case allocates nothing.
      if (!shown && kept === undefined) kept = resources.slice(0, at);
      else if (shown && kept !== undefined) kept.push(file);
    }
    if (kept === undefined) return entry;
    return { ...entry, resources: kept };
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
    const skills = page.map((skill) =>
      this.#seen(this.#entries.get(skill.uri) ?? {}, principal, scopes)
    );
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
    if (children === undefined || !this.#ownersShown(uri, principal, scopes)) return undefined;
    // A folder is listed only where it could be read: a nested skill the caller may not see is left out.
    const shown = [...children.values()].filter((child) =>
      this.#core.shown("resource", String(child.uri), principal, scopes) &&
      (child.mimeType !== DIRECTORY_MIME_TYPE ||
        this.#ownersShown(String(child.uri), principal, scopes))
    );
    const { page, nextCursor } = paginate("directory", shown, params.cursor, this.#pageSize);
    return nextCursor === undefined ? { resources: page } : { resources: page, nextCursor };
  }

  /** Whether the caller may see every skill the directory at `uri` belongs to. */
  #ownersShown(
    uri: string,
    principal: string | undefined,
    scopes: readonly string[] | undefined,
  ): boolean {
    for (const skill of this.#owners.get(uri) ?? []) {
      if (!this.#core.shown("resource", skill.uri, principal, scopes)) return false;
    }
    return true;
  }

  /** Rebuilds the sorted list, the entries, the directory tree and the extension's declaration. */
  #changed(): void {
    this.#sorted = [...this.#skills.values()].sort(byUri);
    this.#entries.clear();
    this.#directories.clear();
    this.#owners.clear();
    for (const skill of this.#sorted) {
      const nested = this.#sorted.filter((inner) => inner !== skill && within(inner, skill));
      this.#entries.set(skill.uri, entryOf(skill, nested));
      this.#index(skill, skill.files);
      // The enclosing skill's tree holds its nested skills' folders and files (SEP-2640).
      for (const inner of nested) this.#index(skill, inner.files);
    }
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

  /** Adds `files` to `skill`'s directories: its root and every folder on the way to each file. */
  #index(skill: SkillBundle, files: readonly SkillFile[]): void {
    const directoryAt = (uri: string): Directory => {
      let found = this.#directories.get(uri);
      if (found === undefined) this.#directories.set(uri, found = new Map());
      const owners = this.#owners.get(uri);
      if (owners === undefined) this.#owners.set(uri, [skill]);
      else if (!owners.includes(skill)) owners.push(skill);
      return found;
    };
    directoryAt(skill.root);
    for (const file of files) {
      const segments = file.uri.slice(skill.root.length + 1).split("/");
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
