/**
 * Audit lines are bounded and safe to read line by line: whatever an entry
 * holds (a 6 MiB argument, a huge tool name or request id, U+2028, NUL, lone
 * surrogates), its line fits the bound, is valid JSON, ends only at its line
 * feed, keeps its key fields whole when they fit, marks what was cut with the
 * SHA-256 of the whole entry, and still verifies as part of its chain.
 */

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { type AuditEntry, nextAuditEntry } from "../../../src/guardrails/audit/audit.ts";
import {
  boundedEntryJson,
  DEFAULT_MAX_LINE_BYTES,
  escapeSeparators,
  MIN_MAX_LINE_BYTES,
  utf8Length,
} from "../../../src/guardrails/audit/audit_line.ts";
import { auditLog, stderrAuditSink } from "../../../guardrails.ts";
import { verifyAuditLog } from "../../../src/guardrails/audit/verify.ts";
import { createServer } from "../../../mod.ts";
import { prng } from "../../_helpers/redact_samples.ts";
import { auditInput } from "../../_helpers/audit_input.ts";
import { echoFixtures, initialize, modernRequest, request } from "../../_helpers/helpers.ts";
import { modernPost, openSession } from "../../_helpers/http_helpers.ts";
import { MemoryTransport } from "../../../testing.ts";

const T0 = Date.UTC(2026, 0, 2, 3, 4, 5, 6);

function entryWith(overrides: Partial<AuditEntry>): AuditEntry {
  return {
    ...nextAuditEntry({ seq: 0 }, auditInput({ duration_ms: 1 }), T0).entry,
    ...overrides,
  };
}

function fail(error: unknown): never {
  throw error;
}

/** Checks one line against the guarantees and returns it parsed. */
function checkLine(line: string, bound: number): Record<string, unknown> {
  assert.ok(utf8Length(line) <= bound, `a line of ${utf8Length(line)} bytes exceeds ${bound}`);
  assert.equal(new TextEncoder().encode(line).length, utf8Length(line));
  assert.ok(!/[\n\r\u2028\u2029]/.test(line), "no raw line separator of any kind");
  return JSON.parse(line);
}

Deno.test("a 6 MiB argument is cut to the bound, marked, and digested; key fields stay whole", () => {
  const big = "x".repeat(6 * 1024 * 1024);
  const entry = entryWith({ arguments: { text: big } });
  const line = boundedEntryJson(entry, DEFAULT_MAX_LINE_BYTES, fail);
  const parsed = checkLine(line, DEFAULT_MAX_LINE_BYTES);
  for (const key of ["seq", "time", "principal", "client", "method", "name", "outcome"] as const) {
    assert.deepEqual(parsed[key], entry[key], key);
  }
  assert.equal(parsed.error_code, null);
  assert.equal(parsed.request_id, 7);
  const whole = JSON.stringify(entry);
  assert.deepEqual(parsed.truncated, {
    bytes: utf8Length(whole),
    sha256: createHash("sha256").update(whole).digest("hex"),
    fields: ["arguments"],
  });
  assert.equal(typeof parsed.arguments, "string");
  assert.ok(JSON.stringify(entry.arguments).startsWith((parsed.arguments as string).slice(0, -1)));
  assert.ok((parsed.arguments as string).endsWith("…"));
  assert.ok(utf8Length(line) > DEFAULT_MAX_LINE_BYTES - 1024, "the room is used, not wasted");
});

Deno.test("a cut line keeps the start of the arguments' own JSON, whatever keys they hold", () => {
  // Keys and strings that look like the entry's own fields, before and after a large value.
  const tricky = {
    ',"arguments":': 1,
    outcome: "ok",
    text: 'x,"outcome":"y'.repeat(20_000),
    tail: { outcome: 'z","outcome":"' },
  };
  for (const entry of [entryWith({ arguments: tricky }), { ...entryWith({}), arguments: tricky }]) {
    const line = boundedEntryJson(entry, DEFAULT_MAX_LINE_BYTES, fail);
    const parsed = checkLine(line, DEFAULT_MAX_LINE_BYTES);
    const kept = (parsed.arguments as string).slice(0, -1);
    assert.ok(kept.length > 30_000);
    assert.ok(JSON.stringify(tricky).startsWith(kept));
    assert.equal(parsed.outcome, "ok");
  }
  // An entry assembled out of order is cut from its arguments too, not from a neighbour's text.
  const { arguments: _, ...rest } = entryWith({});
  const reordered = { arguments: tricky, ...rest, name: ',"arguments":"n' } as AuditEntry;
  const parsed = checkLine(boundedEntryJson(reordered, DEFAULT_MAX_LINE_BYTES, fail), 65_536);
  assert.ok(JSON.stringify(tricky).startsWith((parsed.arguments as string).slice(0, -1)));
});

Deno.test("a line within the bound is written unchanged", () => {
  const entry = entryWith({ arguments: { text: "é€😀".repeat(1000) } });
  assert.equal(boundedEntryJson(entry, DEFAULT_MAX_LINE_BYTES, fail), JSON.stringify(entry));
});

Deno.test("U+2028 and U+2029 are escaped; the parsed entry is the same", () => {
  const entry = entryWith({ name: "a\u2028b", arguments: { text: "c\u2029d\u2028" } });
  const line = boundedEntryJson(entry, DEFAULT_MAX_LINE_BYTES, fail);
  assert.ok(line.includes("a\\u2028b") && line.includes("c\\u2029d\\u2028"));
  assert.deepEqual(JSON.parse(line), entry);
  assert.equal(escapeSeparators('"x"'), '"x"');
});

Deno.test("overlong short fields are cut only when the arguments alone cannot make room", () => {
  const entry = entryWith({
    name: "n".repeat(100_000),
    principal: "p\u2028".repeat(50_000),
    request_id: "r".repeat(100_000),
    client: { name: "c".repeat(100_000), version: "1" },
  });
  const line = boundedEntryJson(entry, MIN_MAX_LINE_BYTES, fail);
  const parsed = checkLine(line, MIN_MAX_LINE_BYTES);
  const truncated = parsed.truncated as { fields: string[] };
  assert.deepEqual(truncated.fields, ["arguments", "principal", "client", "name", "request_id"]);
  assert.deepEqual([parsed.method, parsed.outcome, parsed.seq, parsed.time], [
    "tools/call",
    "ok",
    entry.seq,
    entry.time,
  ]);
  assert.ok((parsed.name as string).startsWith("nnnn") && (parsed.name as string).endsWith("…"));
});

/** Characters that break naive line and JSON handling. */
const NASTY = [
  "\u2028",
  "\u2029",
  "\u0000",
  "\n",
  "\r",
  '"',
  "\\",
  "\ud800",
  "\udfff",
  "😀",
  "é",
  "€",
  "\u001f",
  "\ufeff",
  "a",
];

function nastyString(random: () => number, length: number): string {
  let text = "";
  for (let i = 0; i < length; i++) text += NASTY[Math.floor(random() * NASTY.length)];
  return text;
}

Deno.test("property: an entry within the bound is written as the serialiser writes it", () => {
  const random = prng(26);
  for (let round = 0; round < 300; round++) {
    const text = () => nastyString(random, Math.floor(random() * 12));
    const entry = entryWith({
      seq: Math.floor(random() * 1e9),
      principal: random() < 0.3 ? null : text(),
      client: random() < 0.3 ? null : { name: text(), version: text() },
      method: text(),
      name: random() < 0.3 ? null : text(),
      arguments: random() < 0.1 ? undefined : { [text()]: [text(), random(), null, -0] },
      error_code: random() < 0.5 ? null : -32000 - Math.floor(random() * 700),
      duration_ms: random() < 0.2 ? 0 : Math.round(random() * 1e6) / 1000,
      request_id: random() < 0.3 ? null : random() < 0.5 ? text() : Math.floor(random() * 1e6),
    });
    if (random() < 0.3) entry.redaction = { split_secrets: Math.floor(random() * 5) };
    const line = boundedEntryJson(entry, DEFAULT_MAX_LINE_BYTES, fail);
    assert.equal(line, escapeSeparators(JSON.stringify(entry)));
  }
  // Entries of other shapes still serialise as the serialiser says.
  class Shaped {
    toJSON() {
      return { shaped: true };
    }
  }
  const odd: AuditEntry[] = [
    { ...entryWith({}), extra: 1 } as AuditEntry,
    Object.assign(new Shaped(), entryWith({})),
    entryWith({ client: Object.assign(new Shaped(), { name: "n", version: "v" }) }),
    entryWith({ duration_ms: Number.NaN, request_id: Number.POSITIVE_INFINITY }),
    entryWith({ client: { name: 1, version: "v" } as unknown as AuditEntry["client"] }),
  ];
  for (const entry of odd) {
    assert.equal(boundedEntryJson(entry, DEFAULT_MAX_LINE_BYTES, fail), JSON.stringify(entry));
  }
});

Deno.test("one short field that needs escaping is escaped, whichever it is, the others plain", () => {
  // The built line asks all short fields at once whether any needs escaping: each field, and
  // each kind of character, must still send the line through the escaping path.
  const nasty = ['a"b', "a\\b", "a\nb", "a\u0001b", "a\ud800b", "a\udc00", "a\u2028b", "a\u2029"];
  const fields: ((text: string) => Partial<AuditEntry>)[] = [
    (text) => ({ time: text }),
    (text) => ({ principal: text }),
    (text) => ({ client: { name: text, version: "1" } }),
    (text) => ({ client: { name: "c", version: text } }),
    (text) => ({ method: text }),
    (text) => ({ name: text }),
    (text) => ({ outcome: text as AuditEntry["outcome"] }),
    (text) => ({ request_id: text }),
  ];
  for (const field of fields) {
    for (const text of nasty) {
      const entry = entryWith({
        principal: "p",
        client: { name: "c", version: "1" },
        ...field(text),
      });
      const line = boundedEntryJson(entry, DEFAULT_MAX_LINE_BYTES, fail);
      assert.equal(line, escapeSeparators(JSON.stringify(entry)), JSON.stringify(text));
    }
  }
});

/** A server whose audit log writes lines to `lines`, with no redaction rules (to compare fields). */
function auditedServer(lines: string[], bound: number, principal: string | undefined) {
  const sink = stderrAuditSink({ write: (line) => void lines.push(line) });
  const redact = { presets: false, keys: [], defaultKeys: false } as const;
  return createServer({
    name: "t",
    version: "1",
    ...echoFixtures(),
    ...(principal === undefined ? {} : { principal }),
    guardrails: [auditLog({ sink, maxLineBytes: bound, redact })],
  });
}

/** Checks every line of a run and the chain; returns the call entries. */
function checkRun(lines: readonly string[], bound: number): Record<string, unknown>[] {
  for (const line of lines) {
    assert.ok(line.endsWith("\n"));
    checkLine(line.slice(0, -1), bound);
  }
  assert.deepEqual(verifyAuditLog(lines.join("")).error, undefined);
  return lines.map((line) => JSON.parse(line)).filter((line) => !("event" in line));
}

Deno.test("property: any entry, any bound: lines fit, parse, keep fitting key fields, and verify", async () => {
  const random = prng(2028);
  const size = (): number => [0, 5, 500, 5_000, 70_000][Math.floor(random() * 5)] ?? 0;
  for (let round = 0; round < 12; round++) {
    const bound = MIN_MAX_LINE_BYTES + Math.floor(random() * 3) * 40_000;
    const lines: string[] = [];
    const principal = random() < 0.3 ? undefined : nastyString(random, size());
    const server = auditedServer(lines, bound, principal);
    await server.handle(initialize());
    const calls = Array.from({ length: 4 }, () => ({
      id: random() < 0.5 ? Math.floor(random() * 1e9) : nastyString(random, size()),
      name: random() < 0.3 ? "echo" : nastyString(random, size()),
      args: { [nastyString(random, 3)]: nastyString(random, size() * 4), n: [1, null, true] },
    }));
    for (const call of calls) {
      await server.handle(
        request(call.id, "tools/call", { name: call.name, arguments: call.args }),
      );
    }
    await server.close();
    const entries = checkRun(lines, bound);
    assert.equal(entries.length, calls.length);
    for (const [i, entry] of entries.entries()) {
      const call = calls[i];
      if (call === undefined) continue;
      const cut: unknown = (entry.truncated as { fields?: unknown } | undefined)?.fields ?? [];
      assert.ok(Array.isArray(cut));
      if (!cut.includes("name")) assert.equal(entry.name, call.name);
      if (!cut.includes("request_id")) assert.equal(entry.request_id, call.id);
      if (!cut.includes("principal")) assert.equal(entry.principal, principal ?? null);
      if (cut.length === 0) assert.deepEqual(entry.arguments, call.args);
      else {
        assert.match(String((entry.truncated as { sha256: unknown }).sha256), /^[0-9a-f]{64}$/);
      }
    }
  }
});

Deno.test("the line bound holds in both eras, over HTTP, a connection and a direct call", async () => {
  const big = { text: "é\u2028".repeat(100_000) }; // about 800 KB of JSON: under the HTTP body limit
  for (const transport of ["direct", "memory", "http"] as const) {
    for (const era of ["legacy", "modern"] as const) {
      const lines: string[] = [];
      const server = auditedServer(lines, MIN_MAX_LINE_BYTES, undefined);
      const params = { name: "echo", arguments: big };
      if (transport === "memory") {
        const call = era === "legacy"
          ? request(2, "tools/call", params)
          : modernRequest(2, "tools/call", params);
        const opening = era === "legacy"
          ? [initialize(), { jsonrpc: "2.0", method: "notifications/initialized" }]
          : [];
        // A connection's read and write loop, ended by EOF after the last message.
        await server.connect(new MemoryTransport([...opening, call]));
      } else if (transport === "direct") {
        if (era === "legacy") await server.handle(initialize());
        await server.handle(
          era === "legacy"
            ? request(2, "tools/call", params)
            : modernRequest(2, "tools/call", params),
        );
      } else if (era === "legacy") {
        const session = await openSession(server);
        await (await session.post(request(2, "tools/call", params))).text();
      } else {
        await (await modernPost(server, modernRequest(2, "tools/call", params))).text();
      }
      await server.close();
      const entries = checkRun(lines, MIN_MAX_LINE_BYTES);
      assert.equal(entries.length, 1, `${transport} ${era}`);
      assert.deepEqual((entries[0]?.truncated as { fields: unknown }).fields, ["arguments"]);
      assert.equal(entries[0]?.name, "echo");
    }
  }
});

Deno.test("auditLog() takes a line bound from 16 KiB to 4 MiB and names the range otherwise", () => {
  const sink = stderrAuditSink();
  for (const maxLineBytes of [16_383, 4 * 1024 * 1024 + 1, 1.5, Number.NaN]) {
    assert.throws(
      () => auditLog({ sink, maxLineBytes }),
      /from 16384 to 4194304/,
      `${maxLineBytes}`,
    );
  }
  for (const maxLineBytes of [16_384, 4 * 1024 * 1024]) auditLog({ sink, maxLineBytes });
});
