/**
 * Verifying Warden's audit log. As a library, `verifyAuditLog()`; as a
 * command anyone can run on a copy of the log:
 *
 * ```sh
 * deno run --allow-read jsr:@warden/mcp/audit verify audit.jsonl [--key-file audit.key] [--open]
 * ```
 *
 * It prints what was verified, or the first bad line (changed, missing,
 * repeated, reordered, truncated, spliced from another chain, signed with
 * another key) and why, and exits 0 when the log verifies, 1 when it does
 * not, 2 on a usage error. See [the audit log](docs/audit.md).
 *
 * @example Verifying a log in a test or a script
 * ```ts
 * import { verifyAuditLog } from "@warden/mcp/audit";
 * const report = verifyAuditLog("");
 * console.assert(report.ok);
 * ```
 *
 * @module
 */

import { runVerifyCommand } from "./src/guardrails/audit/verify_command.ts";
import { exitProcess } from "./src/runtime/host.ts";

export { verifyAuditLog } from "./src/guardrails/audit/verify.ts";

if (import.meta.main) {
  const args = typeof Deno === "undefined"
    ? (await import("node:process")).default.argv.slice(2)
    : Deno.args;
  const code = await runVerifyCommand(args, {
    out: (text) => console.log(text),
    err: (text) => console.error(text),
  });
  await exitProcess(code);
}
