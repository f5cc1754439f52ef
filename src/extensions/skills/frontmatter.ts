/**
 * A `SKILL.md`'s YAML frontmatter: the block between the leading `---`
 * lines, parsed as YAML 1.2 and kept verbatim (SEP-2640 publishes it as a
 * JSON object, identical in content to the file), then checked for what
 * the Agent Skills specification requires.
 *
 * @module
 */

import { loadJsYaml } from "../../runtime/npm/js_yaml.ts";
import { isSkillName } from "./names.ts";

/** The leading block: `---` on the first line, up to the next line that is `---`. */
const BLOCK = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** The prefix of frontmatter `metadata` keys reserved for MCP extensions. */
const RESERVED_METADATA = "io.modelcontextprotocol/";

/** The Agent Skills limit on a description, in characters. */
const MAX_DESCRIPTION = 1024;

/**
 * Parses and checks the frontmatter of `text`, a SKILL.md.
 *
 * @throws {TypeError} `label` and why: no frontmatter, YAML that does not
 *   parse or is not a mapping, a missing or malformed `name` or
 *   `description`, or a reserved `metadata` key.
 */
export async function readFrontmatter(
  text: string,
  label: string,
): Promise<Record<string, unknown>> {
  const block = BLOCK.exec(text);
  if (block === null) {
    throw new TypeError(`${label}: SKILL.md must begin with a '---' delimited YAML frontmatter`);
  }
  const yaml = await loadJsYaml();
  let value: unknown;
  try {
    // The core schema of YAML 1.2: no timestamps turned into dates, no merge keys.
    value = yaml.load(block[1] ?? "", { schema: yaml.CORE_SCHEMA });
  } catch (error) {
    const detail = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new TypeError(`${label}: SKILL.md frontmatter is not valid YAML: ${detail}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError(`${label}: SKILL.md frontmatter must be a YAML mapping`);
  }
  const frontmatter = value as Record<string, unknown>;
  if (!isSkillName(frontmatter.name)) {
    throw new TypeError(
      `${label}: frontmatter 'name' must be 1-64 lowercase letters, digits and single hyphens ` +
        `(not first or last), got ${JSON.stringify(frontmatter.name)}`,
    );
  }
  const description = frontmatter.description;
  if (
    typeof description !== "string" || description.trim().length === 0 ||
    description.length > MAX_DESCRIPTION
  ) {
    throw new TypeError(
      `${label}: frontmatter 'description' must be a non-empty string of at most ${MAX_DESCRIPTION} characters`,
    );
  }
  const metadata = frontmatter.metadata;
  if (typeof metadata === "object" && metadata !== null && !Array.isArray(metadata)) {
    const reserved = Object.keys(metadata).find((key) => key.startsWith(RESERVED_METADATA));
    if (reserved !== undefined) {
      throw new TypeError(
        `${label}: frontmatter metadata key '${reserved}' uses the prefix reserved for MCP extensions`,
      );
    }
  }
  return frontmatter;
}
