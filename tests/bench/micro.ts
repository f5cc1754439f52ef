/**
 * Runs the `deno bench` micro-benchmarks (tests/bench/*_bench.ts) as a
 * child process with `--json`, and reads back one figure per benchmark, so
 * the runner can put them in its report and judge the targets they carry.
 *
 * @module
 */

/** One micro-benchmark's result. */
export interface MicroResult {
  /** The file name, e.g. `schema_bench.ts`. */
  readonly file: string;
  /** The group it compares within. */
  readonly group: string;
  /** Its name. */
  readonly name: string;
  /** Whether it is its group's baseline. */
  readonly baseline: boolean;
  /** Mean time per iteration, in ns. */
  readonly avgNs: number;
  /** Fastest iteration, in ns. */
  readonly minNs: number;
  /** 75th percentile, in ns. */
  readonly p75Ns: number;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The results in `deno bench --json` output; throws on a failed benchmark or an unknown shape. */
export function parseBenchJson(text: string): MicroResult[] {
  const report: unknown = JSON.parse(text);
  if (!isRecord(report) || !Array.isArray(report.benches)) {
    throw new TypeError("Cannot read deno bench output: no 'benches' list");
  }
  return report.benches.map((bench: unknown): MicroResult => {
    if (!isRecord(bench) || !Array.isArray(bench.results)) {
      throw new TypeError("Cannot read deno bench output: a bench without results");
    }
    const [first] = bench.results;
    const name = String(bench.name);
    if (!isRecord(first) || !isRecord(first.ok)) {
      throw new Error(`Micro-benchmark '${name}' failed: ${JSON.stringify(first)}`);
    }
    const { avg, min, p75 } = first.ok;
    if (typeof avg !== "number" || typeof min !== "number" || typeof p75 !== "number") {
      throw new TypeError(`Cannot read deno bench output: no timings for '${name}'`);
    }
    return {
      file: String(bench.origin).split("/").at(-1) ?? "",
      group: typeof bench.group === "string" ? bench.group : "",
      name,
      baseline: bench.baseline === true,
      avgNs: avg,
      minNs: min,
      p75Ns: p75,
    };
  });
}

/**
 * Runs `deno bench --json` on the micro-benchmark files (with the permissions
 * they need: the audit log's /dev/null, and .bench-results/ for the durable
 * file sink, which needs a real disk) and returns the results.
 * Rejects if any benchmark fails, with deno's own output.
 */
export async function runMicroBenchmarks(root: string): Promise<MicroResult[]> {
  const { success, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "bench",
      "--lock=tests/deno.lock",
      "--json",
      "--no-prompt",
      "--allow-write=/dev/null,.bench-results",
      "--allow-read=/dev/null",
      "--allow-env=WARDEN_BENCH_DIR",
      "tests/bench/",
    ],
    cwd: root,
    env: { WARDEN_BENCH_DIR: ".bench-results" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const output = new TextDecoder().decode(stdout);
  if (!success) {
    const errors = new TextDecoder().decode(stderr);
    throw new Error(`deno bench failed:\n${errors}\n${output.slice(-2000)}`);
  }
  return parseBenchJson(output);
}

/** The mean time of the benchmark named `name` in `group`; throws if there is none. */
export function microAvg(results: readonly MicroResult[], group: string, name: string): number {
  const found = results.find((result) => result.group === group && result.name === name);
  if (found === undefined) throw new Error(`No micro-benchmark '${name}' in group '${group}'`);
  return found.avgNs;
}
