/**
 * Shutdown and crashes with real processes: a server with a file audit log
 * gets concurrent slow calls and then SIGTERM (over HTTP and over stdio), or
 * SIGKILL with the durable audit mode. Whatever happens, every call that was
 * answered has its audit line.
 */

import assert from "node:assert/strict";
import { isRecord, within } from "../_helpers/helpers.ts";
import { auditedIds, auditEntries, connect, serve } from "../_helpers/http_faults_helpers.ts";

const FIXTURE = "tests/fixtures/plain_server.ts";

function denoArgs(dir: string, ...rest: string[]): string[] {
  return [
    "run",
    "--allow-net=127.0.0.1",
    `--allow-write=${dir}`,
    `--allow-read=${dir}`,
    "--allow-env=PLAIN_GRACE_MS,PLAIN_BODY_TIMEOUT_MS",
    ...rest,
  ];
}

function textOf(reply: Record<string, unknown> | null): unknown {
  const result = reply?.result;
  if (!isRecord(result) || !Array.isArray(result.content)) return undefined;
  const first: unknown = result.content[0];
  return isRecord(first) ? first.text : undefined;
}

const CALLS = 16;

Deno.test("SIGTERM on serveHttp lets in-flight calls finish, audits every one and exits 143", async () => {
  const dir = await Deno.makeTempDir();
  const audit = `${dir}/audit.jsonl`;
  const server = await serve(
    Deno.execPath(),
    denoArgs(dir, FIXTURE, "--http", "127.0.0.1:0", "--audit", audit),
  );
  try {
    const client = await connect(server.url);
    const calls = Array.from(
      { length: CALLS },
      (_, index) =>
        client.call(100 + index, "tools/call", {
          name: "slow",
          arguments: { ms: 400 + 20 * index, tag: String(index) },
        }).catch((error: unknown) => ({ status: 0, reply: { error: String(error) } })),
    );
    await within(server.waitFor(/slow started/, CALLS), 10_000, "every call to start");
    server.child.kill("SIGTERM");
    await within(server.waitFor(/SIGTERM received, shutting down/, 1), 10_000, "the signal");
    // Draining: a new request is refused, not run.
    const late = await client.call(999, "tools/call", { name: "echo", arguments: { text: "x" } })
      .catch(() => ({ status: 0, reply: null }));
    assert.notEqual(late.status, 200, JSON.stringify(late));

    const answers = await within(Promise.all(calls), 10_000, "the in-flight calls");
    answers.forEach(({ status, reply }, index) => {
      assert.equal(status, 200);
      assert.equal(textOf(reply), `done ${index}`, JSON.stringify(reply));
    });
    const status = await within(server.status, 10_000, "the server to exit");
    assert.deepEqual([status.code, status.signal], [143, null]);

    const entries = await auditEntries(audit);
    const ids = auditedIds(entries);
    for (let index = 0; index < CALLS; index++) {
      assert.ok(ids.has(100 + index), `no line for ${index}`);
    }
    assert.ok(!ids.has(999), "the refused call ran");
    for (const entry of entries) if (entry.request_id !== 0) assert.equal(entry.outcome, "ok");
  } finally {
    await server.cleanUp();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("SIGTERM on serveHttp aborts calls past the grace period, answers and audits them", async () => {
  const dir = await Deno.makeTempDir();
  const audit = `${dir}/audit.jsonl`;
  const server = await serve(
    Deno.execPath(),
    denoArgs(dir, FIXTURE, "--http", "127.0.0.1:0", "--audit", audit),
    { PLAIN_GRACE_MS: "300" },
  );
  try {
    const client = await connect(server.url);
    const calls = Array.from(
      { length: 4 },
      (_, index) =>
        client.call(200 + index, "tools/call", { name: "slow", arguments: { ms: 60_000 } }),
    );
    await within(server.waitFor(/slow started/, 4), 10_000, "every call to start");
    const signalled = Date.now();
    server.child.kill("SIGTERM");
    const answers = await within(Promise.all(calls), 10_000, "the aborted calls");
    for (const { status, reply } of answers) {
      assert.equal(status, 200);
      assert.ok(isRecord(reply?.error), JSON.stringify(reply));
      assert.equal(reply.error.code, -32603);
    }
    const status = await within(server.status, 10_000, "the server to exit");
    assert.deepEqual([status.code, status.signal], [143, null]);
    // The grace period, not the calls' minute.
    assert.ok(Date.now() - signalled < 5000, `took ${Date.now() - signalled} ms`);
    const ids = auditedIds(await auditEntries(audit));
    for (let index = 0; index < 4; index++) assert.ok(ids.has(200 + index), `no line for ${index}`);
  } finally {
    await server.cleanUp();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("SIGTERM on serveStdio lets in-flight calls finish, audits every one and exits 143", async () => {
  const dir = await Deno.makeTempDir();
  const audit = `${dir}/audit.jsonl`;
  const server = await serve(Deno.execPath(), denoArgs(dir, FIXTURE, "--audit", audit));
  try {
    await server.send({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "faults", version: "1.0.0" },
      },
    });
    await server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    for (let index = 0; index < CALLS; index++) {
      await server.send({
        jsonrpc: "2.0",
        id: 100 + index,
        method: "tools/call",
        params: { name: "slow", arguments: { ms: 300 + 20 * index, tag: String(index) } },
      });
    }
    await within(server.waitFor(/slow started/, CALLS), 10_000, "every call to start");
    server.child.kill("SIGTERM");
    const status = await within(server.status, 10_000, "the server to exit");
    assert.deepEqual([status.code, status.signal], [143, null]);
    const replies = server.stdout.filter((line) => line !== "").map((line) => JSON.parse(line));
    const answered = replies.filter((reply) => typeof reply.id === "number" && reply.id >= 100);
    assert.equal(answered.length, CALLS, server.stdout.join("\n"));
    for (const reply of answered) assert.equal(textOf(reply), `done ${reply.id - 100}`);
    const ids = auditedIds(await auditEntries(audit));
    for (const reply of answered) assert.ok(ids.has(reply.id), `no line for ${reply.id}`);
  } finally {
    await server.cleanUp();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("SIGKILL with --audit-durable: every answered call has its audit line", async () => {
  const dir = await Deno.makeTempDir();
  const audit = `${dir}/audit.jsonl`;
  const server = await serve(
    Deno.execPath(),
    denoArgs(dir, FIXTURE, "--http", "127.0.0.1:0", "--audit", audit, "--audit-durable"),
  );
  try {
    const client = await connect(server.url);
    const answered: number[] = [];
    let nextId = 1000;
    let killed = false;
    // Eight callers in a loop, until the kill cuts them off mid-flight.
    const caller = async (): Promise<void> => {
      while (!killed) {
        const id = nextId++;
        try {
          const { status, reply } = await client.call(id, "tools/call", {
            name: "echo",
            arguments: { text: String(id) },
          });
          if (status === 200 && textOf(reply) === String(id)) answered.push(id);
        } catch {
          return; // the connection died with the process
        }
      }
    };
    const callers = Array.from({ length: 8 }, caller);
    while (answered.length < 200) await new Promise((resolve) => setTimeout(resolve, 10));
    server.child.kill("SIGKILL");
    killed = true;
    await Promise.all(callers);
    const status = await server.status;
    assert.equal(status.signal, "SIGKILL");
    const ids = auditedIds(await auditEntries(audit));
    const missing = answered.filter((id) => !ids.has(id));
    assert.deepEqual(missing, [], `${missing.length} of ${answered.length} answered calls lost`);
  } finally {
    await server.cleanUp();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("examples/orders.ts --http: SIGTERM flushes the audit log and exits 143", async () => {
  const dir = await Deno.makeTempDir();
  const audit = `${dir}/audit.jsonl`;
  const server = await serve(Deno.execPath(), [
    "run",
    "--allow-net=127.0.0.1",
    `--allow-write=${dir}`,
    "examples/orders.ts",
    "--http",
    "127.0.0.1:0",
    "--audit",
    audit,
  ]);
  try {
    const client = await connect(server.url);
    const calls = Array.from({ length: 10 }, (_, index) =>
      client.call(10 + index, "tools/call", {
        name: "get_order",
        arguments: { order_id: "ORD-1" },
      }));
    const answers = await Promise.all(calls);
    server.child.kill("SIGTERM");
    const status = await within(server.status, 10_000, "the example to exit");
    assert.deepEqual([status.code, status.signal], [143, null]);
    const ids = auditedIds(await auditEntries(audit));
    answers.forEach(({ status }, index) => {
      assert.equal(status, 200);
      assert.ok(ids.has(10 + index), `no line for ${10 + index}`);
    });
  } finally {
    await server.cleanUp();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("SIGINT on serveHttp and on serveStdio exits 130 after flushing the audit log", async () => {
  const dir = await Deno.makeTempDir();
  try {
    for (const transport of [["--http", "127.0.0.1:0"], []]) {
      const audit = `${dir}/audit-${transport.length}.jsonl`;
      const server = await serve(
        Deno.execPath(),
        denoArgs(dir, FIXTURE, ...transport, "--audit", audit),
      );
      try {
        if (server.url === "stdio") {
          await server.request(0, "initialize", {
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "faults", version: "1.0.0" },
          });
          await server.request(1, "tools/call", { name: "echo", arguments: { text: "x" } });
        } else {
          const client = await connect(server.url);
          await client.call(1, "tools/call", { name: "echo", arguments: { text: "x" } });
        }
        server.child.kill("SIGINT");
        const status = await within(server.status, 10_000, "the server to exit after SIGINT");
        assert.deepEqual([status.code, status.signal], [130, null], server.url);
        assert.ok(auditedIds(await auditEntries(audit)).has(1), server.url);
      } finally {
        await server.cleanUp();
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
