/**
 * The audit log answers a call only once its sink has the entry, and the
 * durable file sink has it on disk by then: through `auditLog()` directly,
 * `createGuardrails()`, the policy file's `audit.durable` and
 * `--audit-durable`.
 */

import assert from "node:assert/strict";
import { createServer, type Server } from "../../../mod.ts";
import {
  type AuditEntry,
  auditLog,
  type AuditSink,
  createGuardrails,
  fileAuditSink,
} from "../../../guardrails.ts";
import { parseServerFlags, setupFromFlags } from "../../../src/setup/flags.ts";
import { parsePolicy } from "../../../src/setup/policy_file.ts";
import { echoFixtures, initialize, request } from "../../_helpers/helpers.ts";
import { guardedCall } from "../../_helpers/guarded_calls.ts";
import { ChainWriter, type LogTail } from "../../../src/guardrails/audit/chain_writer.ts";

async function ready(server: Server): Promise<Server> {
  await server.handle(initialize());
  return server;
}

const CALL = request(7, "tools/call", { name: "echo", arguments: { text: "hi" } });

/** The call entries of an audit file (not the chain's genesis and checkpoint lines). */
async function linesOf(path: string): Promise<Record<string, unknown>[]> {
  const text = await Deno.readTextFile(path).catch(() => "");
  const lines: Record<string, unknown>[] = text.split("\n").filter((line) => line !== "").map((
    line,
  ) => JSON.parse(line));
  return lines.filter((line) => !("event" in line));
}

Deno.test("auditLog() holds the reply until the sink's write promise settles", async () => {
  const written: AuditEntry[] = [];
  let release!: () => void;
  const sink: AuditSink = {
    write(entry) {
      written.push(entry);
      return new Promise<void>((resolve) => (release = resolve));
    },
    flush: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
  const server = await ready(createServer({
    name: "t",
    version: "1",
    ...echoFixtures(),
    guardrails: [auditLog({ sink })],
  }));
  let answered = false;
  const reply = server.handle(CALL).then((value) => {
    answered = true;
    return value;
  });
  // Let every microtask and a macrotask run: the entry is written, the reply still held.
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(written.length, 1);
  assert.equal(answered, false);
  release();
  assert.deepEqual((await reply as { id: unknown }).id, 7);
  assert.equal(answered, true);
});

Deno.test("auditLog() answers the call when a sink's write promise rejects, and reports it", async () => {
  const errors: string[] = [];
  const sink: AuditSink = {
    write: () => Promise.reject(new Error("disk on fire")),
    flush: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
  const server = await ready(createServer({
    name: "t",
    version: "1",
    ...echoFixtures(),
    guardrails: [auditLog({ sink, onError: (message) => errors.push(message) })],
  }));
  const reply = await server.handle(CALL);
  assert.ok(reply !== undefined && "result" in reply, JSON.stringify(reply));
  assert.deepEqual(errors, ["warden: audit sink failed: disk on fire"]);
});

Deno.test("fileAuditSink({ durable: true }): each write resolves once its line is in the file", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/audit.jsonl`;
  const sink = fileAuditSink(path, { durable: true });
  const entry = (seq: number): AuditEntry => ({
    seq,
    time: "2026-12-03T00:00:00.000Z",
    principal: null,
    client: null,
    method: "tools/call",
    name: "echo",
    arguments: { n: seq },
    outcome: "ok",
    error_code: null,
    duration_ms: 1,
    request_id: seq,
  });
  try {
    const first = sink.write(entry(1));
    assert.ok(first instanceof Promise);
    await first;
    assert.deepEqual((await linesOf(path)).map((line) => line.seq), [1]);
    // Concurrent writes: each resolves only once its own line is there, in order.
    const writes = [2, 3, 4, 5].map((seq) => sink.write(entry(seq)));
    await writes[1];
    const seen = (await linesOf(path)).map((line) => line.seq);
    assert.deepEqual(seen.slice(0, 3), [1, 2, 3]);
    await Promise.all(writes);
    assert.deepEqual((await linesOf(path)).map((line) => line.seq), [1, 2, 3, 4, 5]);
    // The default mode only queues.
    const queued = fileAuditSink(`${dir}/queued.jsonl`);
    assert.equal(queued.write(entry(1)), undefined);
    await queued.close();
  } finally {
    await sink.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("fileAuditSink({ durable: true }): concurrent writes share a sync, a batch at a time", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/audit.jsonl`;
  // Every file handle shares its class: count the syncs of all of them while the sink writes.
  const probe = await (await import("node:fs/promises")).open(`${dir}/probe`, "a");
  const handles = Object.getPrototypeOf(probe) as { datasync: () => Promise<void> };
  await probe.close();
  const datasync = handles.datasync;
  let syncs = 0;
  handles.datasync = function (this: unknown) {
    syncs++;
    return datasync.call(this);
  };
  const sink = fileAuditSink(path, { durable: true });
  try {
    const entry = (seq: number): AuditEntry => ({
      seq,
      time: "2026-12-03T00:00:00.000Z",
      principal: null,
      client: null,
      method: "tools/call",
      name: "echo",
      arguments: { n: seq },
      outcome: "ok",
      error_code: null,
      duration_ms: 1,
      request_id: seq,
    });
    // 64 calls answered at once: the first line opens the file and is synced alone, and the
    // 63 written meanwhile go in the next batch, under one sync.
    const seqs = Array.from({ length: 64 }, (_, index) => index + 1);
    await Promise.all(seqs.map((seq) => sink.write(entry(seq))));
    assert.deepEqual((await linesOf(path)).map((line) => line.seq), seqs);
    assert.equal(syncs, 2);
  } finally {
    handles.datasync = datasync;
    await sink.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a durable audit file has the call's line when the reply arrives, on every configuration path", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const paths: [string, () => Server | Promise<Server>][] = [
      ["auditLog() with a durable sink", () =>
        createServer({
          name: "t",
          version: "1",
          ...echoFixtures(),
          guardrails: [auditLog({ sink: fileAuditSink(`${dir}/a.jsonl`, { durable: true }) })],
        })],
      ["createGuardrails({ audit: { file, durable } })", () =>
        createServer({
          name: "t",
          version: "1",
          ...echoFixtures(),
          guardrails: createGuardrails({ audit: { file: `${dir}/b.jsonl`, durable: true } }),
        })],
      ["a policy file with audit.durable", async () => {
        const policy = `${dir}/policy.jsonc`;
        await Deno.writeTextFile(
          policy,
          `{ "audit": { "file": ${JSON.stringify(`${dir}/c.jsonl`)}, "durable": true } }`,
        );
        const { http: _http, ...setup } = await setupFromFlags({ policy });
        return createServer({ name: "t", version: "1", ...echoFixtures(), ...setup });
      }],
      ["--audit FILE --audit-durable", async () => {
        const parsed = await parseServerFlags(["--audit", `${dir}/d.jsonl`, "--audit-durable"], {
          name: "t",
          version: "1",
        });
        assert.equal(parsed.action, "run");
        if (parsed.action !== "run") throw new Error("unreachable");
        assert.equal(parsed.flags.auditDurable, true);
        const { http: _http, ...setup } = await setupFromFlags(parsed.flags);
        return createServer({ name: "t", version: "1", ...echoFixtures(), ...setup });
      }],
    ];
    for (const [index, [name, build]] of paths.entries()) {
      const server = await ready(await build());
      const reply = await server.handle(CALL);
      assert.ok(reply !== undefined && "result" in reply, `${name}: ${JSON.stringify(reply)}`);
      // No flush, no close: the line is there because the reply waited for it.
      const file = `${dir}/${"abcd"[index]}.jsonl`;
      const lines = await linesOf(file);
      assert.deepEqual(lines.map((line) => line.request_id), [7], name);
      await server.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("audit.durable and --audit-durable refuse what they cannot honour", async () => {
  assert.throws(
    () => createGuardrails({ audit: JSON.parse('{"file":"x.jsonl","durable":"yes"}') }),
    /audit.durable must be boolean/,
  );
  await assert.rejects(
    () => parsePolicy('{ "audit": { "file": "x.jsonl", "durable": 1 } }', "p.jsonc"),
    /audit.durable must be boolean/,
  );
  await assert.rejects(
    () => setupFromFlags({ auditDurable: true }),
    /--audit-durable needs a file audit log/,
  );
  await assert.rejects(
    () => setupFromFlags({ audit: "-", auditDurable: true }),
    /--audit-durable needs a file audit log/,
  );
});

Deno.test("a non-durable file sink does not hold the first calls while it reads the file's end; a flush writes them, in order", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/audit.log`;
  for (const durable of [false, true]) {
    await Deno.remove(path).catch(() => {});
    const guardrail = auditLog({ sink: fileAuditSink(path, { durable }) });
    const outcomes = [1, 2, 3].map((id) =>
      guardrail.run(
        guardedCall("tool", `echo-${id}`),
        () => ({ status: "ok", result: { content: [] } }),
      )
    );
    const held = outcomes.map((outcome) => typeof (outcome as { then?: unknown }).then);
    // Durable: each reply waits for its line; otherwise the chain's start is no reason to wait.
    assert.deepEqual(
      held,
      durable ? ["function", "function", "function"] : [
        "undefined",
        "undefined",
        "undefined",
      ],
    );
    await Promise.all(outcomes);
    await guardrail.flush?.();
    const text = await Deno.readTextFile(path);
    const lines = text.trim().split("\n").map((line) => JSON.parse(line));
    assert.equal(lines[0]?.event, "genesis");
    assert.deepEqual(lines.slice(1, 4).map((line) => line.name), ["echo-1", "echo-2", "echo-3"]);
    assert.deepEqual(lines.slice(1, 4).map((line) => line.seq), [1, 2, 3]);
    assert.equal(lines.at(-1)?.event, "checkpoint");
  }
  await Deno.remove(dir, { recursive: true });
});

Deno.test("an entry that arrives just as the file's end is read never passes the entries waiting for it", async () => {
  for (const durable of [false, true]) {
    const lines: string[] = [];
    const tail = Promise.withResolvers<LogTail>();
    const writer = new ChainWriter({
      writeLine: (line) => {
        lines.push(line);
        return durable ? Promise.resolve() : undefined;
      },
      readTail: () => tail.promise,
      report: (error) => assert.fail(String(error)),
      durable,
    }, { key: undefined, maxLineBytes: 65536, now: () => 0 });
    const entry = (name: string): AuditEntry => ({
      seq: 0,
      time: "",
      principal: null,
      client: null,
      method: "tools/call",
      name,
      arguments: {},
      outcome: "ok",
      error_code: null,
      duration_ms: 0,
      request_id: null,
    });
    const first = [writer.write(entry("a")), writer.write(entry("b"))];
    // Registered after the writer's own reaction to the read: it runs as the chain begins.
    const late = tail.promise.then(() => writer.write(entry("c")));
    tail.resolve({ last: undefined, needsNewline: false });
    await Promise.all([...first, late]);
    const names = lines.map((line) => JSON.parse(line).name ?? JSON.parse(line).event);
    assert.deepEqual(names, ["genesis", "a", "b", "c"], `durable: ${durable}`);
  }
});
