/**
 * Agent Skills (SEP-2640): `loadSkill()` reads and checks a skill from a
 * directory on disk or from files in memory, and `server.skill()` publishes
 * it. A separate entry because a skill's frontmatter is YAML, parsed by an
 * npm package (js-yaml) that a server importing only the root entry never
 * loads. See [skills](docs/skills.md).
 *
 * @example Publishing a skill directory
 * ```ts
 * import { createServer } from "@warden/mcp";
 * import { loadSkill } from "@warden/mcp/skills";
 *
 * const server = createServer({ name: "orders", version: "1.0.0" });
 * const skill = await loadSkill({
 *   files: { "SKILL.md": "---\nname: order-desk\ndescription: Answer order questions.\n---\n" },
 * });
 * server.skill(skill);
 * ```
 *
 * @module
 */

export { loadSkill } from "./src/extensions/skills/load.ts";
