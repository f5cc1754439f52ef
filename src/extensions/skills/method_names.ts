/**
 * The skills extension's method names, apart from their handlers: routing
 * needs the names at start, the handlers load on first use.
 *
 * @module
 */

/** The extension's methods, served in both eras while a skill is registered. */
export const SKILLS_METHOD_LIST = [
  "skills/list",
  "skills/get",
  "resources/directory/read",
] as const;

/** One of the extension's methods. */
export type SkillsMethodName = typeof SKILLS_METHOD_LIST[number];

/** The extension's method names, served while a skill is registered. */
export const SKILLS_METHOD_NAMES: ReadonlySet<string> = new Set(SKILLS_METHOD_LIST);
