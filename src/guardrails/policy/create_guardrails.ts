/**
 * All four guardrails from one configuration object: the shape a JSONC
 * policy file has, and the same settings in code.
 *
 * @module
 */

import { isRecord } from "../../jsonrpc/messages.ts";
import {
  accessPolicy,
  type AccessPolicyOptions,
  compileAccessPolicy,
} from "../access/access_policy.ts";
import { type auditLog, auditLogWith } from "../audit/audit_log.ts";
import type { AuditSink } from "../audit/audit.ts";
import { fileAuditSink, stderrAuditSink } from "../audit/audit_sinks.ts";
import type { Guardrail } from "../../call/guardrail.ts";
import { compileRateLimits, type RateLimiterOptions } from "../rate_limit/limits.ts";
import { rateLimit } from "../rate_limit/rate_limit.ts";
import {
  compileRedactor,
  type Redactor,
  REDACTOR_OPTION_SCHEMAS,
  type RedactorOptions,
} from "../redact/engine.ts";
import { redactionWith } from "../redact/guardrail.ts";
import { checkStoreUrl, openStore } from "../../store/open_store.ts";
import type { SharedStore } from "../../store/shared_store.ts";
import { otelAuditSink } from "../telemetry/otel_audit_sink.ts";
import { checkConfig } from "../../schema/config.ts";
import type { JsonSchemaObject } from "../../schema/types.ts";

/**
 * Every guardrail setting. The JSONC policy file has exactly this shape
 * (with `audit` limited to "stderr", "otel", `{ "file": PATH, "durable"?: BOOLEAN }` or false, and
 * redaction patterns given as strings).
 *
 * @example A support desk's policy, built in code
 * ```ts
 * import { createServer } from "@warden/mcp";
 * import { createGuardrails, type GuardrailsConfig } from "@warden/mcp/guardrails";
 * const policy: GuardrailsConfig = {
 *   principal: "support",
 *   access: { tools: { deny: ["delete_*"] } },
 *   rateLimit: { rules: [{ scope: "principal", capacity: 30, refillPerSecond: 0.5 }] },
 *   redact: { keys: ["customer_pin"] },
 *   audit: "stderr",
 * };
 * const guardrails = createGuardrails(policy);
 * const server = createServer({ name: "desk", version: "1.0.0", guardrails });
 * ```
 */
export interface GuardrailsConfig {
  /**
   * The principal sessions run as, unless `--principal` or `connect()` names
   * another. `createGuardrails()` hands it to the server through the
   * guardrails, so `createServer({ guardrails })` applies it; a server given
   * a different `principal` refuses to start.
   */
  principal?: string;
  /**
   * Quotas per principal (`createServer()`'s `quotas`): `serverSetup()`
   * hands them to the server, `--quota` flags win; `createGuardrails()`
   * ignores them. Absent: the server's defaults.
   */
  quotas?: {
    tasks?: number;
    listenStreams?: number;
    inflightCalls?: number;
    requestStates?: number;
  };
  /** Allow and deny lists per kind, optionally per principal. Absent: everything allowed. */
  access?: AccessPolicyOptions;
  /** Token-bucket rules. Absent: no limits. */
  rateLimit?: RateLimiterOptions;
  /**
   * Masking of outgoing data: options, `true` for the defaults, `false` or
   * absent for none. In a policy file, `"gitleaksRules": "FILE.toml"` adds
   * the rules of a gitleaks configuration (a relative path is resolved
   * against the policy file's directory); in code, pass
   * `rules: await loadGitleaksRules(FILE)` instead.
   */
  redact?: (RedactorOptions & { gitleaksRules?: string }) | boolean;
  /**
   * Where audit entries go: stderr, OpenTelemetry log records, an
   * append-only JSONL file (synced per line when `durable`), any sink, or
   * nowhere. Absent or false: no audit log.
   */
  audit?: "stderr" | "otel" | { file: string; durable?: boolean } | AuditSink | false;
  /**
   * Where state shared between instances lives: `"memory"` (this process),
   * `"redis://HOST:PORT/DB"` or `"kv:PATH"` (`"kv:"` for Deno KV's default
   * database). Absent: memory.
   */
  store?: string;
  /** What rate-limited calls get while the store is unreachable. Absent: `"fail-closed"`. */
  storeOutage?: "fail-closed" | "fail-open";
}

/** Where audit entries go. */
export type AuditTarget = NonNullable<GuardrailsConfig["audit"]>;

/** One quota per principal: a positive whole count. */
const QUOTA_SCHEMA: JsonSchemaObject = { type: "integer", minimum: 1, maximum: 2 ** 53 - 1 };

/**
 * The shape of {@linkcode GuardrailsConfig}. The access and rate-limit
 * sections are checked by their own compilers, which name their own paths,
 * the store URL by `checkStoreUrl`, and the audit target apart, as it may
 * be a sink (code, not data).
 */
const GUARDRAILS_CONFIG_SCHEMA: JsonSchemaObject = {
  type: "object",
  properties: {
    principal: { type: "string", minLength: 1 },
    quotas: {
      type: "object",
      properties: {
        tasks: QUOTA_SCHEMA,
        listenStreams: QUOTA_SCHEMA,
        inflightCalls: QUOTA_SCHEMA,
        requestStates: QUOTA_SCHEMA,
      },
      additionalProperties: false,
    },
    access: true,
    rateLimit: true,
    redact: {
      type: ["boolean", "object"],
      properties: { ...REDACTOR_OPTION_SCHEMAS, gitleaksRules: { type: "string", minLength: 1 } },
      additionalProperties: false,
    },
    audit: true,
    store: true,
    storeOutage: { enum: ["fail-closed", "fail-open"] },
  },
  additionalProperties: false,
};

/** An audit target given as data: a destination's name, false, or a file. */
const AUDIT_TARGET_SCHEMA: JsonSchemaObject = {
  if: { type: "object" },
  then: {
    properties: { file: { type: "string", minLength: 1 }, durable: { type: "boolean" } },
    required: ["file"],
    additionalProperties: false,
  },
  else: { enum: ["stderr", "otel", false] },
};

function isSink(value: unknown): value is AuditSink {
  return isRecord(value) && typeof value.write === "function" && typeof value.flush === "function";
}

/** A checked audit target; a file target is copied. */
function checkAudit(value: unknown): AuditTarget {
  if (isSink(value)) return value;
  checkConfig(AUDIT_TARGET_SCHEMA, value, "", "audit");
  if (isRecord(value) && typeof value.file === "string") {
    return value.durable === true ? { file: value.file, durable: true } : { file: value.file };
  }
  return value === "stderr" || value === "otel" ? value : false;
}

/**
 * Checks a configuration read from JSON: unknown keys and wrong types are
 * reported with their path (`TypeError`/`RangeError`), and every section is
 * compiled once so that a bad rule fails here, before the server starts.
 *
 * @example
 * ```ts
 * import { checkGuardrailsConfig } from "./create_guardrails.ts";
 * const config = checkGuardrailsConfig({ access: { tools: { deny: ["cancel_*"] } } });
 * ```
 */
export function checkGuardrailsConfig(value: unknown): GuardrailsConfig {
  if (!isRecord(value)) throw new TypeError("expected an object at the top level");
  checkConfig(GUARDRAILS_CONFIG_SCHEMA, value, "");
  const config: GuardrailsConfig = {};
  const { principal, access, rateLimit: limits, redact, audit, storeOutage } = value;
  if (typeof principal === "string") config.principal = principal;
  // The schema checked every quota: a plain copy keeps only the four counts.
  if (isRecord(value.quotas)) config.quotas = { ...value.quotas };
  // Each compile function checks its section in full at run time, with paths;
  // the casts only hand over data those checks have accepted.
  if (access !== undefined) {
    config.access = prefixed("access", () => {
      compileAccessPolicy(access as AccessPolicyOptions);
      return access as AccessPolicyOptions;
    });
  }
  if (limits !== undefined) {
    config.rateLimit = prefixed("rateLimit", () => {
      compileRateLimits(limits as RateLimiterOptions);
      return limits as RateLimiterOptions;
    });
  }
  if (redact !== undefined) {
    config.redact = prefixed(
      "redact",
      () => typeof redact === "boolean" ? redact : checkRedactOptions(redact),
    );
  }
  if (audit !== undefined) config.audit = checkAudit(audit);
  if (value.store !== undefined) config.store = checkStoreUrl(value.store, "store");
  if (storeOutage === "fail-closed" || storeOutage === "fail-open") {
    config.storeOutage = storeOutage;
  }
  return config;
}

/** The redact section's values (its shape is checked already): compileRedactor tries them. */
function checkRedactOptions(value: unknown): RedactorOptions {
  if (!isRecord(value)) throw new TypeError("expected true, false or an object");
  // compileRedactor checks the values (regexes, presets); gitleaksRules is read by the policy file.
  const { gitleaksRules: _, ...options } = value;
  compileRedactor(options as RedactorOptions);
  return value as RedactorOptions;
}

function prefixed<T>(section: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    const message = `${section}: ${error.message}`;
    if (error instanceof RangeError) throw new RangeError(message);
    if (error instanceof SyntaxError) throw new SyntaxError(message);
    throw new TypeError(message);
  }
}

/**
 * Builds the guardrails a configuration asks for. The audit log's entries
 * pass the server's masker, the redaction step's rules (the default rules
 * when redaction is off); it is given the same rules for a server without
 * the redaction step. Pass the result as `createServer({ guardrails })`.
 *
 * @example The order desk's policy in code
 * ```ts
 * import { createServer } from "@warden/mcp";
 * import { createGuardrails } from "@warden/mcp/guardrails";
 * const server = createServer({
 *   name: "desk",
 *   version: "1.0.0",
 *   guardrails: createGuardrails({
 *     access: { tools: { deny: ["cancel_order"] } },
 *     rateLimit: { rules: [{ scope: "tool", match: ["get_order"], capacity: 5, refillPerSecond: 1 }] },
 *     redact: { patterns: ["ODK-[A-Za-z0-9]{24,}"] },
 *     audit: "stderr",
 *   }),
 * });
 * ```
 */
export function createGuardrails(
  config: GuardrailsConfig,
  deps: {
    /** Wall clock in ms (audit times, bucket refills). @default {Date.now} */
    now?: () => number;
    /** An already open shared store; wins over the configuration's `store` URL. */
    shared?: SharedStore;
    /**
     * The audit chain's HMAC key (`--audit-key-file`), kept out of the
     * configuration, which is data a policy file may show.
     * @default {undefined} (a plain SHA-256 chain)
     */
    auditKey?: Uint8Array;
  } = {},
): Guardrail[] {
  const checked = checkGuardrailsConfig(config);
  const guardrails: Guardrail[] = [];
  if (checked.principal !== undefined) {
    // Carries the policy's principal to the server; it decides nothing itself.
    guardrails.push({
      name: "principal",
      stage: "custom",
      principal: checked.principal,
      run: (call, next) => next(call),
    });
  }
  let redactor: Redactor | undefined;
  if (checked.redact !== undefined && checked.redact !== false) {
    if (checked.redact !== true && checked.redact.gitleaksRules !== undefined) {
      throw new TypeError(
        "redact: gitleaksRules is read by loadPolicyFile()/parsePolicy(); in code, pass rules: await loadGitleaksRules(FILE)",
      );
    }
    redactor = compileRedactor(checked.redact === true ? {} : checked.redact);
    guardrails.push(redactionWith(redactor));
  }
  if (checked.access !== undefined) guardrails.push(accessPolicy(checked.access));
  if (checked.rateLimit !== undefined) {
    const limiterDeps: NonNullable<Parameters<typeof rateLimit>[1]> = {};
    if (deps.now !== undefined) limiterDeps.now = deps.now;
    // A store named only in the configuration is opened here, for the limits alone;
    // serverSetup() opens it once and hands it to both the limits and the server.
    const shared = deps.shared ??
      (checked.store === undefined ? undefined : openStore(checked.store));
    if (shared !== undefined) limiterDeps.shared = shared;
    if (checked.storeOutage !== undefined) limiterDeps.onOutage = checked.storeOutage;
    guardrails.push(rateLimit(checked.rateLimit, limiterDeps));
  }
  const audit = checked.audit;
  if (audit !== undefined && audit !== false) {
    const sink = audit === "stderr"
      ? stderrAuditSink()
      : audit === "otel"
      ? otelAuditSink()
      : isSink(audit)
      ? audit
      : fileAuditSink(audit.file, { durable: audit.durable === true });
    const options: Parameters<typeof auditLog>[0] = { sink };
    if (deps.now !== undefined) options.now = deps.now;
    if (deps.auditKey !== undefined) options.key = deps.auditKey;
    guardrails.push(auditLogWith(options, redactor ?? compileRedactor()));
  }
  return guardrails;
}

/** Clocks and stores for the stateful edges, injectable for tests. */
export type GuardrailsDeps = NonNullable<Parameters<typeof createGuardrails>[1]>;
