/**
 * The one call that turns the standard flags (parsed in `parse_flags.ts`)
 * into `createServer()` options: the policy file, the audit target, the
 * shared store, OAuth and the quotas.
 *
 * @module
 */

import type { GuardrailsConfig, GuardrailsDeps } from "../guardrails/policy/create_guardrails.ts";
import type { AuthPolicy } from "./auth_policy.ts";
import type { Guardrail } from "../call/guardrail.ts";
import type { HttpOptions } from "../http/options.ts";
import { exitProcess, hostArgs } from "../runtime/host.ts";
import { telemetryEnabled } from "../runtime/telemetry_env.ts";
import { openReadyStore } from "../store/open_store.ts";
import { type SharedStore, StoreUnavailableError } from "../store/shared_store.ts";
import type { ServerOptions } from "../server/types.ts";
import { parseListenAddress } from "./listen_address.ts";
import {
  type FlagsResult,
  parseServerFlags,
  type ServerFlags,
  type ServerIdentity,
  usage,
} from "./parse_flags.ts";

export {
  type FlagsResult,
  parseListenAddress,
  parseServerFlags,
  type ServerFlags,
  type ServerIdentity,
  usage,
};

/** A policy file's guardrails, with its `auth` section apart. */
type PolicyConfig = { config: GuardrailsConfig; auth: AuthPolicy | undefined };

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
  /** Quotas per principal from `--quota`; absent, the server's defaults. */
  quotas?: NonNullable<ServerOptions["quotas"]>;
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
  // Reachable before anything else starts: a server on a dead store stops here with the reason.
  const shared = deps.shared ??
    (storeUrl === undefined ? undefined : await openReadyStore(storeUrl));
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
  // The policy's quotas, each overridden by a --quota flag naming it.
  const quotas = { ...config.quotas, ...flags.quotas };
  if (Object.keys(quotas).length > 0) setup.quotas = quotas;
  if (config.principal !== undefined) setup.principal = config.principal;
  const http = flags.http === undefined ? undefined : parseListenAddress(flags.http);
  // Any of them asks for OAuth: authFromSetup refuses what lacks an issuer or audience.
  const needsAuth = authPolicy !== undefined || flags.authIssuer !== undefined ||
    flags.authAudience !== undefined || flags.authScopes !== undefined;
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
 * reason to stderr and exits 2, so the server never runs unguarded; a
 * shared store that cannot be reached (`--store`, the policy's `store`)
 * prints one line saying why and exits 1. Without
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
    // Not a usage error: the flags were right, the store is not there (or not permitted).
    return exitProcess(error instanceof StoreUnavailableError ? 1 : 2);
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
