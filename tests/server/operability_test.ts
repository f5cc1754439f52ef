/**
 * What an operator sees, tried with real processes: a handler that throws
 * is logged on stderr (masked, with its stack unless `logStacks` is off); a
 * shared store that cannot be reached at start, or is not permitted, stops
 * the server with one line and exit 1; stdin EOF ends a stdio server while
 * its store is down and a call is in flight.
 */

import assert from "node:assert/strict";
import { within } from "../_helpers/helpers.ts";
import { spawnServer } from "../_helpers/subprocess.ts";

const FIXTURE = "tests/fixtures/throwing_server.ts";
const SECRET = "ODK-abcdefgh1234";

/** A loopback port with nothing listening on it (bound, then released). */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** Waits until `lines` holds a line matching `pattern`. */
async function lineMatching(lines: readonly string[], pattern: RegExp, what: string) {
  for (let i = 0; i < 400; i++) {
    const line = lines.find((l) => pattern.test(l));
    if (line !== undefined) return line;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no ${what} on stderr: ${JSON.stringify(lines)}`);
}

const CALLS: readonly [string, Record<string, unknown>, RegExp][] = [
  ["tools/call", { name: "boom", arguments: {} }, /^warden: tool "boom" failed: Error: the tool/],
  ["resources/read", { uri: "test://boom" }, /^warden: reading resource 'test:\/\/boom' failed/],
  ["resources/read", { uri: "test://items/1" }, /^warden: reading 'test:\/\/items\/1' failed/],
  ["prompts/get", { name: "boom" }, /^warden: getting prompt 'boom' failed/],
  [
    "completion/complete",
    {
      ref: { type: "ref/resource", uri: "test://items/{id}" },
      argument: { name: "id", value: "" },
    },
    /^warden: completing "test:\/\/items\/\{id\}" failed/,
  ],
];

for (const stacks of [true, false]) {
  Deno.test(`a throwing tool, resource, template, prompt or completer is logged masked on stderr (stacks ${stacks ? "on" : "off"})`, async () => {
    const server = spawnServer(["run", "-A", FIXTURE, ...(stacks ? [] : ["--no-stacks"])]);
    try {
      await server.initialize();
      for (const [method, params, logged] of CALLS) {
        const before = server.stderr.length;
        const reply = await server.call(method, params);
        assert.ok(!JSON.stringify(reply).includes(SECRET), JSON.stringify(reply));
        const line = await lineMatching(server.stderr.slice(before), logged, method);
        assert.ok(line.includes("[REDACTED"), line);
        // The stack's frames follow the line, or (logStacks: false) not at all.
        const frames = server.stderr.slice(before).filter((l) => /^\s+at /.test(l));
        if (stacks) assert.ok(frames.length > 0, `${method}: no stack frames`);
        else assert.deepEqual(frames, [], method);
      }
      assert.ok(!server.stderr.join("\n").includes(SECRET), server.stderr.join("\n"));
    } finally {
      await server.cleanUp();
    }
  });
}

const STORE_CASES = [
  {
    what: "redis, nothing listening",
    permissions: ["-A"],
    url: () => `redis://127.0.0.1:${freePort()}/0`,
    reason: /ECONNREFUSED/,
  },
  {
    what: "redis, no --allow-net",
    permissions: ["--allow-read", "--allow-env"],
    url: () => `redis://127.0.0.1:${freePort()}/0`,
    reason: /Requires net access.*not retried/,
  },
  {
    what: "kv, no --allow-read",
    permissions: ["--unstable-kv"],
    url: () => `kv:${Deno.makeTempDirSync()}/store.kv`,
    reason: /Requires read access/,
  },
];

for (const { what, permissions, url: urlOf, reason } of STORE_CASES) {
  Deno.test(`a store that cannot be reached at start (${what}) stops the server with one line and exit 1`, async () => {
    const url = urlOf();
    for (const program of [FIXTURE, "examples/orders.ts"]) {
      const server = spawnServer(["run", ...permissions, program, "--store", url]);
      try {
        const status = await within(server.status, 15_000, `${program} to exit`);
        await server.pipesDone();
        assert.equal(status.code, 1, program);
        const lines = server.stderr.filter((line) => line.trim() !== "");
        assert.equal(lines.length, 1, `${program}: ${JSON.stringify(lines)}`);
        assert.match(lines[0] ?? "", reason);
        assert.ok(lines[0]?.includes(url), lines[0]);
        assert.deepEqual(server.stdout, [], program);
      } finally {
        await server.cleanUp();
      }
    }
  });
}

/** Starts a redis-server of our own on a free loopback port; undefined when there is none. */
async function startRedis(): Promise<{ port: number; stop: () => Promise<void> } | undefined> {
  const port = freePort();
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command("redis-server", {
      args: ["--bind", "127.0.0.1", "--port", String(port), "--save", "", "--appendonly", "no"],
      stdout: "null",
      stderr: "null",
    }).spawn();
  } catch {
    return undefined;
  }
  for (let i = 0; i < 100; i++) {
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port })).close();
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  const stop = async () => {
    try {
      child.kill("SIGKILL");
    } catch {
      // Gone already.
    }
    await child.status;
  };
  return { port, stop };
}

Deno.test("stdin EOF ends a stdio server whose store went down, with a call in flight", async () => {
  const redis = await startRedis();
  if (redis === undefined) {
    console.error("skipped: redis-server is not installed");
    return;
  }
  const url = `redis://127.0.0.1:${redis.port}/0`;
  const server = spawnServer(["run", "-A", FIXTURE, "--store", url]);
  try {
    await lineMatching(server.stderr, /^throwing: ready/, "the ready line");
    await server.initialize();
    const slow = server.call("tools/call", { name: "slow", arguments: {} });
    await redis.stop();
    await lineMatching(server.stderr, /is unreachable/, "the outage");
    const started = Date.now();
    await server.closeInput();
    const status = await within(server.status, 15_000, "the server to exit after EOF");
    assert.equal(status.code, 0);
    // The call in flight was answered (aborted after the grace period) before the end.
    const reply = await slow;
    assert.ok("error" in reply || "result" in reply, JSON.stringify(reply));
    assert.ok(Date.now() - started < 15_000);
  } finally {
    await server.cleanUp();
    await redis.stop();
  }
});
