/**
 * The order desk under its policy, as `deno task start:guarded` runs it: a
 * child process with `--allow-read=examples` (policy, skill, app) and no other
 * permission, spoken to over real pipes. Also: a bad policy file stops it
 * with exit code 2, and `--audit FILE` (with `--allow-write=FILE`) survives
 * EOF and SIGTERM with every entry written.
 */

import assert from "node:assert/strict";
import { isRecord, resultOf, within } from "../_helpers/helpers.ts";
import { ROOT, type ServerProcess, spawnServer } from "../_helpers/subprocess.ts";
import { verifyAuditLog } from "../../src/guardrails/audit/verify.ts";

const decoder = new TextDecoder();
/** The note on ORD-2 holds this partner API key; the policy's ODK rule masks it. */
const ODK_KEY = "ODK-4f9a8b7c6d5e4f3a2b1c0d9e8f7a";
const MASK = "[REDACTED]";

/** The `deno run` arguments of a task in deno.json, so the test runs exactly what the task runs. */
async function taskArgs(task: string): Promise<string[]> {
  const config: unknown = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  assert.ok(isRecord(config) && isRecord(config.tasks));
  const command = config.tasks[task];
  assert.equal(typeof command, "string");
  const [deno, ...args] = String(command).split(" ");
  assert.equal(deno, "deno");
  return args;
}

/** The order desk as a child process run with `args`, with a JSON-RPC client over its pipes. */
function spawnDesk(args: string[]): ServerProcess {
  return spawnServer(args, { clientName: "guarded-test" });
}

function errorOf(reply: Record<string, unknown>): Record<string, unknown> {
  assert.ok(isRecord(reply.error), `expected an error, got ${JSON.stringify(reply)}`);
  return reply.error;
}

function textOf(result: Record<string, unknown>, key: "content" | "contents"): string {
  const list = result[key];
  assert.ok(Array.isArray(list) && list.length === 1, JSON.stringify(result));
  const [item] = list;
  assert.ok(isRecord(item) && typeof item.text === "string", JSON.stringify(result));
  return item.text;
}

/** Audit entries among stderr lines: the JSON objects with a `seq`. */
function auditLines(stderr: readonly string[]): Record<string, unknown>[] {
  const entries: Record<string, unknown>[] = [];
  for (const line of stderr) {
    if (!line.startsWith("{")) continue;
    const value: unknown = JSON.parse(line);
    // The chain's genesis and checkpoint lines are not call entries.
    if (isRecord(value) && typeof value.seq === "number" && !("event" in value)) {
      entries.push(value);
    }
  }
  return entries;
}

/** Every stdout line is one JSON-RPC reply to a request, and there is one per request. */
function assertOnlyReplies(stdout: readonly string[], requests: number): void {
  assert.equal(stdout.length, requests, "one line per request, nothing else");
  for (const line of stdout) {
    const reply: unknown = JSON.parse(line);
    assert.ok(isRecord(reply) && reply.jsonrpc === "2.0", line);
    assert.ok(typeof reply.id === "number", line);
    assert.ok(("result" in reply) !== ("error" in reply), line);
  }
}

Deno.test("deno task start:guarded hides and refuses cancel_order, limits get_order and masks the key", async () => {
  const args = await taskArgs("start:guarded");
  assert.deepEqual(args, [
    "run",
    "--allow-read=examples",
    "examples/orders.ts",
    "--policy",
    "examples/policy.jsonc",
  ]);
  const desk = spawnDesk(args);
  try {
    await desk.initialize();
    const tools = resultOf(await desk.call("tools/list")).tools;
    assert.ok(Array.isArray(tools));
    const names = tools.map((tool: unknown) => (isRecord(tool) ? tool.name : undefined));
    assert.ok(names.includes("get_order"), JSON.stringify(names));
    assert.ok(!names.includes("cancel_order"), JSON.stringify(names));

    const cancel = await desk.call("tools/call", {
      name: "cancel_order",
      arguments: { order_id: "ORD-1" },
    });
    assert.deepEqual(errorOf(cancel), {
      code: -32001,
      message: 'Access denied: tool "cancel_order"',
    });

    // Six at once: the bucket holds five and refills one per second, far slower than this.
    const replies = await Promise.all(
      Array.from(
        { length: 6 },
        () => desk.call("tools/call", { name: "get_order", arguments: { order_id: "ORD-2" } }),
      ),
    );
    const passed = replies.filter((reply) => "result" in reply);
    const limited = replies.filter((reply) => "error" in reply);
    assert.equal(passed.length, 5);
    assert.equal(limited.length, 1);
    const error = errorOf(limited[0] ?? {});
    assert.equal(error.code, -32002);
    assert.ok(isRecord(error.data), JSON.stringify(error));
    const seconds = error.data.retry_after_seconds;
    assert.ok(typeof seconds === "number" && Number.isInteger(seconds) && seconds >= 1);
    for (const reply of passed) {
      const order = JSON.parse(textOf(resultOf(reply), "content"));
      assert.equal(order.notes, `Paid through the partner API with key ${MASK}`);
    }

    const read = resultOf(await desk.call("resources/read", { uri: "orders://ORD-2" }));
    assert.equal(
      JSON.parse(textOf(read, "contents")).notes,
      `Paid through the partner API with key ${MASK}`,
    );

    // The desk's skill and its order board, under the same policy, audited like any resource.
    const skill = resultOf(await desk.call("skills/get", { uri: "skill://order-desk/SKILL.md" }));
    assert.ok(isRecord(skill.skill) && isRecord(skill.skill.frontmatter));
    assert.equal(skill.skill.frontmatter.name, "order-desk");
    const board = resultOf(await desk.call("resources/read", { uri: "ui://order-desk/board" }));
    assert.match(textOf(board, "contents"), /ui\/initialize/);

    await desk.closeInput();
    const status = await within(desk.status, 10_000, "the example to exit after EOF");
    assert.equal(status.code, 0);
    await within(desk.pipesDone(), 5_000, "the pipes to end");

    assertOnlyReplies(desk.stdout, desk.requests());
    assert.ok(!desk.stdout.join("\n").includes(ODK_KEY), "the key never reaches stdout");
    // One audit line per guarded call: 1 cancel_order, 6 get_order, 2 resources/read, 1 skills/get.
    const entries = auditLines(desk.stderr);
    assert.equal(entries.length, 10);
    assert.deepEqual(entries.map((entry) => entry.seq), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    assert.deepEqual(
      entries.map((entry) => entry.outcome).sort(),
      ["denied", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "rate_limited"],
    );
    const other = desk.stderr.filter((line) => line.trim() !== "" && !line.startsWith("{"));
    assert.equal(other.length, 1, JSON.stringify(other));
    assert.match(other[0] ?? "", /^order-desk: ready on stdio/);
    assert.ok(!desk.stderr.join("\n").includes(ODK_KEY), "nor stderr");
  } finally {
    await desk.cleanUp();
  }
});

/** Runs the example once with stdin closed; returns its exit code and output. */
async function runOnce(args: string[]) {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code, stdout: decoder.decode(stdout), stderr: decoder.decode(stderr) };
}

async function withTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "warden-guarded-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a bad policy file stops the example with exit code 2 and file:line:col on stderr", async () => {
  await withTempDir(async (dir) => {
    const cases: [file: string, text: string, message: string][] = [
      [
        "syntax.jsonc",
        '{\n    "principal": "a"\n    "audit": "stderr"\n}\n',
        "Cannot parse policy {file}: expected ',' at 3:5",
      ],
      [
        "shape.jsonc",
        '{ "access": { "tools": { "deney": ["cancel_order"] } } }',
        'Cannot load policy {file}: access: Invalid access policy: unknown key "deney" at tools, expected one of allow, deny',
      ],
    ];
    for (const [name, text, message] of cases) {
      const file = `${dir}/${name}`;
      await Deno.writeTextFile(file, text);
      const result = await runOnce([
        "run",
        `--allow-read=${file}`,
        "examples/orders.ts",
        "--policy",
        file,
      ]);
      assert.deepEqual(result, {
        code: 2,
        stdout: "",
        stderr: `order-desk: ${message.replace("{file}", file)}\n`,
      }, name);
    }
  });
});

Deno.test("a policy file the process may not read stops it with exit code 2", async () => {
  await withTempDir(async (dir) => {
    const file = `${dir}/policy.jsonc`;
    await Deno.writeTextFile(file, "{}");
    const denied = await runOnce(["run", "examples/orders.ts", "--policy", file]);
    assert.equal(denied.code, 2);
    assert.equal(denied.stdout, "");
    assert.match(
      denied.stderr,
      new RegExp(`^order-desk: Cannot read policy ${file}: .*read access`),
    );
    const missing = await runOnce([
      "run",
      `--allow-read=${dir}`,
      "examples/orders.ts",
      "--policy",
      `${dir}/missing.jsonc`,
    ]);
    assert.equal(missing.code, 2);
    assert.equal(missing.stdout, "");
    assert.match(missing.stderr, /^order-desk: Cannot read policy .*missing\.jsonc: ENOENT/);
  });
});

/** The guarded task's flags plus an audit file: the minimal permissions, nothing broader. */
function auditArgs(file: string): string[] {
  return [
    "run",
    "--allow-read=examples/policy.jsonc",
    `--allow-write=${file}`,
    "examples/orders.ts",
    "--policy",
    "examples/policy.jsonc",
    "--audit",
    file,
  ];
}

/** The call entries of an audit file, after checking that the whole file verifies. */
async function fileLines(path: string): Promise<Record<string, unknown>[]> {
  const text = await Deno.readTextFile(path);
  assert.ok(text.endsWith("\n"), "the last line is complete");
  assert.deepEqual(verifyAuditLog(text).error, undefined, "the audit file verifies");
  const lines: Record<string, unknown>[] = text.slice(0, -1).split("\n").map((line) =>
    JSON.parse(line)
  );
  return lines.filter((line) => !("event" in line));
}

/** Three guarded calls with different outcomes. */
async function threeCalls(desk: ServerProcess): Promise<void> {
  await desk.initialize();
  await desk.call("tools/call", { name: "get_order", arguments: { order_id: "ORD-1" } });
  await desk.call("tools/call", { name: "cancel_order", arguments: { order_id: "ORD-1" } });
  await desk.call("resources/read", { uri: "orders://ORD-2" });
}

Deno.test("--audit FILE with --allow-write=FILE writes one line per call after stdin EOF", async () => {
  await withTempDir(async (dir) => {
    const file = `${dir}/audit.jsonl`;
    const desk = spawnDesk(auditArgs(file));
    try {
      await threeCalls(desk);
      await desk.closeInput();
      const status = await within(desk.status, 10_000, "the example to exit after EOF");
      assert.equal(status.code, 0);
      await desk.pipesDone();
      const entries = await fileLines(file);
      assert.deepEqual(entries.map((entry) => [entry.seq, entry.name, entry.outcome]), [
        [1, "get_order", "ok"],
        [2, "cancel_order", "denied"],
        [3, "orders://ORD-2", "ok"],
      ]);
      // --audit replaced the policy's stderr audit: nothing but the ready line there.
      assert.deepEqual(auditLines(desk.stderr), []);
      assertOnlyReplies(desk.stdout, desk.requests());
    } finally {
      await desk.cleanUp();
    }
  });
});

Deno.test("SIGTERM during a session flushes the audit file and exits with 143", {
  ignore: Deno.build.os === "windows",
}, async () => {
  await withTempDir(async (dir) => {
    const file = `${dir}/audit.jsonl`;
    const desk = spawnDesk(auditArgs(file));
    try {
      await threeCalls(desk);
      // Every reply is in; stdin stays open, so only the signal ends the session.
      desk.child.kill("SIGTERM");
      const status = await within(desk.status, 10_000, "the example to exit after SIGTERM");
      // Exited by its own handler (process.exit(143)), not killed by the signal.
      assert.deepEqual([status.code, status.signal], [143, null]);
      await desk.pipesDone();
      const entries = await fileLines(file);
      assert.equal(entries.length, 3);
      assert.deepEqual(entries.map((entry) => entry.seq), [1, 2, 3]);
      assertOnlyReplies(desk.stdout, desk.requests());
    } finally {
      await desk.cleanUp();
    }
  });
});

Deno.test({
  name:
    "--audit FILE the process cannot write stops it with exit code 2 instead of running unaudited",
  fn: async () => {
    await withTempDir(async (dir) => {
      const file = `${dir}/audit.jsonl`;
      const result = await runOnce([
        "run",
        "--allow-read=examples/policy.jsonc",
        "examples/orders.ts",
        "--policy",
        "examples/policy.jsonc",
        "--audit",
        file,
      ]);
      assert.equal(result.code, 2);
      assert.equal(result.stdout, "");
      assert.match(result.stderr, /^order-desk: .*audit.*audit\.jsonl/);
    });
  },
});

Deno.test("two runs of the example on one audit file: the second continues the seq and chain", async () => {
  await withTempDir(async (dir) => {
    const file = `${dir}/audit.jsonl`;
    // Reading the file's last line is what lets a run continue it.
    const args = auditArgs(file).map((arg) =>
      arg === "--allow-read=examples/policy.jsonc" ? `${arg},${file}` : arg
    );
    for (let run = 0; run < 2; run++) {
      const desk = spawnDesk(args);
      try {
        await threeCalls(desk);
        await desk.closeInput();
        assert.equal((await within(desk.status, 10_000, "the example to exit")).code, 0);
        await desk.pipesDone();
        assert.ok(
          !desk.stderr.some((line) => line.includes("audit sink failed")),
          desk.stderr.join("\n"),
        );
      } finally {
        await desk.cleanUp();
      }
    }
    const text = await Deno.readTextFile(file);
    const lines = text.slice(0, -1).split("\n").map((line) => JSON.parse(line));
    assert.deepEqual(lines.map((line) => line.seq), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.deepEqual(lines.map((line) => line.event ?? "call"), [
      "genesis",
      "call",
      "call",
      "call",
      "checkpoint",
      "genesis",
      "call",
      "call",
      "call",
      "checkpoint",
    ]);
    const report = verifyAuditLog(text);
    assert.deepEqual(report, { ok: true, lines: 10, entries: 6, chains: 2, checkpoint: true });
  });
});
