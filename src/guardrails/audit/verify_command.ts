/**
 * The `verify` command: `deno run --allow-read jsr:@warden/mcp/audit verify
 * FILE [--key-file K] [--open]`. It prints what was verified, or the first
 * bad line and why, and returns the exit status: 0 verified, 1 not, 2 a
 * usage error (a bad flag, an unreadable file or key).
 *
 * @module
 */

import { readAuditKey } from "./audit_key.ts";
import { type AuditVerification, verifyAuditLog } from "./verify.ts";

/** The usage text. */
export const VERIFY_USAGE = [
  "Usage: verify FILE [--key-file KEY] [--open]",
  "",
  "Verifies a Warden audit log (a file, or a copy of stderr): every line's hash, each chain's",
  "sequence and links, and a checkpoint at the end of each chain.",
  "",
  "Options:",
  "  --key-file KEY  the audit key the log was written with (--audit-key-file)",
  "  --open          accept chains without a final checkpoint (a log still being written,",
  "                  or a run that crashed)",
].join("\n");

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** What the command prints for a report. */
export function describeVerification(file: string, report: AuditVerification): string {
  const counted = [
    plural(report.lines, "line", "lines"),
    plural(report.entries, "call entry", "call entries"),
    plural(report.chains, "chain", "chains"),
  ].join(", ");
  if (report.error !== undefined) {
    return `${file}: FAILED at line ${report.error.line}: ${report.error.reason}\n` +
      `(verified before it: ${counted})`;
  }
  // Warden never leaves an audit file empty: say so rather than "checkpoint present".
  if (report.lines === 0) return `${file}: no audit line to verify: the log is empty`;
  const checkpoint = report.checkpoint
    ? "final checkpoint present"
    : "no final checkpoint (accepted with --open)";
  return `${file}: verified ${counted}; ${checkpoint}`;
}

/**
 * Runs the command on `args` (after the program name).
 *
 * @param args `["verify", FILE, ...flags]`.
 * @param print Where the outcome goes: `out` for the report, `err` for usage errors.
 * @returns The exit status.
 */
export async function runVerifyCommand(
  args: readonly string[],
  print: { out: (text: string) => void; err: (text: string) => void },
): Promise<number> {
  const { parseArgs } = await import("node:util");
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      strict: true,
      allowPositionals: true,
      options: {
        "key-file": { type: "string" },
        open: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    print.err(`${reason}\n\n${VERIFY_USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help === true) {
    print.out(VERIFY_USAGE);
    return 0;
  }
  const [command, file, ...rest] = positionals;
  if (command !== "verify" || file === undefined || rest.length > 0) {
    print.err(VERIFY_USAGE);
    return 2;
  }
  let log: Uint8Array;
  let key: Uint8Array | undefined;
  try {
    const { readFile } = await import("node:fs/promises");
    log = new Uint8Array(
      await readFile(file).catch((error: Error) => {
        throw new Error(`Cannot read audit log ${file}: ${error.message}`);
      }),
    );
    const keyFile = values["key-file"];
    if (keyFile !== undefined) key = await readAuditKey(keyFile);
  } catch (error) {
    print.err(error instanceof Error ? error.message : String(error));
    return 2;
  }
  const options: { key?: Uint8Array; open?: boolean } = { open: values.open === true };
  if (key !== undefined) options.key = key;
  const report = verifyAuditLog(log, options);
  print.out(describeVerification(file, report));
  return report.ok ? 0 : 1;
}
