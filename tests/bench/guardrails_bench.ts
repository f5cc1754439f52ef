/**
 * The guardrail pipeline's cost per call: one `tools/call` of `echo` through
 * `server.handle()` with no guardrails, with each guardrail alone, and with
 * all four on the permissive policy the stdio benchmark uses (audit entries
 * appended to /dev/null, hence `--allow-write=/dev/null`, and read to continue its chain).
 *
 * Run: `deno bench --allow-read=/dev/null --allow-write=/dev/null tests/bench/guardrails_bench.ts`
 *
 * @module
 */

import type { Server } from "../../mod.ts";
import type { GuardrailsConfig } from "../../guardrails.ts";
import { createEchoServer, guardrailsOf, PERMISSIVE_POLICY } from "./servers/warden_server.ts";

const GROUP = "guardrails: one tools/call via server.handle()";
const CALL = {
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "echo", arguments: { text: "hello, guarded world" } },
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

async function callEcho(server: Server): Promise<void> {
  const reply = await server.handle(CALL);
  const content = isRecord(reply) && isRecord(reply.result) ? reply.result.content : undefined;
  const block: unknown = Array.isArray(content) ? content[0] : undefined;
  if (!isRecord(block) || block.text !== CALL.params.arguments.text) {
    throw new Error(`Wrong reply: ${JSON.stringify(reply)}`);
  }
}

async function initialized(policy: GuardrailsConfig | undefined): Promise<Server> {
  const server = createEchoServer(await guardrailsOf(policy));
  await server.handle({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "b", version: "1" },
    },
  });
  return server;
}

const { access, rateLimit, redact, audit } = PERMISSIVE_POLICY;
const variants: [name: string, policy: GuardrailsConfig | undefined][] = [
  ["no guardrails", undefined],
  ["access policy only", { access }],
  ["rate limit only", { rateLimit }],
  ["redaction only", { redact }],
  ["audit log only (/dev/null)", { audit }],
  ["all four (permissive policy)", PERMISSIVE_POLICY],
];

for (const [name, policy] of variants) {
  const server = await initialized(policy);
  Deno.bench({ name, group: GROUP, baseline: policy === undefined }, async () => {
    await callEcho(server);
  });
}
