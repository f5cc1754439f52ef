/**
 * Name globs for guardrail rules: `*` is the only wildcard, everything else
 * is literal, and a pattern must match the whole name.
 *
 * @module
 */

/** The longest glob pattern accepted, in UTF-16 code units. */
export const MAX_GLOB_LENGTH = 512;

/**
 * Checks that `pattern` is a usable glob and throws otherwise. Shared by the
 * guardrail compilers so a bad pattern is reported with its place in the
 * configuration.
 *
 * @internal Not part of the public API.
 * @param pattern The value to check.
 * @param prefix The start of the error message, e.g. "Invalid access policy".
 * @param path Where the pattern sits in the configuration, if anywhere.
 * @throws {TypeError} If `pattern` is not a string.
 * @throws {RangeError} If `pattern` is empty or longer than {@linkcode MAX_GLOB_LENGTH}.
 */
export function assertGlobPattern(
  pattern: unknown,
  prefix: string,
  path?: string,
): asserts pattern is string {
  const where = path === undefined ? "" : ` at ${path}`;
  if (typeof pattern !== "string") {
    const got = pattern === null ? "null" : Array.isArray(pattern) ? "array" : typeof pattern;
    throw new TypeError(`${prefix}: expected a glob string${where}, got ${got}`);
  }
  if (pattern.length === 0) {
    throw new RangeError(`${prefix}: glob is empty${where}`);
  }
  if (pattern.length > MAX_GLOB_LENGTH) {
    throw new RangeError(
      `${prefix}: glob has ${pattern.length} characters${where}, the limit is ${MAX_GLOB_LENGTH}`,
    );
  }
}

/**
 * Compiles a glob into a predicate over names.
 *
 * `*` matches any run of characters, including none and including `/`. Every
 * other character is literal, `?`, `.` and `[` included. The match covers
 * the whole name, compares UTF-16 code units exactly (case-sensitive, no
 * Unicode normalisation, no trimming) and runs in time linear in the name's
 * length whatever the pattern, so hostile names cannot stall a check. A value
 * that is not a string never matches.
 *
 * @param pattern The glob, 1 to {@linkcode MAX_GLOB_LENGTH} characters long.
 * @returns A function telling whether a name matches the glob.
 * @throws {TypeError} If `pattern` is not a string.
 * @throws {RangeError} If `pattern` is empty or too long.
 *
 * @example Matching tool names
 * ```ts
 * import { compileGlob } from "./glob.ts";
 * const isOrderTool = compileGlob("*_order");
 * console.assert(isOrderTool("get_order"));
 * console.assert(!isOrderTool("get_order_items"));
 * console.assert(!compileGlob("orders://?")("orders://1"));
 * ```
 */
export function compileGlob(pattern: string): (name: string) => boolean {
  assertGlobPattern(pattern, "Invalid glob");
  const segments = pattern.split("*");
  const head = segments[0] ?? "";
  if (segments.length === 1) {
    return (name) => name === head;
  }
  const tail = segments[segments.length - 1] ?? "";
  // Empty middle segments come from runs of `*` and constrain nothing.
  const middle = segments.slice(1, -1).filter((segment) => segment.length > 0);
  const fixedLength = head.length + tail.length;
  return (name) => {
    if (typeof name !== "string" || name.length < fixedLength) return false;
    if (!name.startsWith(head) || !name.endsWith(tail)) return false;
    // Leftmost placement of each middle segment leaves the most room for the
    // rest, so one left-to-right pass decides the match without backtracking.
    const end = name.length - tail.length;
    let position = head.length;
    for (const segment of middle) {
      const found = name.indexOf(segment, position);
      if (found === -1 || found + segment.length > end) return false;
      position = found + segment.length;
    }
    return true;
  };
}
