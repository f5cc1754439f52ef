/**
 * The audit log proves itself: lines written by a real server through the
 * file and stderr sinks form hash chains that `verifyAuditLog()` checks, and
 * every kind of tampering (an edited field, a deleted, swapped or repeated
 * line, a truncated file, a dropped checkpoint, lines spliced in from another
 * chain, a chain forged without the key) is caught at the first bad line.
 */

import assert from "node:assert/strict";
import { createServer } from "../../../mod.ts";
import { auditLog, fileAuditSink, stderrAuditSink } from "../../../guardrails.ts";
import { verifyAuditLog } from "../../../src/guardrails/audit/verify.ts";
import { hashBody } from "../../../src/guardrails/audit/chain.ts";
import { echoFixtures, initialize, request } from "../../_helpers/helpers.ts";
import { runServer } from "../../_helpers/audit_chain.ts";
import { prng } from "../../_helpers/redact_samples.ts";

const KEY = "an audit key of 32 bytes, no less";

async function tempLog(): Promise<string> {
  return `${await Deno.makeTempDir()}/audit.jsonl`;
}

/** The log's lines (no final empty one). */
async function linesOf(path: string): Promise<string[]> {
  return (await Deno.readTextFile(path)).split("\n").slice(0, -1);
}

function joined(lines: readonly string[]): string {
  return lines.map((line) => `${line}\n`).join("");
}

Deno.test("a file audit log verifies: genesis, one line per call, a checkpoint at close", async () => {
  const path = await tempLog();
  await runServer(path, ["a", "b", "c"]);
  const lines = (await linesOf(path)).map((line) => JSON.parse(line));
  assert.deepEqual(lines.map((line) => [line.seq, line.event ?? line.name]), [
    [0, "genesis"],
    [1, "echo"],
    [2, "echo"],
    [3, "echo"],
    [4, "checkpoint"],
  ]);
  assert.equal(lines[0].alg, "sha256");
  assert.equal(lines[0].scope, "file");
  assert.equal(lines[0].continues, null);
  assert.equal(lines[4].entries, 3);
  assert.ok(lines.every((line) => line.chain === lines[0].chain));
  const report = verifyAuditLog(await Deno.readFile(path));
  assert.deepEqual(report, { ok: true, lines: 5, entries: 3, chains: 1, checkpoint: true });
});

Deno.test("a restarted server continues the file's seq and chain, and the whole log verifies", async () => {
  const path = await tempLog();
  await runServer(path, ["a", "b"]);
  await runServer(path, ["c"]);
  await runServer(path, []); // a run that audits nothing writes nothing
  const lines = (await linesOf(path)).map((line) => JSON.parse(line));
  assert.deepEqual(lines.map((line) => line.seq), [0, 1, 2, 3, 4, 5, 6]);
  const second = lines[4];
  assert.equal(second.event, "genesis");
  assert.deepEqual(second.continues, { chain: lines[0].chain, seq: 3, hash: lines[3].hash });
  assert.equal(second.prev, lines[3].hash);
  assert.notEqual(second.chain, lines[0].chain);
  const report = verifyAuditLog(await Deno.readFile(path));
  assert.deepEqual(report, { ok: true, lines: 7, entries: 3, chains: 2, checkpoint: true });
});

Deno.test("a run after a crash mid-line starts on a new line; verify names the cut line", async () => {
  const path = await tempLog();
  await runServer(path, ["a"]);
  const whole = await Deno.readTextFile(path);
  // The crash: the checkpoint half written.
  await Deno.writeTextFile(path, whole.slice(0, whole.length - 40));
  await runServer(path, ["b"]);
  const lines = await linesOf(path);
  const genesis = JSON.parse(lines[3] ?? "");
  assert.equal(genesis.event, "genesis");
  assert.equal(genesis.continues.seq, 1, "it continues the last complete line");
  const report = verifyAuditLog(await Deno.readFile(path));
  assert.equal(report.ok, false);
  assert.equal(report.error?.line, 3);
  assert.match(report.error?.reason ?? "", /not a chained audit line/);
});

/** A verified log of one run of five calls, as lines. */
async function cleanLog(options: { key?: string } = {}): Promise<string[]> {
  const path = await tempLog();
  await runServer(path, ["a", "b", "c", "d", "e"], options);
  const lines = await linesOf(path);
  const keyed = options.key === undefined ? {} : { key: options.key };
  assert.equal(verifyAuditLog(joined(lines), keyed).ok, true);
  return lines;
}

function failsAt(log: string, line: number, reason: RegExp, key?: string): void {
  const report = verifyAuditLog(log, key === undefined ? {} : { key });
  assert.equal(report.ok, false, "the tampered log must not verify");
  assert.equal(report.error?.line, line, report.error?.reason);
  assert.match(report.error?.reason ?? "", reason);
}

Deno.test("verify catches an edited field, naming its line", async () => {
  const lines = await cleanLog();
  const edited = [...lines];
  edited[3] = (edited[3] ?? "").replace('"outcome":"ok"', '"outcome":"denied"');
  assert.notEqual(edited[3], lines[3]);
  failsAt(joined(edited), 4, /hash does not match its content/);
});

Deno.test("verify catches a deleted line at the line after it", async () => {
  const lines = await cleanLog();
  failsAt(joined(lines.toSpliced(2, 1)), 3, /expected seq 2 .* found 3: a line is missing/);
});

Deno.test("verify catches two swapped lines at the first of them", async () => {
  const lines = await cleanLog();
  const swapped = [...lines];
  [swapped[2], swapped[3]] = [lines[3] ?? "", lines[2] ?? ""];
  failsAt(joined(swapped), 3, /expected seq 2 .* found 3/);
});

Deno.test("verify catches a repeated line", async () => {
  const lines = await cleanLog();
  failsAt(joined(lines.toSpliced(3, 0, lines[2] ?? "")), 4, /expected seq 3 .* found 2/);
});

Deno.test("verify catches a file truncated mid-line, and one cut at a line's end", async () => {
  const lines = await cleanLog();
  const text = joined(lines);
  failsAt(text.slice(0, text.length - 30), 7, /cut short .* truncated/);
  // Cut after a whole line: the checkpoint is gone, the chain ends open.
  failsAt(joined(lines.slice(0, 4)), 4, /ends here without a checkpoint/);
});

Deno.test("verify catches a dropped checkpoint, and accepts it with open: true", async () => {
  const lines = await cleanLog();
  const log = joined(lines.slice(0, -1));
  failsAt(log, 6, /without a checkpoint/);
  const open = verifyAuditLog(log, { open: true });
  assert.equal(open.ok, true);
  assert.equal(open.checkpoint, false);
});

Deno.test("verify catches lines spliced in from another chain", async () => {
  const first = await cleanLog();
  const second = await cleanLog();
  // A middle line of another run's chain, put in place of this one's.
  failsAt(joined(first.toSpliced(3, 1, second[3] ?? "")), 4, /has no genesis line before this one/);
  // The start of another run spliced in whole, genesis included: each chain is intact up to
  // where it was cut, so the spliced chain is the one that ends without its checkpoint.
  const spliced = [...first.slice(0, 3), ...second.slice(0, 3), ...first.slice(3)];
  const report = verifyAuditLog(joined(spliced));
  assert.equal(report.ok, false);
  assert.equal(report.error?.line, 6);
  assert.match(report.error?.reason ?? "", /without a checkpoint/);
});

Deno.test("a keyed log verifies only with its key", async () => {
  const lines = await cleanLog({ key: KEY });
  const genesis = JSON.parse(lines[0] ?? "");
  assert.equal(genesis.alg, "hmac-sha256");
  assert.match(genesis.key_id, /^[0-9a-f]{16}$/);
  const log = joined(lines);
  assert.equal(verifyAuditLog(log, { key: KEY }).ok, true);
  failsAt(log, 1, /is keyed .* give its key/);
  failsAt(log, 1, /signed with another key/, "another key, also long enough");
});

/** Rewrites a whole log as an attacker would: each line edited by `edit`, then rehashed. */
function forge(
  lines: readonly string[],
  edit: (fields: Record<string, unknown>) => void,
  key?: string,
): string[] {
  let prev: string | undefined;
  return lines.map((line) => {
    const fields = JSON.parse(line);
    delete fields.hash;
    if (prev !== undefined) fields.prev = prev;
    edit(fields);
    const body = JSON.stringify(fields);
    const hash = hashBody(body, key === undefined ? undefined : new TextEncoder().encode(key));
    prev = hash;
    return `${body.slice(0, -1)},"hash":"${hash}"}`;
  });
}

Deno.test("an attacker without the key cannot forge a keyed chain that verifies", async () => {
  const lines = await cleanLog({ key: KEY });
  const deny = (fields: Record<string, unknown>) => {
    if (fields.outcome === "ok") fields.outcome = "denied";
  };
  // Rehashed under a guessed key, the key id copied: the genesis's own hash gives it away.
  const guessed = forge(lines, deny, "a guessed key of sufficient length");
  failsAt(joined(guessed), 1, /hash does not match .* not signed with this key/, KEY);
  // Downgraded to plain SHA-256: refused outright when verifying with the key.
  const downgraded = forge(lines, (fields) => {
    deny(fields);
    if (fields.alg !== undefined) fields.alg = "sha256";
  });
  failsAt(joined(downgraded), 1, /not keyed, but a key was given/, KEY);
  // An unkeyed log, by contrast, can be rewritten whole by anyone: that is what the key is for.
  const plain = await cleanLog();
  assert.equal(verifyAuditLog(joined(forge(plain, deny))).ok, true);
});

Deno.test("the stderr sink keeps a per-process chain that verifies", async () => {
  const out: string[] = [];
  const sink = stderrAuditSink({ write: (line) => void out.push(line) });
  const server = createServer({
    name: "t",
    version: "1",
    ...echoFixtures(),
    guardrails: [auditLog({ sink, key: KEY })],
  });
  await server.handle(initialize());
  await server.handle(request(2, "tools/call", { name: "echo", arguments: { text: "x" } }));
  await server.handle(request(3, "tools/call", { name: "nope", arguments: {} }));
  await server.close();
  const log = out.join("");
  const genesis = JSON.parse(out[0] ?? "");
  assert.equal(genesis.scope, "process");
  assert.equal(genesis.continues, null);
  assert.deepEqual(verifyAuditLog(log, { key: KEY }), {
    ok: true,
    lines: 4,
    entries: 2,
    chains: 1,
    checkpoint: true,
  });
});

Deno.test("two instances appending to one file keep one chain each, and both verify", async () => {
  const path = await tempLog();
  const servers = [0, 1].map(() =>
    createServer({
      name: "t",
      version: "1",
      ...echoFixtures(),
      guardrails: [auditLog({ sink: fileAuditSink(path, { durable: true }) })],
    })
  );
  for (const server of servers) await server.handle(initialize());
  for (let i = 0; i < 6; i++) {
    const server = servers[i % 2];
    await server?.handle(
      request(i + 2, "tools/call", { name: "echo", arguments: { text: `${i}` } }),
    );
  }
  for (const server of servers) await server.close();
  const lines = (await linesOf(path)).map((line) => JSON.parse(line));
  assert.equal(new Set(lines.map((line) => line.chain)).size, 2);
  const report = verifyAuditLog(await Deno.readFile(path));
  assert.deepEqual(report, { ok: true, lines: 10, entries: 6, chains: 2, checkpoint: true });
});

Deno.test("hashes cover the bytes written: editing only whitespace inside a string is caught", async () => {
  const lines = await cleanLog();
  const edited = [...lines];
  edited[2] = (edited[2] ?? "").replace('"text":"b"', '"text":"b "');
  failsAt(joined(edited), 3, /hash does not match/);
});

Deno.test("two writers appending large batches to one file never interleave inside a line", async () => {
  const path = await tempLog();
  const servers = [0, 1].map(() =>
    createServer({
      name: "t",
      version: "1",
      ...echoFixtures(),
      guardrails: [auditLog({ sink: fileAuditSink(path) })],
    })
  );
  for (const server of servers) await server.handle(initialize());
  // Batches of megabytes from each writer at once: many lines near the bound, multi-byte text.
  const text = "é€😀x".repeat(4_000);
  await Promise.all(
    servers.flatMap((server, s) =>
      Array.from({ length: 80 }, (_, i) =>
        server.handle(
          request(i + 2, "tools/call", { name: "echo", arguments: { text: `${s}${i}${text}` } }),
        ))
    ),
  );
  for (const server of servers) await server.close();
  const report = verifyAuditLog(await Deno.readFile(path));
  assert.deepEqual(report, { ok: true, lines: 164, entries: 160, chains: 2, checkpoint: true });
});

Deno.test("property: any single changed byte fails verification at exactly its line", async () => {
  const path = await tempLog();
  await runServer(path, ["a", "é\u2028😀", "c\u0000", "d"], { key: KEY });
  await runServer(path, ["e", "f"], { key: KEY });
  const log = await Deno.readFile(path);
  assert.equal(verifyAuditLog(log, { key: KEY }).ok, true);
  const random = prng(22);
  for (let round = 0; round < 400; round++) {
    const at = Math.floor(random() * log.length);
    const tampered = log.slice();
    const original = log[at] ?? 0;
    tampered[at] = (original + 1 + Math.floor(random() * 255)) % 256;
    let line = 1;
    for (let i = 0; i < at; i++) if (log[i] === 0x0a) line++;
    const report = verifyAuditLog(tampered, { key: KEY });
    assert.equal(report.ok, false, `byte ${at}: ${original} -> ${tampered[at]}`);
    assert.equal(report.error?.line, line, `byte ${at}: ${report.error?.reason}`);
  }
});

Deno.test("property: any deleted line fails verification at or before its place", async () => {
  const path = await tempLog();
  await runServer(path, ["a", "b", "c"]);
  await runServer(path, ["d", "e"]);
  const lines = await linesOf(path);
  for (let i = 0; i < lines.length; i++) {
    const report = verifyAuditLog(joined(lines.toSpliced(i, 1)));
    assert.equal(report.ok, false, `line ${i + 1} deleted`);
    assert.ok((report.error?.line ?? Infinity) <= i + 1, `line ${i + 1}: ${report.error?.line}`);
  }
});

Deno.test("the chain's HMAC equals node:crypto's createHmac for keys of every length class", async () => {
  const { createHmac } = await import("node:crypto");
  const { lineHasher } = await import("../../../src/guardrails/audit/chain.ts");
  const random = prng(2104);
  for (const length of [16, 32, 63, 64, 65, 200]) {
    const key = Uint8Array.from({ length }, () => Math.floor(random() * 256));
    const hasher = lineHasher(key);
    for (const body of ["", "{}", '{"a":"é\\u2028😀"}', "x".repeat(10_000)]) {
      // Twice each: the prepared states are copied, never used up.
      for (let i = 0; i < 2; i++) {
        assert.equal(hasher(body), createHmac("sha256", key).update(body, "utf8").digest("hex"));
      }
    }
  }
});

Deno.test("a run that continues a chain cut short (lines removed, or a crash) does not launder the cut", async () => {
  const path = await tempLog();
  await runServer(path, ["a", "b", "c"], { key: KEY });
  const first = await linesOf(path);
  // Without the key, the last call and the checkpoint removed while the server is down:
  await Deno.writeTextFile(path, joined(first.slice(0, 3)));
  await runServer(path, ["d"], { key: KEY });
  const lines = await linesOf(path);
  assert.equal(JSON.parse(lines[3] ?? "").continues.seq, 2, "the next run continued the cut line");
  failsAt(joined(lines), 3, /ends here without a checkpoint.*a later run continued it/s, KEY);
  // With open: true (a crash is accepted knowingly), the log verifies and says it is not closed.
  const open = verifyAuditLog(joined(lines), { key: KEY, open: true });
  assert.equal(open.ok, true);
  assert.equal(open.checkpoint, false);
  // A clean restart (continued at a checkpoint) still verifies.
  const clean = await tempLog();
  await runServer(clean, ["a"], { key: KEY });
  await runServer(clean, ["b"], { key: KEY });
  assert.equal(verifyAuditLog(await Deno.readFile(clean), { key: KEY }).ok, true);
});

Deno.test("a tampered last line is not copied into the next run's genesis (no raw U+2028, no oversize line)", async () => {
  const path = await tempLog();
  await runServer(path, ["a"]);
  // Appended by someone else: JSON that looks chained, with a chain id no Warden run makes.
  const forged = JSON.stringify({
    chain: `x\u2028${"y".repeat(70_000)}`,
    seq: 7,
    hash: "a".repeat(64),
  });
  await Deno.writeTextFile(path, `${forged}\n`, { append: true });
  await runServer(path, ["b"]);
  const lines = await linesOf(path);
  const genesis = lines.at(-3) ?? "";
  assert.equal(JSON.parse(genesis).event, "genesis");
  assert.equal(genesis.includes("\u2028"), false, "U+2028 written raw");
  assert.ok(
    new TextEncoder().encode(genesis).length <= 65_536,
    "the genesis exceeds the line bound",
  );
  for (const seq of [-5, Number.MAX_SAFE_INTEGER]) {
    const other = await tempLog();
    await runServer(other, ["a"]);
    const last = JSON.parse((await linesOf(other)).at(-1) ?? "");
    await Deno.writeTextFile(other, `${JSON.stringify({ ...last, seq })}\n`, { append: true });
    await runServer(other, ["b"]);
    // The next run's lines, after the forged one.
    const after = (await linesOf(other)).slice(4).map((line) => JSON.parse(line));
    assert.equal(after.length, 3);
    assert.ok(after.every((line) => Number.isSafeInteger(line.seq) && line.seq >= 0), `seq ${seq}`);
  }
});
