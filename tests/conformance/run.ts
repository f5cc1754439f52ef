/**
 * Runs the official MCP conformance suite (`--suite all`) against
 * examples/conformance.ts on a free loopback port, and fails on any FAILURE
 * or WARNING check. `--runs N` repeats it (flake hunting); `--stdio` is not
 * offered because the suite's server mode speaks HTTP only.
 *
 *   deno task conformance [--runs N] [--scenario NAME]
 */

import { parseArgs } from "node:util";

const SUITE = "npm:@modelcontextprotocol/conformance@0.1.16";
const root = new URL("../../", import.meta.url);

const { values } = parseArgs({
  args: Deno.args,
  options: { runs: { type: "string", default: "1" }, scenario: { type: "string" } },
  strict: true,
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) {
  console.error("conformance: --runs needs a positive integer");
  Deno.exit(2);
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr;
  listener.close();
  return port;
}

async function waitForReady(stderr: ReadableStream<Uint8Array>): Promise<void> {
  const decoder = new TextDecoder();
  let seen = "";
  const reader = stderr.getReader();
  const deadline = setTimeout(() => reader.cancel(), 30_000);
  try {
    while (!seen.includes("ready on")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the fixture exited before it was ready:\n${seen}`);
      seen += decoder.decode(value, { stream: true });
    }
  } finally {
    clearTimeout(deadline);
    reader.releaseLock();
  }
  // Keep draining so the fixture never blocks on a full pipe.
  stderr.pipeTo(new WritableStream()).catch(() => {});
}

interface Tally {
  scenarios: number;
  success: number;
  failure: number;
  warning: number;
  info: number;
  problems: string[];
}

async function tallyResults(dir: string): Promise<Tally> {
  const tally: Tally = { scenarios: 0, success: 0, failure: 0, warning: 0, info: 0, problems: [] };
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.isDirectory) continue;
    tally.scenarios++;
    const checks: { id: string; status: string; errorMessage?: string }[] = JSON.parse(
      await Deno.readTextFile(`${dir}/${entry.name}/checks.json`),
    );
    for (const check of checks) {
      if (check.status === "SUCCESS") tally.success++;
      else if (check.status === "INFO") tally.info++;
      else {
        if (check.status === "FAILURE") tally.failure++;
        else tally.warning++;
        tally.problems.push(
          `${entry.name}: ${check.id} ${check.status} ${check.errorMessage ?? ""}`,
        );
      }
    }
  }
  return tally;
}

async function runOnce(run: number): Promise<boolean> {
  const port = freePort();
  const fixture = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-net=127.0.0.1", "examples/conformance.ts", "--port", String(port)],
    cwd: root,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const results = await Deno.makeTempDir({ prefix: "warden-conformance-" });
  try {
    await waitForReady(fixture.stderr);
    const suiteArgs = [
      "run",
      "--no-config",
      "--no-lock",
      "-A",
      SUITE,
      "server",
      "--url",
      `http://127.0.0.1:${port}/mcp`,
      "-o",
      results,
      ...(values.scenario === undefined ? ["--suite", "all"] : ["--scenario", values.scenario]),
    ];
    const suite = await new Deno.Command(Deno.execPath(), {
      args: suiteArgs,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const tally = await tallyResults(results);
    const clean = suite.success && tally.failure === 0 && tally.warning === 0 &&
      tally.scenarios > 0;
    console.log(
      `conformance run ${run}: ${tally.scenarios} scenarios, ${tally.success} success, ${tally.failure} failure, ` +
        `${tally.warning} warning, ${tally.info} info, exit ${suite.code}: ${
          clean ? "clean" : "NOT CLEAN"
        }`,
    );
    if (!clean) {
      for (const problem of tally.problems) console.log(`  ${problem}`);
      if (tally.scenarios === 0 || !suite.success) {
        console.log(new TextDecoder().decode(suite.stdout).slice(-4000));
        console.log(new TextDecoder().decode(suite.stderr).slice(-4000));
      }
    }
    return clean;
  } finally {
    try {
      fixture.kill("SIGTERM");
    } catch {
      // Already gone.
    }
    await fixture.status;
    await Deno.remove(results, { recursive: true });
  }
}

let clean = 0;
for (let run = 1; run <= runs; run++) {
  if (await runOnce(run)) clean++;
}
console.log(`conformance: ${clean} of ${runs} runs clean`);
if (clean !== runs) Deno.exit(1);
