/**
 * The benchmark runner behind `deno task bench`: runs the `deno bench`
 * micro-benchmarks, then measures five stdio servers exposing the same
 * `echo` tool (the raw Deno loop, Warden, Warden with all four guardrails,
 * the official SDK on Deno and on Node) interleaved round by round
 * (A B C D E A B C D E …), and prints markdown tables of medians and ratios
 * to the raw loop, the guardrails' cost and the issue's targets, PASS or MISS.
 *
 * On first use it installs the SDK for Node next to its server
 * (tests/bench/servers/node_modules, ignored by git) with npm.
 *
 * Usage: `deno task bench`, or
 * `deno run --allow-run --allow-read=tests/bench/servers/node_modules tests/bench/run.ts [options]`
 *
 * - `--rounds N`: rounds of the five servers (default 5)
 * - `--quick`: a small workload and one round, to check that everything runs
 * - `--no-micro`: skip `deno bench`
 * - `--json FILE`: also write every sample there (needs `--allow-write` for it)
 * - `--strict`: exit with 1 when a target is missed
 *
 * @module
 */

import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import {
  coldStart,
  type HarnessOptions,
  type Measurement,
  measureServer,
  readProc,
  type ServerSpec,
} from "./harness.ts";
import { type MicroResult, runMicroBenchmarks } from "./micro.ts";
import {
  judgeTargets,
  microTable,
  pairedRatio,
  type ServerSamples,
  stdioTable,
  targetsLine,
} from "./report.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SERVERS = "tests/bench/servers";
const SDK_VERSION = "1.32.2";
/** The zod tests/deno.lock resolves for the SDK, so that Node runs the same code as Deno. */
const ZOD_VERSION = "4.6.7";
const decoder = new TextDecoder();

function log(message: string): void {
  console.error(`bench: ${message}`);
}

/** Runs a command to completion; its trimmed stdout, or undefined when it fails or is missing. */
async function outputOf(command: string, args: string[]): Promise<string | undefined> {
  try {
    const { success, stdout } = await new Deno.Command(command, { args, stderr: "null" }).output();
    return success ? decoder.decode(stdout).trim() : undefined;
  } catch {
    return undefined;
  }
}

async function installedSdkVersion(): Promise<string | undefined> {
  try {
    const path = `${ROOT}${SERVERS}/node_modules/@modelcontextprotocol/sdk/package.json`;
    const manifest: unknown = JSON.parse(await Deno.readTextFile(path));
    return typeof manifest === "object" && manifest !== null && "version" in manifest
      ? String(manifest.version)
      : undefined;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

/** Installs the SDK for Node beside its server unless it is there; false when there is no Node. */
async function ensureNodeSdk(): Promise<boolean> {
  if (await outputOf("node", ["--version"]) === undefined) {
    log("node not found: the SDK-on-Node column is skipped");
    return false;
  }
  if (await installedSdkVersion() === SDK_VERSION) return true;
  log(`installing @modelcontextprotocol/sdk@${SDK_VERSION} for Node into ${SERVERS}/node_modules`);
  const { success } = await new Deno.Command("npm", {
    args: [
      "install",
      "--no-save",
      "--no-audit",
      "--no-fund",
      "--prefix",
      SERVERS,
      `@modelcontextprotocol/sdk@${SDK_VERSION}`,
      `zod@${ZOD_VERSION}`,
    ],
    cwd: ROOT,
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!success || await installedSdkVersion() !== SDK_VERSION) {
    throw new Error(`Cannot install the SDK for Node: npm install failed in ${SERVERS}`);
  }
  return true;
}

/** The reference servers, in the order each round runs them. */
function references(withNode: boolean): ServerSpec[] {
  const deno = Deno.execPath();
  const run = (
    file: string,
    ...extra: string[]
  ): string[] => ["run", "--lock=tests/deno.lock", "--no-prompt", ...extra, file];
  const specs: ServerSpec[] = [
    { name: "raw Deno loop", command: deno, args: run(`${SERVERS}/raw_loop.ts`), cwd: ROOT },
    { name: "Warden", command: deno, args: run(`${SERVERS}/warden_server.ts`), cwd: ROOT },
    {
      name: "Warden + 4 guardrails",
      command: deno,
      args: [...run(`${SERVERS}/warden_server.ts`, "--allow-write=/dev/null"), "--guardrails"],
      cwd: ROOT,
    },
    {
      name: `SDK ${SDK_VERSION} on Deno`,
      command: deno,
      args: run(`${SERVERS}/sdk_server.mjs`),
      cwd: ROOT,
    },
  ];
  if (withNode) {
    specs.push({
      name: `SDK ${SDK_VERSION} on Node`,
      command: "node",
      args: [`${SERVERS}/sdk_server.mjs`],
      cwd: ROOT,
    });
  }
  return specs;
}

/** CPU, cores, memory, kernel and runtimes, for the report. */
async function describeMachine(nodeVersion: string | undefined): Promise<string> {
  const cpuinfo = await readProc("/proc/cpuinfo");
  const cpu = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1] ?? "unknown CPU";
  const memKiB = Number(/^MemTotal:\s+(\d+)/m.exec(await readProc("/proc/meminfo"))?.[1] ?? 0);
  const kernel = await outputOf("uname", ["-sr"]) ?? "unknown kernel";
  return `${cpu}, ${navigator.hardwareConcurrency} cores, ${
    (memKiB / 1024 / 1024).toFixed(0)
  } GiB, ` +
    `${kernel}; Deno ${Deno.version.deno}, Node ${nodeVersion ?? "absent"}`;
}

async function loadAverage(): Promise<string> {
  return (await readProc("/proc/loadavg")).split(" ").slice(0, 3).join(" ");
}

const { values: flags } = parseArgs({
  args: Deno.args,
  options: {
    rounds: { type: "string", default: "5" },
    quick: { type: "boolean", default: false },
    "no-micro": { type: "boolean", default: false },
    json: { type: "string" },
    strict: { type: "boolean", default: false },
  },
});
const rounds = flags.quick ? 1 : Number(flags.rounds);
if (!Number.isInteger(rounds) || rounds < 1) {
  throw new RangeError(`Invalid --rounds: expected a positive integer, got ${flags.rounds}`);
}
const workload: HarnessOptions = flags.quick
  ? { sequentialCalls: 300, pipelinedCalls: 2000, warmupCalls: 300, largeCalls: 2, coldStarts: 2 }
  : {};

const began = performance.now();
const loadBefore = await loadAverage();
const withNode = await ensureNodeSdk();
const machine = await describeMachine(withNode ? await outputOf("node", ["--version"]) : undefined);

let micro: MicroResult[] | undefined;
if (!flags["no-micro"]) {
  log("running the micro-benchmarks (deno bench)");
  micro = await runMicroBenchmarks(ROOT);
}

const specs = references(withNode);
// One unmeasured start each, so every server's caches (transpiled code, V8 code cache) are warm.
for (const spec of specs) await coldStart(spec, 60_000);
const measured: Measurement[][] = specs.map(() => []);
for (let round = 1; round <= rounds; round++) {
  for (const [index, spec] of specs.entries()) {
    const started = performance.now();
    const measurement = await measureServer(spec, workload);
    measured[index]?.push(measurement);
    log(
      `round ${round}/${rounds}: ${spec.name} (${
        ((performance.now() - started) / 1000).toFixed(1)
      } s)`,
    );
  }
}

const samples: ServerSamples[] = specs.map((spec, index) => ({
  label: spec.name,
  samples: measured[index] ?? [],
}));
const [raw, warden, guarded] = samples;
if (raw === undefined || warden === undefined || guarded === undefined) {
  throw new Error("The raw loop, Warden and guarded Warden are all required");
}
const loadAfter = await loadAverage();
const seconds = (performance.now() - began) / 1000;
const targets = judgeTargets({ raw, warden, guarded, micro });
const guardCost = 1 - pairedRatio(guarded, warden, "pipelinedPerSecond");
const workloadNote = flags.quick ? "quick workload" : "default workload";

const report = [
  `Machine: ${machine}. Load average ${loadBefore} before, ${loadAfter} after.`,
  "",
  `### stdio, one \`echo\` tool: medians of ${rounds} interleaved round(s), ${workloadNote}`,
  "",
  stdioTable(samples, raw),
  "",
  `Guardrail cost: all four guardrails (permissive policy) take ${
    (guardCost * 100).toFixed(1)
  }% off Warden's pipelined throughput.`,
];
if (micro !== undefined) {
  report.push("", "### Micro-benchmarks (deno bench)", "", microTable(micro));
}
report.push("", targetsLine(targets), "", `Total time: ${seconds.toFixed(0)} s.`);
console.log(report.join("\n"));

if (flags.json !== undefined) {
  const record = { machine, loadBefore, loadAfter, rounds, workload, samples, micro, targets };
  await Deno.writeTextFile(flags.json, `${JSON.stringify(record, null, 2)}\n`);
}
if (flags.strict && targets.some((target) => !target.pass)) Deno.exit(1);
