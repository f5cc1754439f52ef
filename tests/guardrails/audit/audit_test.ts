import assert from "node:assert/strict";
import { type AuditEntry, nextAuditEntry } from "../../../src/guardrails/audit/audit.ts";
import {
  callbackAuditSink,
  fileAuditSink,
  stderrAuditSink,
} from "../../../src/guardrails/audit/audit_sinks.ts";
import { auditInput as input } from "../../_helpers/audit_input.ts";

const T0 = Date.UTC(2025, 5, 18, 9, 30, 0, 250);

function entries(count: number): AuditEntry[] {
  let state = { seq: 0 };
  const result: AuditEntry[] = [];
  for (let i = 0; i < count; i++) {
    const step = nextAuditEntry(state, input({ request_id: i }), T0 + i);
    state = step.state;
    result.push(step.entry);
  }
  return result;
}

/** Collects what a sink reports instead of printing it. */
function errors(): { seen: string[]; onError: (error: unknown) => void } {
  const seen: string[] = [];
  return { seen, onError: (error) => seen.push(error instanceof Error ? error.message : "?") };
}

Deno.test("nextAuditEntry() numbers entries from 1 and stamps the time", () => {
  const start = Object.freeze({ seq: 0 });
  const first = nextAuditEntry(start, input(), T0);
  assert.equal(first.entry.seq, 1);
  assert.equal(first.entry.time, "2025-06-18T09:30:00.250Z");
  assert.deepEqual(first.state, { seq: 1 });
  assert.deepEqual(start, { seq: 0 }, "the old state is not changed");
  const second = nextAuditEntry(first.state, input({ outcome: "denied", error_code: -32001 }), T0);
  assert.equal(second.entry.seq, 2);
  assert.equal(second.entry.error_code, -32001);
});

Deno.test("nextAuditEntry() copies fields in order and drops strays", () => {
  const stray = { ...input(), extra: "not logged", client: { name: "c", version: "1", x: 1 } };
  const { entry } = nextAuditEntry({ seq: 41 }, stray, T0);
  assert.deepEqual(Object.keys(entry), [
    "seq",
    "time",
    "principal",
    "client",
    "method",
    "name",
    "arguments",
    "outcome",
    "error_code",
    "duration_ms",
    "request_id",
  ]);
  assert.deepEqual(entry.client, { name: "c", version: "1" });
  assert.equal(entry.seq, 42);
});

Deno.test("nextAuditEntry() rounds durations to whole microseconds", () => {
  const table: [number, number][] = [
    [12.5, 12.5],
    [1.23456, 1.235],
    [0.0004, 0],
    [0.0005, 0.001],
    [-3, 0],
    [Number.NaN, 0],
    [Number.POSITIVE_INFINITY, 0],
  ];
  for (const [duration, expected] of table) {
    const { entry } = nextAuditEntry({ seq: 0 }, input({ duration_ms: duration }), T0);
    assert.equal(entry.duration_ms, expected, `${duration}`);
  }
});

Deno.test("nextAuditEntry() writes every time as Date#toISOString() does", () => {
  const times = [
    T0,
    T0, // the same millisecond again
    T0 + 1,
    T0 + 749, // the last millisecond of the second
    T0 + 750, // the next second
    T0 + 0.999, // a fraction of a millisecond is dropped
    T0 - 1000, // back to an earlier second
    0,
    -0.5,
    -1,
    -999,
    -1000,
    -1001.7,
    Date.UTC(9999, 11, 31, 23, 59, 59, 999),
    Date.UTC(10000, 0, 1), // six-digit years
    Date.UTC(10000, 0, 1, 0, 0, 0, 5),
    Date.UTC(-1, 0, 1, 0, 0, 0, 7),
    8.64e15,
    -8.64e15,
  ];
  for (const time of times) {
    const { entry } = nextAuditEntry({ seq: 0 }, input(), time);
    assert.equal(entry.time, new Date(time).toISOString(), `${time}`);
  }
});

Deno.test("nextAuditEntry() refuses a broken clock or state", () => {
  assert.throws(() => nextAuditEntry({ seq: 0 }, input(), Number.NaN), {
    name: "RangeError",
    message: "Invalid audit time: NaN",
  });
  for (const time of [Number.POSITIVE_INFINITY, 8.64e15 + 1, -8.64e15 - 1]) {
    assert.throws(() => nextAuditEntry({ seq: 0 }, input(), time), RangeError, `${time}`);
  }
  assert.throws(() => nextAuditEntry({ seq: -1 }, input(), T0), RangeError);
  assert.throws(() => nextAuditEntry({ seq: 1.5 }, input(), T0), RangeError);
});

Deno.test("stderrAuditSink() writes one JSON line per entry and nothing to stdout", async () => {
  const lines: string[] = [];
  const originalLog = console.log;
  let logged = 0;
  console.log = () => void logged++;
  try {
    const sink = stderrAuditSink({ write: (line) => lines.push(line) });
    for (const entry of entries(3)) sink.write(entry);
    await sink.flush();
    await sink.close();
  } finally {
    console.log = originalLog;
  }
  assert.equal(logged, 0);
  assert.equal(lines.length, 3);
  for (const [index, line] of lines.entries()) {
    assert.ok(line.endsWith("\n") && !line.slice(0, -1).includes("\n"));
    assert.equal(JSON.parse(line).seq, index + 1);
  }
});

Deno.test("stderrAuditSink() writes to stderr by default and reports there", async () => {
  const sinks = new URL("../../../src/guardrails/audit/audit_sinks.ts", import.meta.url).href;
  const script = `
    import { callbackAuditSink, stderrAuditSink } from ${JSON.stringify(sinks)};
    const entry = { seq: 1, time: "t", principal: null, client: null, method: "ping", name: null,
      arguments: {}, outcome: "ok", error_code: null, duration_ms: 0, request_id: 1 };
    const sink = stderrAuditSink();
    sink.write(entry);
    await sink.close();
    const failing = callbackAuditSink(() => { throw new Error("disk on fire"); });
    failing.write(entry);
    failing.write(entry);
  `;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--no-config", script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  assert.equal(new TextDecoder().decode(output.stdout), "");
  const stderr = new TextDecoder().decode(output.stderr).split("\n");
  assert.equal(JSON.parse(stderr[0] ?? "").method, "ping");
  assert.deepEqual(stderr.slice(1), ["warden: audit sink failed: disk on fire", ""]);
});

Deno.test("stderrAuditSink() reports writes after close and a failing writer", async () => {
  const { seen, onError } = errors();
  const sink = stderrAuditSink({
    write: () => {
      throw new Error("EPIPE: broken pipe");
    },
    onError,
  });
  const [entry] = entries(1);
  assert.ok(entry !== undefined);
  sink.write(entry);
  sink.write(entry);
  await sink.close();
  sink.write(entry);
  sink.write(entry);
  assert.deepEqual(seen, [
    "EPIPE: broken pipe",
    "Cannot write audit entry: the sink is closed",
  ]);
});

Deno.test("fileAuditSink() appends every entry in order and never truncates", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/audit.jsonl`;
  await Deno.writeTextFile(path, '{"earlier":true}\n');
  const { seen, onError } = errors();
  const sink = fileAuditSink(path, { onError });
  for (const entry of entries(1000)) sink.write(entry);
  await sink.flush();
  const lines = (await Deno.readTextFile(path)).split("\n");
  assert.equal(lines.pop(), "");
  assert.equal(lines.length, 1001);
  assert.equal(lines[0], '{"earlier":true}');
  lines.slice(1).forEach((line, index) => assert.equal(JSON.parse(line).seq, index + 1));
  await sink.close();

  const again = fileAuditSink(path, { onError, sync: true });
  again.write(entries(1)[0] ?? assert.fail());
  await again.close();
  assert.equal((await Deno.readTextFile(path)).split("\n").length, 1003);
  assert.deepEqual(seen, []);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("fileAuditSink() writes long and non-ASCII lines whole, in order", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/audit.jsonl`;
  const { seen, onError } = errors();
  const sink = fileAuditSink(path, { onError });
  // Batches of several megabytes of lines (each under the line bound) whose characters take
  // 1 to 4 bytes, so that the writer's pieces end between and next to multi-byte characters.
  const long = ["a".repeat(60_000), "é€😀x".repeat(5_000), "ünïcödé", "😀".repeat(14_000)];
  const texts = Array.from({ length: 120 }, (_, i) => long[i % long.length] ?? "");
  const written = texts.map((text, index) =>
    nextAuditEntry({ seq: index }, input({ arguments: { text } }), T0).entry
  );
  for (const entry of written) sink.write(entry);
  await sink.close();
  const lines = (await Deno.readTextFile(path)).split("\n");
  assert.equal(lines.pop(), "");
  assert.deepEqual(lines.map((line) => JSON.parse(line)), written);
  assert.deepEqual(seen, []);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("fileAuditSink() flush() is safe concurrently and after close()", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/audit.jsonl`;
  const sink = fileAuditSink(path);
  const [first, second] = entries(2);
  assert.ok(first !== undefined && second !== undefined);
  sink.write(first);
  const early = sink.flush();
  sink.write(second);
  await Promise.all([early, sink.flush(), sink.flush()]);
  assert.equal((await Deno.readTextFile(path)).split("\n").length, 3);
  const closing = sink.close();
  assert.equal(sink.close(), closing);
  await closing;
  await sink.flush();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("fileAuditSink() reports writes after close instead of throwing", async () => {
  const dir = await Deno.makeTempDir();
  const { seen, onError } = errors();
  const sink = fileAuditSink(`${dir}/audit.jsonl`, { onError });
  await sink.close();
  const [entry] = entries(1);
  assert.ok(entry !== undefined);
  sink.write(entry);
  sink.write(entry);
  await sink.flush();
  assert.deepEqual(seen, ["Cannot write audit entry: the sink is closed"]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("fileAuditSink() reports a path it cannot open, once, and keeps trying", async () => {
  const dir = await Deno.makeTempDir();
  const { seen, onError } = errors();
  const sink = fileAuditSink(dir, { onError });
  const batch = entries(3);
  for (const entry of batch) {
    sink.write(entry);
    await sink.flush();
  }
  await sink.close();
  assert.equal(seen.length, 1);
  assert.match(seen[0] ?? "", /EISDIR/);
  assert.throws(() => fileAuditSink(""), TypeError);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("fileAuditSink() drops a failed batch and writes later ones", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/later/audit.jsonl`;
  const { seen, onError } = errors();
  const sink = fileAuditSink(path, { onError });
  const [first, second] = entries(2);
  assert.ok(first !== undefined && second !== undefined);
  sink.write(first);
  await sink.flush();
  assert.equal(seen.length, 1, "a missing directory is reported");
  await Deno.mkdir(`${dir}/later`);
  sink.write(second);
  await sink.close();
  assert.equal(JSON.parse(await Deno.readTextFile(path)).seq, 2);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("fileAuditSink() keeps an entry whose arguments cannot be serialised", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/audit.jsonl`;
  const { seen, onError } = errors();
  const sink = fileAuditSink(path, { onError });
  const { entry } = nextAuditEntry({ seq: 0 }, input({ arguments: { big: 1n } }), T0);
  sink.write(entry);
  await sink.close();
  const written = JSON.parse(await Deno.readTextFile(path));
  assert.equal(written.arguments, "[unserializable]");
  assert.equal(written.seq, 1);
  assert.equal(seen.length, 1);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("callbackAuditSink() delivers entries in order and flush() awaits them", async () => {
  const received: number[] = [];
  const sink = callbackAuditSink(async (entry) => {
    await new Promise((resolve) => setTimeout(resolve, 5 - entry.seq));
    received.push(entry.seq);
  });
  const calls: number[] = [];
  const ordered = callbackAuditSink((entry) => void calls.push(entry.seq));
  for (const entry of entries(3)) {
    sink.write(entry);
    ordered.write(entry);
  }
  assert.deepEqual(calls, [1, 2, 3]);
  await sink.flush();
  assert.deepEqual(received.toSorted(), [1, 2, 3]);
  await Promise.all([sink.close(), ordered.close()]);
});

Deno.test("callbackAuditSink() reports a throwing or rejecting callback once per message", async () => {
  const { seen, onError } = errors();
  const throwing = callbackAuditSink(() => {
    throw new Error("callback broke");
  }, { onError });
  const rejecting = callbackAuditSink(() => Promise.reject(new Error("database away")), {
    onError,
  });
  for (const entry of entries(3)) {
    throwing.write(entry);
    rejecting.write(entry);
  }
  await Promise.all([throwing.flush(), rejecting.flush()]);
  await Promise.all([throwing.close(), rejecting.close()]);
  assert.deepEqual(seen, ["callback broke", "database away"]);
});

Deno.test("callbackAuditSink() survives an onError that throws or rejects", async () => {
  const [entry] = entries(1);
  assert.ok(entry !== undefined);
  const fail = () => {
    throw new Error("x");
  };
  const sinks = [
    callbackAuditSink(fail, { onError: fail }),
    callbackAuditSink(fail, { onError: () => Promise.reject(new Error("y")) }),
  ];
  for (const sink of sinks) {
    sink.write(entry);
    await sink.close();
  }
});
