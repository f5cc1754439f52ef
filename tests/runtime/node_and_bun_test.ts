/**
 * The same server modules on Node and Bun: Bun runs `examples/orders.ts`
 * and the plain fixture from source; Node 20+ runs a `deno bundle` of the
 * plain fixture. Each is spoken to over stdio and over HTTP (JSON and SSE
 * answers, a foreign Host refused, SIGTERM with calls in flight). A runtime
 * that is not installed skips its tests with a message saying so.
 */

import assert from "node:assert/strict";
import { isRecord, within } from "../_helpers/helpers.ts";
import {
  auditedIds,
  auditEntries,
  connect,
  serve,
  type Served,
} from "../_helpers/http_faults_helpers.ts";
import { ROOT } from "../_helpers/subprocess.ts";

async function versionOf(command: string): Promise<string | undefined> {
  try {
    const { success, stdout } = await new Deno.Command(command, {
      args: ["--version"],
      stdout: "piped",
      stderr: "null",
    }).output();
    return success ? new TextDecoder().decode(stdout).trim() : undefined;
  } catch {
    return undefined;
  }
}

const BUN = await versionOf("bun");
const NODE = await versionOf("node");
const NODE_MAJOR = Number(/^v(\d+)\./.exec(NODE ?? "")?.[1] ?? 0);
if (BUN === undefined) {
  console.warn(
    "node_and_bun_test: bun is not installed (.ci/run installs it); the Bun tests are skipped",
  );
}
if (NODE_MAJOR < 20) {
  console.warn(
    `node_and_bun_test: Node 20+ is not installed (found ${NODE}); the Node tests are skipped`,
  );
}

const INITIALIZE = {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "runtime-test", version: "1.0.0" },
};

function textOf(reply: Record<string, unknown> | null): unknown {
  const result = reply?.result;
  if (!isRecord(result) || !Array.isArray(result.content)) return undefined;
  const first: unknown = result.content[0];
  return isRecord(first) ? first.text : undefined;
}

function toolNames(reply: Record<string, unknown>): unknown[] {
  const result = reply.result;
  assert.ok(isRecord(result) && Array.isArray(result.tools), JSON.stringify(reply));
  return result.tools.map((tool: unknown) => (isRecord(tool) ? tool.name : undefined)).sort();
}

/** initialize, tools/list and one tools/call over the child's stdio, then EOF and exit 0. */
async function overStdio(
  served: Served,
  tools: string[],
  call: { name: string; arguments: Record<string, unknown>; text: RegExp },
): Promise<void> {
  const init = await served.request(1, "initialize", INITIALIZE);
  assert.ok(isRecord(init.result), JSON.stringify(init));
  await served.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  assert.deepEqual(toolNames(await served.request(2, "tools/list")), tools);
  const reply = await served.request(3, "tools/call", {
    name: call.name,
    arguments: call.arguments,
  });
  assert.match(String(textOf(reply)), call.text, JSON.stringify(reply));
  await served.send(null).catch(() => {}); // not a message: skipped with a note, never fatal
  const status = await within(closeAndWait(served), 10_000, "the server to exit after EOF");
  assert.equal(status.code, 0, served.stderr.join("\n"));
}

async function closeAndWait(served: Served): Promise<Deno.CommandStatus> {
  await served.closeInput();
  return await served.status;
}

/** The status line's code of a raw request with `host` as its Host header. */
async function rawStatus(url: string, host: string): Promise<number> {
  const { hostname, port, pathname } = new URL(url);
  const connection = await Deno.connect({ hostname, port: Number(port) });
  try {
    const body = "{}";
    await connection.write(new TextEncoder().encode(
      `POST ${pathname} HTTP/1.1\r\nHost: ${host}\r\ncontent-type: application/json\r\n` +
        `accept: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
    ));
    const buffer = new Uint8Array(4096);
    const count = await connection.read(buffer);
    const head = new TextDecoder().decode(buffer.subarray(0, count ?? 0));
    return Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
  } finally {
    connection.close();
  }
}

/**
 * A POST whose body stops half-way: resolves to the answer's status and
 * whether the server closed the connection within `ms`.
 */
async function stalledBody(url: string, ms: number): Promise<{ status: number; closed: boolean }> {
  const { hostname, port, pathname } = new URL(url);
  const connection = await Deno.connect({ hostname, port: Number(port) });
  let text = "";
  let closed = false;
  const reading = (async () => {
    const buffer = new Uint8Array(4096);
    while (true) {
      const count = await connection.read(buffer).catch(() => null);
      if (count === null) {
        closed = true;
        return;
      }
      text += new TextDecoder().decode(buffer.subarray(0, count));
    }
  })();
  await connection.write(new TextEncoder().encode(
    `POST ${pathname} HTTP/1.1\r\nHost: localhost\r\ncontent-type: application/json\r\n` +
      `accept: application/json\r\ncontent-length: 100\r\n\r\n{"jsonrpc":`,
  ));
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([reading, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
  try {
    connection.close();
  } catch {
    // The server closed it first.
  }
  await reading;
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), closed };
}

/**
 * Over HTTP on the host's server: a JSON answer, an SSE answer (a progress
 * token makes the call stream), a foreign Host refused, a stalled body cut
 * with 408, then SIGTERM with calls in flight: they finish, each has its
 * audit line, the exit is 143.
 */
async function overHttp(
  command: string,
  args: string[],
  audit: string,
  closesStalled: boolean,
): Promise<void> {
  const served = await serve(
    command,
    [...args, "--http", "127.0.0.1:0", "--audit", audit],
    { PLAIN_BODY_TIMEOUT_MS: "300" },
  );
  try {
    const client = await connect(served.url);
    const echo = await client.call(1, "tools/call", { name: "echo", arguments: { text: "hi" } });
    assert.equal(echo.status, 200);
    assert.equal(textOf(echo.reply), "hi");

    const session = await client.call(2, "tools/list");
    assert.deepEqual(session.reply === null ? [] : toolNames(session.reply), ["echo", "slow"]);

    const streamed = await client.raw(3, "tools/call", {
      name: "slow",
      arguments: { ms: 50, tag: "sse" },
      _meta: { progressToken: "p" },
    });
    assert.equal(streamed.type, "text/event-stream", streamed.body);
    assert.match(streamed.body, /notifications\/progress/);
    assert.match(streamed.body, /"text":"done sse"/);

    assert.equal(await rawStatus(served.url, "a b"), 403);
    assert.equal(await rawStatus(served.url, "[::1].evil.example"), 403);

    const stalled = await stalledBody(served.url, closesStalled ? 3000 : 1000);
    assert.equal(stalled.status, 408);
    // Deno's own server keeps draining the body; Node's and Bun's close the connection.
    if (closesStalled) assert.ok(stalled.closed, "the stalled connection was kept open");

    const calls = Array.from({ length: 6 }, (_, index) =>
      client.call(10 + index, "tools/call", {
        name: "slow",
        arguments: { ms: 300 + 20 * index, tag: String(index) },
      }).catch((error: unknown) => ({ status: 0, reply: { error: String(error) } })));
    await within(served.waitFor(/slow started \d/, 6), 10_000, "the slow calls to start");
    served.child.kill("SIGTERM");
    const answers = await within(Promise.all(calls), 10_000, "the in-flight calls");
    answers.forEach(({ status, reply }, index) => {
      assert.equal(status, 200, JSON.stringify(reply));
      assert.equal(textOf(reply), `done ${index}`);
    });
    const status = await within(served.status, 10_000, "the server to exit after SIGTERM");
    assert.deepEqual([status.code, status.signal], [143, null], served.stderr.join("\n"));
    const ids = auditedIds(await auditEntries(audit));
    for (const id of [1, 3, 10, 11, 12, 13, 14, 15]) {
      assert.ok(ids.has(id), `no audit line for ${id}`);
    }
  } finally {
    await served.cleanUp();
  }
}

Deno.test({
  name: "Bun runs examples/orders.ts over stdio",
  ignore: BUN === undefined,
  fn: async () => {
    const served = await serve("bun", ["examples/orders.ts"]);
    try {
      await overStdio(served, ["add", "cancel_order", "export_orders", "get_order", "report"], {
        name: "get_order",
        arguments: { order_id: "ORD-1" },
        text: /"customer": "Ada"/,
      });
    } finally {
      await served.cleanUp();
    }
  },
});

Deno.test({
  name: "Bun serves a plain server module over HTTP with Bun.serve, and shuts down on SIGTERM",
  ignore: BUN === undefined,
  fn: async () => {
    const dir = await Deno.makeTempDir();
    try {
      await overHttp("bun", ["tests/fixtures/plain_server.ts"], `${dir}/audit.jsonl`, true);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

/** `deno bundle` of the plain fixture for Node, into `dir`. */
async function bundleForNode(dir: string): Promise<string> {
  const output = `${dir}/plain_server.mjs`;
  const { success, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--platform", "node", "-o", output, "tests/fixtures/plain_server.ts"],
    cwd: ROOT,
    stdout: "null",
    stderr: "piped",
  }).output();
  assert.ok(success, new TextDecoder().decode(stderr));
  return output;
}

Deno.test({
  name: "Node runs a deno bundle of a plain server module over stdio",
  ignore: NODE_MAJOR < 20,
  fn: async () => {
    const dir = await Deno.makeTempDir();
    try {
      const bundle = await bundleForNode(dir);
      const served = await serve("node", [bundle]);
      try {
        await overStdio(served, ["echo", "slow"], {
          name: "echo",
          arguments: { text: "from node" },
          text: /^from node$/,
        });
      } finally {
        await served.cleanUp();
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "Node serves a deno bundle of a plain server module over HTTP with node:http, and shuts down on SIGTERM",
  ignore: NODE_MAJOR < 20,
  fn: async () => {
    const dir = await Deno.makeTempDir();
    try {
      await overHttp("node", [await bundleForNode(dir)], `${dir}/audit.jsonl`, true);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("Deno serves the plain server module over HTTP and shuts down on SIGTERM", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await overHttp(
      Deno.execPath(),
      [
        "run",
        "--allow-net=127.0.0.1",
        `--allow-write=${dir}`,
        "--allow-env=PLAIN_GRACE_MS,PLAIN_BODY_TIMEOUT_MS",
        "tests/fixtures/plain_server.ts",
      ],
      `${dir}/audit.jsonl`,
      false,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
