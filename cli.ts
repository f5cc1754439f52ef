/**
 * The standard command-line flags of a Warden server (`--policy`,
 * `--audit`, `--principal`, `--http`, …) and the policy file, for programs
 * that want the pieces of `serverSetup()` separately.
 *
 * @example Parsing flags without exiting the process
 * ```ts
 * import { parseServerFlags } from "@warden/mcp/cli";
 * const parsed = await parseServerFlags(["--principal", "alice"], { name: "desk", version: "1.0.0" });
 * console.assert(parsed.action === "run");
 * ```
 *
 * @module
 */

export { loadPolicyFile, parsePolicy } from "./src/setup/policy_file.ts";
export {
  type FlagsResult,
  parseListenAddress,
  parseServerFlags,
  type ServerFlags,
  type ServerIdentity,
  setupFromFlags,
  usage,
} from "./src/setup/flags.ts";
