/**
 * The standard flags every Warden server script accepts, parsed with
 * `node:util` `parseArgs`, and the one call that turns them into
 * `createServer()` options.
 *
 * @module
 */

import type { GuardrailsConfig, GuardrailsDeps } from "../guardrails/policy/create_guardrails.ts";
import type { AuthPolicy } from "./auth_policy.ts";
import type { Guardrail } from "../call/guardrail.ts";
import type { HttpOptions } from "../http/options.ts";
import { exitProcess, hostArgs } from "../runtime/host.ts";
import { telemetryEnabled } from "../runtime/telemetry_env.ts";
import { checkStoreUrl, openStore } from "../store/open_store.ts";
import type { SharedStore } from "../store/shared_store.ts";

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
}

/** A policy file's guardrails, with its `auth` section apart. */
type PolicyConfig = { config: GuardrailsConfig; auth: AuthPolicy | undefined };

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
    `Usage: ${identity.name} [--policy FILE.jsonc] [--audit FILE|-] [--principal NAME] [--audit-durable] [--audit-key-file FILE] [--http [HOST:]PORT] [--store URL] [--auth-issuer URL --auth-audience URL [--auth-scopes SCOPES]]`,
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
    "  --help            show this text",
    "  --version         show the version",
  ].join("\n");
}

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
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...args],
      strict: true,
      allowPositionals: false,
      options: {
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
        help: { type: "boolean", short: "h" },
        version: { type: "boolean" },
      },
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

/** `PORT`, `HOST:PORT` or `[IPV6]:PORT` as a hostname and port; undefined when malformed. */
export function parseListenAddress(value: string): { hostname: string; port: number } | undefined {
  const colon = value.lastIndexOf(":");
  const host = colon === -1 ? "127.0.0.1" : value.slice(0, colon).replace(/^\[(.*)\]$/, "$1");
  const portText = colon === -1 ? value : value.slice(colon + 1);
  const port = Number(portText);
  if (!/^[0-9]+$/.test(portText) || port > 65535 || host.length === 0) return undefined;
  return { hostname: host, port };
}

/**
 * What {@linkcode serverSetup} hands to `createServer()`: every field is a
 * `ServerOptions` field, so the whole setup spreads into it
 * (`createServer({ name, version, ...setup })`).
 *
 * @example The standard setup, plus a guardrail of the server's own (kept, not replaced)
 * ```ts
 * import { createServer } from "@warden/mcp";
 * import type { Guardrail } from "@warden/mcp/guardrails";
 * import { serverSetup, type ServerSetup } from "@warden/mcp/setup";
 * const slowCalls: Guardrail = {
 *   name: "slow-calls",
 *   stage: "custom",
 *   async run(call, next) {
 *     const started = performance.now();
 *     const outcome = await next(call);
 *     const ms = performance.now() - started;
 *     if (ms > 1_000) console.error(`slow ${call.kind} ${call.name}: ${Math.round(ms)} ms`);
 *     return outcome;
 *   },
 * };
 * const identity = { name: "desk", version: "1.0.0" };
 * const setup: ServerSetup = await serverSetup(["--audit", "-"], identity);
 * const server = createServer({
 *   ...identity,
 *   ...setup,
 *   guardrails: [...setup.guardrails, slowCalls],
 * });
 * ```
 */
export interface ServerSetup {
  /** The guardrails the policy and flags ask for. */
  guardrails: Guardrail[];
  /** The principal, from `--principal` or the policy. */
  principal?: string;
  /**
   * Where to serve HTTP (`--http`), for `serveHttp(server, setup.http)`;
   * undefined means stdio. It is typed as `HttpOptions` as well so that it
   * spreads into `createServer()`'s `http`, whose endpoint ignores
   * `hostname` and `port`.
   */
  http?: HttpOptions & { hostname: string; port: number };
  /**
   * The shared store from `--store` or the policy's `store`, opened once for
   * the rate limits and the server (sealing key, change bus).
   */
  store?: SharedStore;
}

/**
 * Builds the guardrails and principal from already-parsed flags: loads the
 * policy file (throws with file, line and column on a bad one), then lets
 * `--audit` and `--principal` override it.
 *
 * @example
 * ```ts ignore
 * import { setupFromFlags } from "./flags.ts";
 * const setup = await setupFromFlags({ policy: "policy.jsonc", audit: "-" });
 * ```
 */
export async function setupFromFlags(
  flags: ServerFlags,
  deps: GuardrailsDeps = {},
): Promise<ServerSetup> {
  // The guardrails and the policy parser load only when a flag asks for them (cold start).
  const { config, auth: authPolicy }: PolicyConfig = flags.policy === undefined
    ? { config: {}, auth: undefined }
    : await (await import("./policy_file.ts")).readPolicyFile(flags.policy);
  if (flags.audit !== undefined) {
    config.audit = flags.audit === "-" ? "stderr" : { file: flags.audit };
  }
  if (flags.principal !== undefined) config.principal = flags.principal;
  if (flags.auditDurable === true) {
    const target = config.audit;
    if (typeof target !== "object" || target === null || !("file" in target)) {
      throw new Error("--audit-durable needs a file audit log: --audit FILE or audit.file");
    }
    config.audit = { file: target.file, durable: true };
  }
  const audit = config.audit;
  if (typeof audit === "object" && audit !== null && "file" in audit) {
    // The sink opens lazily; find out now, while refusing to start is still possible.
    const { open } = await import("node:fs/promises");
    try {
      await (await open(audit.file, "a")).close();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`Cannot open audit file ${audit.file}: ${reason}`);
    }
  }
  const storeUrl = flags.store ?? config.store;
  const shared = deps.shared ?? (storeUrl === undefined ? undefined : openStore(storeUrl));
  const guardrailDeps = shared === undefined ? { ...deps } : { ...deps, shared };
  if (flags.auditKeyFile !== undefined) {
    guardrailDeps.auditKey = await auditKeyFor(config, flags.auditKeyFile);
  }
  const setup: ServerSetup = {
    guardrails: [
      ...await telemetryGuardrails(),
      ...(Object.keys(config).length === 0
        ? []
        : (await import("../guardrails/policy/create_guardrails.ts")).createGuardrails(
          config,
          guardrailDeps,
        )),
    ],
  };
  if (shared !== undefined) setup.store = shared;
  if (config.principal !== undefined) setup.principal = config.principal;
  const http = flags.http === undefined ? undefined : parseListenAddress(flags.http);
  const needsAuth = authPolicy !== undefined || flags.authIssuer !== undefined ||
    flags.authAudience !== undefined;
  // The OAuth code (and jose) loads only when a flag or the policy asks for it.
  const auth = needsAuth
    ? await (await import("./auth_policy.ts")).authFromSetup(authPolicy, flags, shared)
    : undefined;
  if (http !== undefined) setup.http = auth === undefined ? http : { ...http, auth };
  return setup;
}

/**
 * The one call a server script makes for the standard flags: `--help` and
 * `--version` print and exit 0; a bad flag or a bad policy file prints the
 * reason to stderr and exits 2, so the server never runs unguarded. Without
 * `args` it reads the host's own arguments (`Deno.args`, or
 * `process.argv.slice(2)` on Node and Bun), so one script runs everywhere.
 *
 * @example
 * ```ts ignore
 * import { createServer } from "@warden/mcp";
 * import { serverSetup } from "@warden/mcp/setup";
 * const setup = await serverSetup({ name: "desk", version: "1.0.0" });
 * const server = createServer({ name: "desk", version: "1.0.0", ...setup });
 * ```
 */
export function serverSetup(identity: ServerIdentity): Promise<ServerSetup>;
/**
 * {@linkcode serverSetup} on the arguments given rather than the host's.
 *
 * @example
 * ```ts ignore
 * import { serverSetup } from "@warden/mcp/setup";
 * const setup = await serverSetup(["--audit", "-"], { name: "desk", version: "1.0.0" });
 * ```
 */
export function serverSetup(
  args: readonly string[],
  identity: ServerIdentity,
): Promise<ServerSetup>;
export async function serverSetup(
  first: readonly string[] | ServerIdentity,
  second?: ServerIdentity,
): Promise<ServerSetup> {
  const identity = isIdentity(first) ? first : second;
  if (identity === undefined) {
    throw new TypeError("Cannot set up the server: expected its name and version");
  }
  const args = isIdentity(first) ? await hostArgs() : first;
  const parsed = await parseServerFlags(args, identity);
  switch (parsed.action) {
    case "help":
    case "version":
      // Not a protocol session yet, so stdout is free for the answer.
      await writeOut("stdout", `${parsed.text}\n`);
      return exitProcess(0);
    case "error":
      await writeOut("stderr", `${identity.name}: ${parsed.message}\n\n${parsed.usage}\n`);
      return exitProcess(2);
  }
  try {
    return await setupFromFlags(parsed.flags);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await writeOut("stderr", `${identity.name}: ${message}\n`);
    return exitProcess(2);
  }
}

/** The audit key from `--audit-key-file`, for an audit log that writes the chain. */
async function auditKeyFor(config: GuardrailsConfig, path: string): Promise<Uint8Array> {
  const audit = config.audit;
  if (audit !== "stderr" && (typeof audit !== "object" || audit === null || !("file" in audit))) {
    throw new Error("--audit-key-file needs an audit log to a file or stderr: --audit FILE|-");
  }
  return (await import("../guardrails/audit/audit_key.ts")).readAuditKey(path);
}

/**
 * OpenTelemetry (`OTEL_DENO=true`): a span and metrics per guarded call. It
 * is part of the setup path, not of `createServer()`, so a plain server never
 * reaches the OpenTelemetry package; nothing loads when it is off.
 */
async function telemetryGuardrails(): Promise<Guardrail[]> {
  if (!telemetryEnabled()) return [];
  const { callTelemetry } = await import("../guardrails/telemetry/call_telemetry.ts");
  return [callTelemetry()];
}

function isIdentity(value: readonly string[] | ServerIdentity): value is ServerIdentity {
  return !Array.isArray(value);
}

/** Writes before an exit; node:process is loaded only on these paths. */
async function writeOut(stream: "stdout" | "stderr", text: string): Promise<void> {
  const process = (await import("node:process")).default;
  await new Promise<void>((resolve) => process[stream].write(text, () => resolve()));
}
