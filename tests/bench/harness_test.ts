/**
 * The benchmark harness measures a correct server and fails loudly on a
 * wrong reply or a crash, so a broken reference server can never pass as a
 * fast one. Workloads are tiny: these tests check behaviour, not speed.
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { measureServer, type ServerSpec } from "./harness.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const TINY = {
  sequentialCalls: 20,
  pipelinedCalls: 200,
  warmupCalls: 20,
  largeBytes: 64 * 1024,
  largeCalls: 1,
  coldStarts: 1,
  timeoutMs: 20_000,
};

/** A server written inline: `deno eval` of `code`. */
function evalServer(name: string, code: string): ServerSpec {
  return { name, command: Deno.execPath(), args: ["eval", code], cwd: ROOT };
}

/** Echoes every call except id 30, whose text it changes. */
const LIAR = `
const encoder = new TextEncoder();
let rest = "";
for await (const text of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
  const lines = (rest + text).split("\\n");
  rest = lines.pop() ?? "";
  for (const line of lines) {
    const message = JSON.parse(line);
    if (message.id === undefined) continue;
    const result = message.method === "initialize"
      ? { protocolVersion: "2025-06-18", capabilities: {}, serverInfo: { name: "liar", version: "1" } }
      : { content: [{ type: "text", text: message.id === 30 ? "lie" : message.params.arguments.text }] };
    await Deno.stdout.write(encoder.encode(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }) + "\\n"));
  }
}`;

Deno.test("measureServer() measures the ceiling with every figure positive and finite", async () => {
  const measurement = await measureServer({
    name: "raw loop",
    command: Deno.execPath(),
    args: ["run", "--no-prompt", "tests/bench/servers/ceiling_stdio.ts"],
    cwd: ROOT,
  }, TINY);
  for (const [figure, value] of Object.entries(measurement)) {
    if (figure === "writesPerCall" || figure === "cpuMicrosPerCall") {
      assert.ok(Number.isFinite(value) && value >= 0, `${figure} is ${value}`);
    } else {
      assert.ok(Number.isFinite(value) && value > 0, `${figure} is ${value}`);
    }
  }
});

Deno.test("measureServer() fails on a reply whose text differs from the text sent", async () => {
  await assert.rejects(
    measureServer(evalServer("liar", LIAR), TINY),
    /^Error: liar: reply 30 does not echo the text sent/,
  );
});

Deno.test("measureServer() fails with the server's stderr when it exits early", async () => {
  await assert.rejects(
    measureServer(evalServer("quitter", 'console.error("no config"); Deno.exit(3)'), TINY),
    /^Error: quitter: the server closed stdout\nserver stderr: no config/,
  );
});
