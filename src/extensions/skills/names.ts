/**
 * Skill names, skill paths and `skill://` URIs (SEP-2640), checked strictly
 * and without help from any URI normaliser: a path segment is plain
 * characters or nothing. Dot segments, percent-encoding, backslashes and
 * empty segments are refused wherever a URI or path comes in, so that no
 * spelling of `..` can reach a file outside a skill, whatever a lower layer
 * does to the URI.
 *
 * @module
 */

/** The URI scheme skills are served under. */
export const SKILL_SCHEME = "skill://";

/** The manifest file every skill has at its root. */
export const SKILL_FILE = "SKILL.md";

/** The MIME type of a directory resource. */
export const DIRECTORY_MIME_TYPE = "inode/directory";

/**
 * The Agent Skills naming rule: 1 to 64 lowercase letters, digits and
 * hyphens, no hyphen first, last or doubled.
 */
const SKILL_NAME = /^(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

/**
 * One segment of a skill path or file path: RFC 3986 path characters minus
 * the percent sign (no encoded forms at all) and the colon; a segment of
 * dots only is refused separately.
 */
const SEGMENT = /^[A-Za-z0-9._~!$&'()*+,;=@-]+$/;

/** Whether `name` follows the Agent Skills naming rule. */
export function isSkillName(name: unknown): name is string {
  return typeof name === "string" && SKILL_NAME.test(name);
}

/** Why `segment` cannot be part of a path, or undefined when it can. */
export function segmentProblem(segment: string): string | undefined {
  if (segment.length === 0) return "an empty segment";
  if (/^\.+$/.test(segment)) return `a dot segment '${segment}'`;
  if (!SEGMENT.test(segment)) return `the segment '${segment}' (only plain URI path characters)`;
  return undefined;
}

/** Why a `/`-separated path cannot be used, or undefined when it can. */
export function pathProblem(path: string): string | undefined {
  if (path.length === 0) return "an empty path";
  for (const segment of path.split("/")) {
    const problem = segmentProblem(segment);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/**
 * The path after `skill://` of a URI a client sent, or undefined when the
 * URI is not a plain `skill://` URI: any dot segment, percent sign,
 * backslash, empty segment, query or fragment makes it no skill URI at all.
 */
export function skillUriPath(uri: unknown): string | undefined {
  if (typeof uri !== "string" || !uri.startsWith(SKILL_SCHEME)) return undefined;
  const path = uri.slice(SKILL_SCHEME.length);
  return pathProblem(path) === undefined ? path : undefined;
}
