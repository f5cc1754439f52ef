/**
 * The `echo` server built with Warden, as a user would write it: plain, or
 * with `--guardrails`, all four guardrails on a permissive policy (every tool
 * allowed, a rate limit no benchmark reaches, every redaction preset, and an
 * audit log appended to /dev/null, so that each entry is built, redacted,
 * serialised and written as a real one is). The micro-benchmarks build the
 * same server in-process with {@linkcode createEchoServer}.
 *
 * `--inflight N` raises the in-flight calls quota (64 per principal by
 * default) for the memory figure that writes 10,000 calls at once.
 *
 * Run: `deno run tests/bench/servers/warden_server.ts`, or
 * `deno run --allow-read=/dev/null --allow-write=/dev/null tests/bench/servers/warden_server.ts --guardrails`
 *
 * @module
 */

import {
  createServer,
  defineTool,
  type HttpOptions,
  type ResourceTemplateDefinition,
  type Server,
  type ServerOptions,
  serveStdio,
} from "../../../mod.ts";
import type { Guardrail, GuardrailsConfig } from "../../../guardrails.ts";

/** The permissive policy: every guardrail on, none of them ever refusing the benchmark's calls. */
export const PERMISSIVE_POLICY = {
  access: { tools: { allow: ["*"] } },
  rateLimit: { rules: [{ scope: "tool", capacity: 1e9, refillPerSecond: 1e9 }] },
  redact: { presets: true },
  audit: { file: "/dev/null" },
} satisfies GuardrailsConfig;

/** The tool every reference server exposes: `{ text }` in, one text block with that text out. */
export const echo = defineTool({
  name: "echo",
  description: "Returns its text",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  handler: ({ text }) => text,
});

/** Items a client may subscribe to (`bench://item/{n}`), for the subscriptions memory figure. */
export const items: ResourceTemplateDefinition = {
  uriTemplate: "bench://item/{n}",
  name: "item",
  read: ({ n }) => ({ n }),
};

/**
 * The guardrails of `policy`, loaded only when asked for: a plain server must
 * not pay for modules it does not use, as a real one does not.
 */
export async function guardrailsOf(policy: GuardrailsConfig | undefined): Promise<Guardrail[]> {
  if (policy === undefined) return [];
  return (await import("../../../guardrails.ts")).createGuardrails(policy);
}

/**
 * The benchmark's Warden server, with the given guardrails (none by default),
 * for HTTP the endpoint's options, and its quotas (the defaults unless given).
 */
export function createEchoServer(
  guardrails: Guardrail[] = [],
  http?: HttpOptions,
  quotas?: ServerOptions["quotas"],
): Server {
  return createServer({
    name: guardrails.length === 0 ? "warden" : "warden-guarded",
    version: "1.0.0",
    guardrails,
    tools: [echo],
    resourceTemplates: [items],
    ...(http === undefined ? {} : { http }),
    ...(quotas === undefined ? {} : { quotas }),
  });
}

/** `--inflight N`: the in-flight calls quota (the queued-calls memory figure writes 10,000 at once). */
function inflightQuota(args: readonly string[]): ServerOptions["quotas"] {
  const at = args.indexOf("--inflight");
  if (at === -1) return undefined;
  const value = Number(args[at + 1]);
  if (!Number.isInteger(value) || value < 1) {
    throw new RangeError("--inflight takes a positive integer");
  }
  return { inflightCalls: value };
}

if (import.meta.main) {
  const guarded = Deno.args.includes("--guardrails");
  const guardrails = await guardrailsOf(guarded ? PERMISSIVE_POLICY : undefined);
  await serveStdio(createEchoServer(guardrails, undefined, inflightQuota(Deno.args)));
}
