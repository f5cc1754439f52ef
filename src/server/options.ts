/**
 * Checking `createServer()`'s options once, at start-up, and filling in the
 * defaults: a bad option stops the server with a message that names it.
 *
 * @module
 */

import { checkTtl } from "../core/cache.ts";
import type { Implementation } from "../core/lifecycle.ts";
import { type Quotas, resolveQuotas } from "../core/quotas.ts";
import { checkSecret } from "../eras/modern/state_secret.ts";
import type { StateSecret } from "../store/sealing_keys.ts";
import type { ServerOptions } from "./types.ts";

/** The options with every default filled in. */
export interface ResolvedOptions {
  readonly serverInfo: Implementation;
  readonly shutdownGraceMs: number;
  readonly requestTimeoutMs: number;
  readonly listTtlMs: number;
  readonly readTtlMs: number;
  readonly stateSecrets: readonly StateSecret[];
  readonly requestStateTtlMs: number;
  readonly maxInputRounds: number;
  readonly modern: boolean;
  readonly principal: string | undefined;
  readonly quotas: Quotas;
}

function positive(value: number | undefined, name: string, integer: boolean): void {
  if (value === undefined) return;
  if (
    !Number.isFinite(value) || value < 0 || (integer && (!Number.isInteger(value) || value < 1))
  ) {
    throw new RangeError(
      `Cannot create server: ${name} must be a ${integer ? "positive integer" : "number >= 0"}`,
    );
  }
}

function reword(error: unknown): never {
  if (error instanceof Error) error.message = `Cannot create server: ${error.message}`;
  throw error;
}

/** Checks the numbers, flags and the clock among the options. */
function checkScalars(options: ServerOptions): void {
  positive(options.shutdownGraceMs, "shutdownGraceMs", false);
  positive(options.requestTimeoutMs, "requestTimeoutMs", false);
  positive(options.pageSize, "pageSize", true);
  positive(options.maxInputRounds, "maxInputRounds", true);
  positive(options.requestStateTtlMs, "requestStateTtlMs", true);
  if (options.logStacks !== undefined && typeof options.logStacks !== "boolean") {
    throw new TypeError("Cannot create server: logStacks must be a boolean");
  }
  if (options.now !== undefined && typeof options.now !== "function") {
    throw new TypeError("Cannot create server: now must be a function returning ms");
  }
}

/** Checks `options` and fills in the defaults. */
export function resolveOptions(options: ServerOptions): ResolvedOptions {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("Cannot create server: expected an options object");
  }
  if (typeof options.name !== "string" || options.name.length === 0) {
    throw new TypeError("Cannot create server: name must be a non-empty string");
  }
  if (typeof options.version !== "string") {
    throw new TypeError("Cannot create server: version must be a string");
  }
  checkScalars(options);
  try {
    checkTtl(options.cache?.ttlMs, "cache.ttlMs");
    checkTtl(options.cache?.readTtlMs, "cache.readTtlMs");
  } catch (error) {
    reword(error);
  }
  const key = options.requestStateKey;
  const secrets: readonly StateSecret[] = key === undefined
    ? []
    : Array.isArray(key)
    ? key
    : [key as StateSecret];
  try {
    secrets.forEach((secret, i) =>
      checkSecret(secret, Array.isArray(key) ? `requestStateKey[${i}]` : "requestStateKey")
    );
  } catch (error) {
    reword(error);
  }
  const eras = options.eras ?? ["legacy", "modern"];
  if (
    !Array.isArray(eras) || !eras.includes("legacy") ||
    !eras.every((era) => era === "legacy" || era === "modern")
  ) {
    throw new TypeError(
      'Cannot create server: eras must list "legacy", optionally with "modern"',
    );
  }
  // A policy's principal arrives on the guardrails; it must agree with the server's own.
  const named = new Set<string>();
  for (const guardrail of options.guardrails ?? []) {
    if (guardrail?.principal !== undefined) named.add(guardrail.principal);
  }
  if (options.principal !== undefined) named.add(options.principal);
  if (named.size > 1) {
    throw new TypeError(
      `Cannot create server: conflicting principals ${
        [...named].map((p) => JSON.stringify(p)).join(" and ")
      } (options.principal and the guardrails' policy)`,
    );
  }
  const quotas = resolveQuotas(options.quotas);
  if (options.http?.auth !== undefined && options.http.authenticate !== undefined) {
    throw new TypeError("Cannot create server: give http.auth or http.authenticate, not both");
  }
  const serverInfo: Implementation = { name: options.name, version: options.version };
  if (options.title !== undefined) serverInfo.title = options.title;
  if (options.description !== undefined) serverInfo.description = options.description;
  if (options.icons !== undefined) serverInfo.icons = options.icons;
  if (options.websiteUrl !== undefined) serverInfo.websiteUrl = options.websiteUrl;
  return {
    serverInfo,
    shutdownGraceMs: options.shutdownGraceMs ?? 5000,
    requestTimeoutMs: options.requestTimeoutMs ?? 60_000,
    listTtlMs: options.cache?.ttlMs ?? 60_000,
    readTtlMs: options.cache?.readTtlMs ?? 0,
    stateSecrets: secrets,
    requestStateTtlMs: options.requestStateTtlMs ?? 600_000,
    maxInputRounds: options.maxInputRounds ?? 10,
    modern: eras.includes("modern"),
    principal: options.principal ?? [...named][0],
    quotas,
  };
}
