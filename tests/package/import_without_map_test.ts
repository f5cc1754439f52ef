/**
 * Warden imported the way a consumer without its deno.json would: a project
 * of its own (an empty deno.json, its own lockfile) whose main.ts imports
 * mod.ts by absolute file URL and serves a tool behind a JSONC policy file
 * (`loadPolicyFile` needs jsonc-parser). `deno check`, `deno run` and
 * `deno bundle` must all succeed there, and the bundle must run from a cache
 * that holds nothing (everything it needs is inlined).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { type DenoOutput, runDeno } from "../_helpers/subprocess.ts";

const MOD = new URL("../../mod.ts", import.meta.url).href;
const GUARDRAILS = new URL("../../guardrails.ts", import.meta.url).href;
const CLI = new URL("../../setup.ts", import.meta.url).href;

const MAIN = `import { createServer, defineTool } from "${MOD}";
import { createGuardrails } from "${GUARDRAILS}";
import { loadPolicyFile } from "${CLI}";

const config = await loadPolicyFile(Deno.args[0] ?? "policy.jsonc");
const server = createServer({
  name: "consumer",
  version: "1.0.0",
  guardrails: createGuardrails(config),
  tools: [
    defineTool({
      name: "greet",
      description: "Greets someone",
      inputSchema: { type: "object", properties: { who: { type: "string" } }, required: ["who"] },
      handler: ({ who }) => "Hello, " + who.toUpperCase(),
    }),
    defineTool({
      name: "secret",
      description: "Hidden by the policy",
      inputSchema: { type: "object", properties: {} },
      handler: () => "should never run",
    }),
  ],
});
const initialize = {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "consumer-test", version: "1.0.0" },
};
await server.handle({ jsonrpc: "2.0", id: 1, method: "initialize", params: initialize });
await server.handle({ jsonrpc: "2.0", method: "notifications/initialized" });
const listed = await server.handle({ jsonrpc: "2.0", id: 2, method: "tools/list" });
const called = await server.handle({
  jsonrpc: "2.0",
  id: 3,
  method: "tools/call",
  params: { name: "greet", arguments: { who: "ada" } },
});
console.log(JSON.stringify({ listed, called }));
await server.close();
`;

const POLICY = `// The consumer's own policy: hide one tool.
{ "access": { "tools": { "deny": ["secret"] } } }
`;

/** The run's one line of output: the tool list the policy leaves, and the call's result. */
function assertServed(output: DenoOutput): void {
  assert.equal(output.code, 0, output.stderr);
  const { listed, called } = JSON.parse(output.stdout.trim());
  assert.deepEqual(listed.result.tools.map((tool: { name: string }) => tool.name), ["greet"]);
  assert.deepEqual(called.result.content, [{ type: "text", text: "Hello, ADA" }]);
}

Deno.test("mod.ts checks, runs and bundles from a project with no import map", async () => {
  const project = await Deno.makeTempDir({ prefix: "warden-consumer-" });
  const emptyCache = await Deno.makeTempDir({ prefix: "warden-empty-cache-" });
  try {
    await Deno.writeTextFile(join(project, "deno.json"), "{}\n");
    await Deno.writeTextFile(join(project, "main.ts"), MAIN);
    await Deno.writeTextFile(join(project, "policy.jsonc"), POLICY);

    const checked = await runDeno(["check", "main.ts"], { cwd: project });
    assert.equal(checked.code, 0, checked.stderr);

    assertServed(
      await runDeno(["run", "--allow-read", "main.ts", "policy.jsonc"], { cwd: project }),
    );

    const bundled = await runDeno(["bundle", "--output", "bundle.js", "main.ts"], { cwd: project });
    assert.equal(bundled.code, 0, bundled.stderr);
    // No config, no lockfile, nothing cached and no downloads: the bundle carries jsonc-parser.
    assertServed(
      await runDeno(
        ["run", "--no-config", "--no-lock", "--cached-only", "--allow-read", "bundle.js"],
        { cwd: project, env: { DENO_DIR: emptyCache } },
      ),
    );
  } finally {
    await Deno.remove(project, { recursive: true });
    await Deno.remove(emptyCache, { recursive: true });
  }
});
