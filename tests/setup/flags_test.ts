/**
 * The standard server flags: `parseServerFlags()`, `setupFromFlags()`
 * (policy file plus overrides) and `serverSetup()` (prints and exits), the
 * last through the example server as a child process.
 */

import assert from "node:assert/strict";
import type { ServerSetup } from "../../src/setup/flags.ts";
import { MemoryTransport } from "../../testing.ts";
import {
  type FlagsResult,
  parseServerFlags,
  setupFromFlags,
  usage,
} from "../../src/setup/flags.ts";
import { createOrderDesk } from "../../examples/orders.ts";
import { errorOf, request, resultOf } from "../_helpers/helpers.ts";
import { type DenoOutput, runDeno } from "../_helpers/subprocess.ts";
import { verifyAuditLog } from "../../src/guardrails/audit/verify.ts";

/** The call entries of an audit log's text (not the chain's genesis and checkpoint lines). */
function callEntries(text: string): Record<string, unknown>[] {
  const lines: Record<string, unknown>[] = text.trimEnd().split("\n").map((line) =>
    JSON.parse(line)
  );
  return lines.filter((line) => !("event" in line));
}

const IDENTITY = { name: "desk", version: "1.2.3" };
const USAGE = usage(IDENTITY);

function errorResult(message: string): FlagsResult {
  return { action: "error", message, usage: USAGE };
}

Deno.test("usage() lists every flag under the program's name", () => {
  assert.ok(
    USAGE.startsWith("Usage: desk [--policy FILE.jsonc] [--audit FILE|-] [--principal NAME]"),
  );
  for (
    const flag of ["--policy FILE", "--audit FILE|-", "--principal NAME", "--help", "--version"]
  ) {
    assert.ok(USAGE.includes(`  ${flag}`), flag);
  }
});

Deno.test("parseServerFlags() reads each flag, in both spellings", async () => {
  const cases: [args: string[], expected: FlagsResult][] = [
    [[], { action: "run", flags: {} }],
    [["--policy", "p.jsonc"], { action: "run", flags: { policy: "p.jsonc" } }],
    [["--policy=p.jsonc"], { action: "run", flags: { policy: "p.jsonc" } }],
    [["--audit", "-"], { action: "run", flags: { audit: "-" } }],
    [["--audit", "audit.jsonl"], { action: "run", flags: { audit: "audit.jsonl" } }],
    [["--principal", "alice"], { action: "run", flags: { principal: "alice" } }],
    [["--principal=-"], { action: "run", flags: { principal: "-" } }],
    [
      ["--principal", "bob", "--audit", "-", "--policy", "p.jsonc"],
      { action: "run", flags: { policy: "p.jsonc", audit: "-", principal: "bob" } },
    ],
    // The last of a repeated flag wins, as with most command-line tools.
    [["--policy", "a.jsonc", "--policy", "b.jsonc"], {
      action: "run",
      flags: { policy: "b.jsonc" },
    }],
    [["--help"], { action: "help", text: USAGE }],
    [["-h"], { action: "help", text: USAGE }],
    [["--policy", "p.jsonc", "--help"], { action: "help", text: USAGE }],
    [["--help", "--version"], { action: "help", text: USAGE }],
    [["--version"], { action: "version", text: "desk 1.2.3" }],
  ];
  for (const [args, expected] of cases) {
    assert.deepEqual(await parseServerFlags(args, IDENTITY), expected, JSON.stringify(args));
  }
});

Deno.test("parseServerFlags() answers a bad command line with the reason and the usage", async () => {
  const cases: [args: string[], message: string][] = [
    [["--bogus"], "Unknown option '--bogus'"],
    [["--Policy", "p.jsonc"], "Unknown option '--Policy'"],
    [["-p", "p.jsonc"], "Unknown option '-p'"],
    // An unknown flag is an error even next to --help or --version: nothing runs half-understood.
    [["--version", "--bogus"], "Unknown option '--bogus'"],
    [["--policy"], "Option '--policy <value>' argument missing"],
    [["--principal"], "Option '--principal <value>' argument missing"],
    [["--policy", ""], "--policy needs a value"],
    [["--audit="], "--audit needs a value"],
    [["--help=yes"], "Option '-h, --help' does not take an argument"],
    [
      ["policy.jsonc"],
      "Unexpected argument 'policy.jsonc'. This command does not take positional arguments",
    ],
    [
      ["--", "policy.jsonc"],
      "Unexpected argument 'policy.jsonc'. This command does not take positional arguments",
    ],
  ];
  for (const [args, message] of cases) {
    assert.deepEqual(
      await parseServerFlags(args, IDENTITY),
      errorResult(message),
      JSON.stringify(args),
    );
  }
  // A flag where a value belongs is not taken as the value.
  const swallowed = await parseServerFlags(["--audit", "--principal", "x"], IDENTITY);
  assert.equal(swallowed.action, "error");
  assert.match(
    swallowed.action === "error" ? swallowed.message : "",
    /'--audit' argument is ambiguous/,
  );
});

/** A temp dir with a policy file in it, removed afterwards. */
async function withPolicy(
  text: string,
  fn: (dir: string, policy: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "warden-flags-" });
  try {
    const policy = `${dir}/policy.jsonc`;
    await Deno.writeTextFile(policy, text);
    await fn(dir, policy);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Runs one session of `messages` on the order desk built from `setup`; replies by id. */
async function runDesk(setup: ServerSetup, messages: unknown[]): Promise<Map<unknown, unknown>> {
  const server = createOrderDesk(setup);
  const transport = new MemoryTransport(messages);
  await server.connect(transport);
  await server.close();
  const replies = new Map<unknown, unknown>();
  for (const reply of transport.replies) {
    if (typeof reply === "object" && reply !== null && "id" in reply) replies.set(reply.id, reply);
  }
  return replies;
}

/** Captures what the stderr audit sink writes while `fn` runs. */
async function captureStderr(fn: () => Promise<void>): Promise<string> {
  const stderr = Deno.stderr;
  const original = stderr.writeSync;
  let text = "";
  // The stderr audit sink writes synchronously through Deno.stderr.
  stderr.writeSync = (chunk: Uint8Array): number => {
    text += new TextDecoder().decode(chunk);
    return chunk.length;
  };
  try {
    await fn();
  } finally {
    stderr.writeSync = original;
  }
  return text;
}

const GET_ORDER = request(1, "tools/call", { name: "get_order", arguments: { order_id: "ORD-1" } });
const CANCEL_ORDER = request(2, "tools/call", {
  name: "cancel_order",
  arguments: { order_id: "ORD-1" },
});

Deno.test("setupFromFlags() with no flags sets up nothing", async () => {
  assert.deepEqual(await setupFromFlags({}), { guardrails: [] });
});

Deno.test("setupFromFlags() builds the policy file's guardrails and principal", async () => {
  await withPolicy(
    '{ "principal": "alice", "access": { "tools": { "deny": ["cancel_order"] } } }',
    async (_dir, policy) => {
      const setup = await setupFromFlags({ policy });
      assert.equal(setup.principal, "alice");
      // The principal travels on the guardrails too, so createServer applies it without help.
      assert.deepEqual(setup.guardrails.map((guardrail) => guardrail.name), [
        "principal",
        "access-policy",
      ]);
      const replies = await runDesk(setup, [GET_ORDER, CANCEL_ORDER]);
      resultOf(replies.get(1));
      assert.equal(errorOf(replies.get(2)).code, -32001);
    },
  );
});

Deno.test("setupFromFlags() lets --principal override the policy's principal", async () => {
  await withPolicy(
    JSON.stringify({
      principal: "alice",
      access: { principals: { alice: { tools: { deny: ["get_order"] } } } },
    }),
    async (_dir, policy) => {
      const setup = await setupFromFlags({ policy, principal: "bob" });
      assert.equal(setup.principal, "bob");
      // alice's deny does not apply to bob.
      resultOf((await runDesk(setup, [GET_ORDER])).get(1));
      const asAlice = await runDesk(await setupFromFlags({ policy }), [GET_ORDER]);
      assert.equal(errorOf(asAlice.get(1)).code, -32001);
    },
  );
});

Deno.test("setupFromFlags() lets --audit FILE override the policy's stderr audit", async () => {
  await withPolicy('{ "audit": "stderr" }', async (dir, policy) => {
    const file = `${dir}/audit.jsonl`;
    const setup = await setupFromFlags({ policy, audit: file });
    const stderr = await captureStderr(async () => {
      await runDesk(setup, [GET_ORDER, CANCEL_ORDER]);
    });
    assert.equal(stderr, "");
    const text = await Deno.readTextFile(file);
    assert.deepEqual(verifyAuditLog(text).error, undefined);
    assert.deepEqual(callEntries(text).map((entry) => entry.name), ["get_order", "cancel_order"]);
  });
});

Deno.test("setupFromFlags() lets --audit - override the policy's audit file", async () => {
  await withPolicy('{ "audit": { "file": "never-written.jsonl" } }', async (dir, policy) => {
    const setup = await setupFromFlags({ policy, audit: "-" });
    const stderr = await captureStderr(async () => {
      await runDesk(setup, [GET_ORDER]);
    });
    // One call entry, in a per-process chain that verifies.
    const entries = callEntries(stderr);
    assert.equal(entries.length, 1, stderr);
    assert.equal(entries[0]?.name, "get_order");
    assert.deepEqual(verifyAuditLog(stderr).error, undefined);
    await assert.rejects(Deno.stat(`${dir}/never-written.jsonl`), Deno.errors.NotFound);
    await assert.rejects(Deno.stat("never-written.jsonl"), Deno.errors.NotFound);
  });
});

Deno.test("setupFromFlags() adds an audit log with --audit when the policy has none", async () => {
  await withPolicy("{}", async (dir, policy) => {
    const file = `${dir}/audit.jsonl`;
    const setup = await setupFromFlags({ policy, audit: file });
    assert.deepEqual(setup.guardrails.map((guardrail) => guardrail.name), ["audit-log"]);
    await runDesk(setup, [GET_ORDER]);
    assert.equal(callEntries(await Deno.readTextFile(file)).length, 1);
  });
});

Deno.test("setupFromFlags() rejects a bad or missing policy file with its name", async () => {
  await withPolicy('{\n  "audit": "stderr",\n}\n}', async (dir, policy) => {
    await assert.rejects(
      setupFromFlags({ policy }),
      SyntaxError,
      `Cannot parse policy ${policy}: expected the end of the file at 4:1`,
    );
    await assert.rejects(
      setupFromFlags({ policy: `${dir}/missing.jsonc` }),
      Error,
      `Cannot read policy ${dir}/missing.jsonc: ENOENT`,
    );
  });
});

/** Runs the example with `args` and closed stdin; returns its exit code and output. */
function runExample(args: string[]): Promise<DenoOutput> {
  return runDeno(["run", "examples/orders.ts", ...args]);
}

Deno.test("serverSetup() prints --help and --version on stdout and exits 0", async () => {
  const desk = { name: "order-desk", version: "0.1.0" };
  for (
    const [args, text] of [
      [["--help"], usage(desk)],
      [["--version"], "order-desk 0.1.0"],
    ] as const
  ) {
    const result = await runExample([...args]);
    assert.deepEqual(result, { code: 0, stdout: `${text}\n`, stderr: "" }, args[0]);
  }
});

Deno.test("serverSetup() prints a bad flag and the usage on stderr and exits 2", async () => {
  const result = await runExample(["--polcy", "examples/policy.jsonc"]);
  assert.deepEqual(result, {
    code: 2,
    stdout: "",
    stderr: `order-desk: Unknown option '--polcy'\n\n${
      usage({ name: "order-desk", version: "0.1.0" })
    }\n`,
  });
});
