/**
 * `--quota NAME=N`: read, checked, and handed to `createServer()` through
 * the setup.
 */

import assert from "node:assert/strict";
import { parseServerFlags, setupFromFlags, usage } from "../../src/setup/flags.ts";
import { parseQuotaFlags } from "../../src/setup/quota_flags.ts";

const IDENTITY = { name: "desk", version: "1.2.3" };

Deno.test("parseServerFlags() reads repeated --quota flags into quotas", async () => {
  const parsed = await parseServerFlags(
    ["--quota", "tasks=5", "--quota=inflightCalls=8", "--quota", "tasks=6"],
    IDENTITY,
  );
  // The last of a repeated quota wins, as with the other flags.
  assert.deepEqual(parsed, { action: "run", flags: { quotas: { tasks: 6, inflightCalls: 8 } } });
  assert.ok(usage(IDENTITY).includes("  --quota NAME=N"));
});

Deno.test("parseServerFlags() refuses a malformed or unknown --quota with the reason", async () => {
  const cases: [string, RegExp][] = [
    ["tasks", /--quota needs NAME=N with NAME one of tasks, listenStreams/],
    ["bogus=3", /got "bogus=3"/],
    ["__proto__=3", /got "__proto__=3"/],
    ["constructor=3", /got "constructor=3"/],
    ["tasks=0", /--quota tasks must be a positive integer, got "tasks=0"/],
    ["tasks=-1", /NAME=N/],
    ["tasks=1.5", /NAME=N/],
    ["tasks=99999999999999999999", /--quota tasks must be a positive integer/],
  ];
  for (const [value, message] of cases) {
    const parsed = await parseServerFlags(["--quota", value], IDENTITY);
    assert.equal(parsed.action, "error", value);
    assert.match(parsed.action === "error" ? parsed.message : "", message, value);
    assert.equal(typeof parseQuotaFlags([value]), "string", value);
  }
});

Deno.test("setupFromFlags() passes --quota on as the server's quotas", async () => {
  assert.deepEqual((await setupFromFlags({ quotas: { listenStreams: 2 } })).quotas, {
    listenStreams: 2,
  });
  assert.equal((await setupFromFlags({})).quotas, undefined);
});

Deno.test("a policy file's quotas reach the setup, each overridden by a --quota naming it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const policy = `${dir}/policy.jsonc`;
    await Deno.writeTextFile(
      policy,
      '{ // quotas per principal\n "quotas": { "tasks": 3, "inflightCalls": 4 } }',
    );
    const setup = await setupFromFlags({ policy, quotas: { tasks: 5 } });
    assert.deepEqual(setup.quotas, { tasks: 5, inflightCalls: 4 });
    assert.deepEqual(setup.guardrails, []);
    for (
      const [quotas, message] of [
        ['{ "tasks": 0 }', /quotas\/tasks|quotas\.tasks/],
        ['{ "tasks": 1.5 }', /quotas\/tasks|quotas\.tasks/],
        ['{ "task": 2 }', /task/],
        ['{ "__proto__": 2 }', /__proto__/],
      ] as const
    ) {
      await Deno.writeTextFile(policy, `{ "quotas": ${quotas} }`);
      await assert.rejects(setupFromFlags({ policy }), message, quotas);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
