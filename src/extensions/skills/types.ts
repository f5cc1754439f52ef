/**
 * The shapes of a registered skill, types only: the catalog and the methods
 * use them without loading what builds them (and its YAML parser).
 *
 * @module
 */

/** One file of a skill. */
export interface SkillFile {
  /** Its path from the skill's root, `/`-separated. */
  readonly path: string;
  /** Its resource URI, `skill://<skill-path>/<path>`. */
  readonly uri: string;
  /** Its raw bytes. */
  readonly bytes: Uint8Array;
  /** Its text, when it is served as text; otherwise it is served as a base64 blob. */
  readonly text: string | undefined;
  /** Its MIME type. */
  readonly mimeType: string;
  /** `sha256:` and the 64 lowercase hex digits of its bytes' SHA-256. */
  readonly digest: string;
}

/** A registered skill. */
export interface SkillBundle {
  /** Its skill path, e.g. `order-desk` or `acme/billing/refunds`. */
  readonly path: string;
  /** The URI of its SKILL.md. */
  readonly uri: string;
  /** The URI of its root directory (no trailing slash). */
  readonly root: string;
  /** Its frontmatter, verbatim. */
  readonly frontmatter: Readonly<Record<string, unknown>>;
  /** Its files, by path, SKILL.md first. */
  readonly files: readonly SkillFile[];
}
