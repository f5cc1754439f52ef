/**
 * The standard flags every Warden server script accepts, parsed with
 * `node:util` `parseArgs`: what each means, the usage text, and the
 * parse that never prints nor exits.
 *
 * @module
 */

import type { ServerOptions } from "../server/types.ts";
import { checkStoreUrl } from "../store/open_store.ts";
import { parseListenAddress } from "./listen_address.ts";
import { readQuotaFlags } from "./quota_flags.ts";

/** The flags a server was started with. */
export interface ServerFlags {
  /** `--policy FILE.jsonc`: guardrails from a policy file. */
  policy?: string;
  /** `--audit FILE|-`: audit log to a JSONL file, or `-` for stderr (overrides the policy's). */
  audit?: string;
  /**
   * `--audit-durable`: each audit line is written and synced before its call
   * is answered (needs a file audit log, from `--audit FILE` or the policy).
   */
  auditDurable?: boolean;
  /**
   * `--audit-key-file FILE`: the audit log's hash chain is an HMAC under the
   * key in FILE (needs an audit log to a file or stderr).
   */
  auditKeyFile?: string;
  /** `--principal NAME`: who the guardrails decide about (overrides the policy's). */
  principal?: string;
  /** `--http [HOST:]PORT`: serve Streamable HTTP instead of stdio. */
  http?: string;
  /** `--store URL`: shared state (`memory`, `redis://HOST:PORT/DB`, `kv:PATH`; overrides the policy's). */
  store?: string;
  /** `--auth-issuer URL`: the OAuth authorization server (overrides the policy's `auth.issuer`). */
  authIssuer?: string;
  /** `--auth-audience URL`: this server's canonical resource URI (overrides `auth.audience`). */
  authAudience?: string;
  /** `--auth-scopes "A B"`: scopes every request needs (overrides `auth.requiredScopes`). */
  authScopes?: string;
  /** `--quota NAME=N`, repeatable: quotas per principal (`createServer()`'s `quotas`). */
  quotas?: NonNullable<ServerOptions["quotas"]>;
}

/** What the command line asks for. */
export type FlagsResult =
  | { action: "run"; flags: ServerFlags }
  | { action: "help"; text: string }
  | { action: "version"; text: string }
  | { action: "error"; message: string; usage: string };

/**
 * The server's name and version, for `--help` and `--version`.
 *
 * @example One identity for the usage text and the server
 * ```ts
 * import { createServer } from "@warden/mcp";
 * import { type ServerIdentity, serverSetup } from "@warden/mcp/setup";
 * const identity: ServerIdentity = { name: "order-desk", version: "2.3.1" };
 * const setup = await serverSetup(["--principal", "support"], identity);
 * const server = createServer({ ...identity, ...setup });
 * ```
 */
export interface ServerIdentity {
  /** Program name shown in the usage line. */
  name: string;
  /** Printed by `--version`. */
  version: string;
}

/** The usage text. */
export function usage(identity: ServerIdentity): string {
  return [
    `Usage: ${identity.name} [--policy FILE.jsonc] [--audit FILE|-] [--principal NAME] [--audit-durable] [--audit-key-file FILE] [--http [HOST:]PORT] [--store URL] [--auth-issuer URL --auth-audience URL [--auth-scopes SCOPES]] [--quota NAME=N]...`,
    "",
    "An MCP server on stdio (built with Warden).",
    "",
    "Options:",
    "  --policy FILE     guardrails (access, rate limits, redaction, audit) from a JSONC file",
    "  --audit FILE|-    append the audit log to FILE as JSON lines, or '-' for stderr",
    "  --audit-durable   sync each audit line to disk before its call is answered",
    "  --audit-key-file FILE  sign the audit log's hash chain with the key in FILE (HMAC-SHA-256)",
    "  --principal NAME  the caller the access policy and rate limits decide about",
    "  --http [HOST:]PORT  serve Streamable HTTP at /mcp (HOST defaults to 127.0.0.1) instead of stdio",
    "  --store URL       state shared by instances: redis://HOST:PORT/DB, kv:PATH (kv: for the",
    "                    default Deno KV database, needs --unstable-kv) or memory (the default)",
    "  --auth-issuer URL    OAuth: the authorization server whose access tokens are accepted",
    "  --auth-audience URL  OAuth: this server's resource URI, the audience tokens must name",
    "  --auth-scopes LIST   OAuth: scopes every request needs (space- or comma-separated)",
    "  --quota NAME=N    a quota per principal: tasks, listenStreams, inflightCalls or",
    "                    requestStates (repeatable)",
    "  --help            show this text",
    "  --version         show the version",
  ].join("\n");
}

/** The standard flags as `node:util` `parseArgs` takes them. */
const FLAG_OPTIONS = {
  policy: { type: "string" },
  audit: { type: "string" },
  "audit-durable": { type: "boolean" },
  "audit-key-file": { type: "string" },
  principal: { type: "string" },
  http: { type: "string" },
  store: { type: "string" },
  "auth-issuer": { type: "string" },
  "auth-audience": { type: "string" },
  "auth-scopes": { type: "string" },
  quota: { type: "string", multiple: true },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean" },
} as const;

/**
 * Parses the standard flags. It prints nothing and never exits (async only
 * because `node:util` is loaded on first use).
 *
 * @example
 * ```ts
 * import { parseServerFlags } from "./flags.ts";
 * const result = await parseServerFlags(["--policy", "policy.jsonc"], {
 *   name: "desk",
 *   version: "1.0.0",
 * });
 * console.assert(result.action === "run" && result.flags.policy === "policy.jsonc");
 * ```
 */
export async function parseServerFlags(
  args: readonly string[],
  identity: ServerIdentity,
): Promise<FlagsResult> {
  // Imported here, not at the top: loading Node compatibility costs start-up time.
  const { parseArgs } = await import("node:util");
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...args],
      strict: true,
      allowPositionals: false,
      options: FLAG_OPTIONS,
    }));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { action: "error", message, usage: usage(identity) };
  }
  if (values.help === true) return { action: "help", text: usage(identity) };
  if (values.version === true) {
    return { action: "version", text: `${identity.name} ${identity.version}` };
  }
  const flags: ServerFlags = {};
  for (const key of ["policy", "audit", "principal", "http", "store"] as const) {
    const value = values[key];
    if (typeof value === "string") {
      if (value.length === 0) {
        return { action: "error", message: `--${key} needs a value`, usage: usage(identity) };
      }
      flags[key] = value;
    }
  }
  if (values["audit-durable"] === true) flags.auditDurable = true;
  const keyFile = values["audit-key-file"];
  if (typeof keyFile === "string") {
    if (keyFile.length === 0) {
      return { action: "error", message: "--audit-key-file needs a value", usage: usage(identity) };
    }
    flags.auditKeyFile = keyFile;
  }
  for (const [flag, key] of AUTH_FLAGS) {
    const value = values[flag];
    if (typeof value !== "string") continue;
    if (value.length === 0) {
      return { action: "error", message: `--${flag} needs a value`, usage: usage(identity) };
    }
    flags[key] = value;
  }
  const badQuota = readQuotaFlags(values.quota, flags);
  if (badQuota) return { action: "error", message: badQuota, usage: usage(identity) };
  if (flags.http !== undefined && parseListenAddress(flags.http) === undefined) {
    return {
      action: "error",
      message: `--http needs [HOST:]PORT, got ${JSON.stringify(flags.http)}`,
      usage: usage(identity),
    };
  }
  if (flags.store !== undefined) {
    try {
      checkStoreUrl(flags.store, "--store");
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { action: "error", message, usage: usage(identity) };
    }
  }
  return { action: "run", flags };
}

/** The OAuth flags and the fields they set. */
const AUTH_FLAGS = [
  ["auth-issuer", "authIssuer"],
  ["auth-audience", "authAudience"],
  ["auth-scopes", "authScopes"],
] as const;
