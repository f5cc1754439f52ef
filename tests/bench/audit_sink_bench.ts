/**
 * The file audit sink's cost per call, alone: one entry written and, for the
 * durable mode, awaited (appended and datasynced) as the audit log awaits it
 * before answering. The default mode is measured both as the call sees it
 * (`write()` only; the append happens after the reply) and with the append
 * awaited. Concurrent durable writes share one sync, so a batch of 16 shows
 * the cost per call under load.
 *
 * The default mode appends to /dev/null; the durable mode needs a real disk
 * (/dev/null cannot be synced), so its file goes to `WARDEN_BENCH_DIR` (the
 * runner sets .bench-results) or a new temporary directory.
 *
 * Run: `deno bench --allow-write --allow-env=WARDEN_BENCH_DIR tests/bench/audit_sink_bench.ts`
 *
 * @module
 */

import { type AuditEntry, type AuditSink, fileAuditSink } from "../../guardrails.ts";

const GROUP = "audit: one entry through the file sink";

const dir = Deno.env.get("WARDEN_BENCH_DIR") ?? await Deno.makeTempDir();
await Deno.mkdir(dir, { recursive: true });

function entry(seq: number): AuditEntry {
  return {
    seq,
    time: "2026-12-03T08:00:00.000Z",
    principal: "alice",
    client: { name: "bench", version: "1.0.0" },
    method: "tools/call",
    name: "echo",
    arguments: { text: "hello, audited world" },
    outcome: "ok",
    error_code: null,
    duration_ms: 0.042,
    request_id: seq,
  };
}

async function sinkAt(
  path: string | undefined,
  durable: boolean,
): Promise<{ sink: AuditSink; next: () => number }> {
  let seq = 0;
  const file = path ?? `${dir}/audit_sink_bench.jsonl`;
  // Each run starts its file afresh, so it never grows past one run's lines.
  if (path === undefined) await Deno.remove(file).catch(() => {});
  return { sink: fileAuditSink(file, { durable }), next: () => ++seq };
}

const queued = await sinkAt("/dev/null", false);
Deno.bench({
  name: "default: write() (the append follows the reply)",
  group: GROUP,
  baseline: true,
}, () => {
  void queued.sink.write(entry(queued.next()));
});

const appended = await sinkAt("/dev/null", false);
Deno.bench(
  { name: "default: write() + flush() (appended, not synced)", group: GROUP },
  async () => {
    void appended.sink.write(entry(appended.next()));
    await appended.sink.flush();
  },
);

const durable = await sinkAt(undefined, true);
Deno.bench({ name: "durable: await write() (appended and synced)", group: GROUP }, async () => {
  await durable.sink.write(entry(durable.next()));
});

const batch = durable;
Deno.bench({
  name: "durable: 16 concurrent writes (one iteration = 16 calls)",
  group: GROUP,
  n: 200,
}, async (b) => {
  const writes: (void | Promise<void>)[] = [];
  b.start();
  for (let index = 0; index < 16; index++) writes.push(batch.sink.write(entry(batch.next())));
  await Promise.all(writes);
  b.end();
});
