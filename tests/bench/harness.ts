/**
 * The stdio benchmark client: spawns any MCP server command that exposes an
 * `echo` tool (`{ text: string }` → one text block with the same text) and
 * measures, over newline-delimited JSON on its stdin and stdout:
 *
 * - cold start: spawn to the `initialize` reply, the median of several spawns;
 * - sequential `tools/call`s per second (one in flight) and pipelined ones
 *   (a window of 64 in flight), each phase run in four parts of which the
 *   median part's rate is kept;
 * - the round trip of a call whose argument is 1 MiB of text;
 * - the server's peak RSS (`VmHWM` in /proc/PID/status) at the end;
 * - the server's CPU per pipelined call (its threads' run time from
 *   /proc/PID/task/TID/schedstat over the pipelined phase, divided by its
 *   calls);
 * - as a diagnostic, the server's write system calls per pipelined call
 *   (`syscw` from /proc/PID/io), which shows how well replies are batched.
 *
 * Every reply is checked (its id is one in flight, its content is one text
 * block equal to the text sent) and a wrong one fails the run loudly.
 *
 * As a command, it measures one server and prints the figures as JSON:
 * `deno run --allow-run tests/bench/harness.ts -- deno run tests/bench/servers/raw_loop.ts`
 *
 * @module
 */

import { initialize, type ServerSpec, Session } from "./stdio_session.ts";
import { median } from "./stats.ts";

export type { ServerSpec };

/** How much work one measurement does. */
export interface HarnessOptions {
  /**
   * Calls made one at a time.
   * @default {4000}
   */
  sequentialCalls?: number;
  /**
   * Calls made with `window` in flight.
   * @default {20000}
   */
  pipelinedCalls?: number;
  /**
   * Requests in flight during the pipelined phase.
   * @default {64}
   */
  window?: number;
  /**
   * Calls made (sequential and pipelined, unmeasured) before measuring, so the JIT has warmed up.
   * @default {3000}
   */
  warmupCalls?: number;
  /**
   * Characters of text in the large call's argument (ASCII, so also its bytes).
   * @default {1048576}
   */
  largeBytes?: number;
  /**
   * Large calls measured, one at a time, after one unmeasured; the median is kept.
   * @default {5}
   */
  largeCalls?: number;
  /**
   * Separate spawns timed from spawn to the initialize reply; the median is kept.
   * @default {5}
   */
  coldStarts?: number;
  /**
   * The longest any one phase may take before the run fails.
   * @default {60000}
   */
  timeoutMs?: number;
}

/** What one measurement of one server found. */
export interface Measurement {
  /** Sequential calls per second. */
  sequentialPerSecond: number;
  /** Pipelined calls per second. */
  pipelinedPerSecond: number;
  /** Median round trip of a call with a 1 MiB argument, in ms. */
  largeRoundTripMs: number;
  /** Median time from spawn to the initialize reply, in ms. */
  coldStartMs: number;
  /** The server's peak resident set size, in MiB. */
  peakRssMiB: number;
  /** The server's CPU time (user + system) per pipelined call, in µs. */
  cpuMicrosPerCall: number;
  /**
   * Write-type system calls (`syscw` in /proc/PID/io) per pipelined call: a
   * diagnostic of how well replies are batched. It also counts the
   * runtime's own wake-up writes (eventfd), so it is an upper bound.
   */
  writesPerCall: number;
}
const decoder = new TextDecoder();
/** The parts each call phase is split into; its rate is the median of theirs. */
const PARTS = 4;

export { median };

/**
 * The text of a file under /proc. Deno asks for --allow-all before it reads
 * anything there, so it is read through `cat`, which needs only --allow-run
 * (which the harness has anyway).
 */
export async function readProc(path: string): Promise<string> {
  const { success, stdout, stderr } = await new Deno.Command("cat", { args: [path] }).output();
  if (!success) throw new Error(`Cannot read ${path}: ${decoder.decode(stderr).trim()}`);
  return decoder.decode(stdout);
}

/**
 * The CPU time of a process's live threads, in ns: the first field of each
 * /proc/PID/task/TID/schedstat, summed. Nanoseconds, where /proc/PID/stat
 * counts 10 ms ticks (too coarse for 20,000 calls of a few µs). A thread
 * that exits between two readings takes its time with it; Deno's I/O
 * threads idle for seconds before they exit, longer than a phase lasts.
 */
export async function cpuNanos(pid: number): Promise<number> {
  const { success, stdout } = await new Deno.Command("sh", {
    args: ["-c", `cat /proc/${pid}/task/*/schedstat`],
    stderr: "null",
  }).output();
  if (!success) throw new Error(`Cannot read /proc/${pid}/task/*/schedstat`);
  return schedstatNanos(decoder.decode(stdout));
}

/** The sum of the first field (ns on the CPU) of schedstat lines. */
export function schedstatNanos(text: string): number {
  let total = 0;
  for (const line of text.split("\n")) {
    const first = line.trim().split(" ")[0];
    if (first === undefined || first === "") continue;
    const value = Number(first);
    if (!Number.isSafeInteger(value)) throw new Error(`Cannot read schedstat line: ${line}`);
    total += value;
  }
  return total;
}

/** The count of write-type system calls in the text of /proc/PID/io. */
function writeSyscalls(io: string): number {
  const match = /^syscw: (\d+)$/m.exec(io);
  if (match?.[1] === undefined) throw new Error("Cannot read syscw: not in /proc/PID/io");
  return Number(match[1]);
}

/** The peak resident set size of a process, in KiB. */
async function peakRssKiB(pid: number): Promise<number> {
  const status = await readProc(`/proc/${pid}/status`);
  const match = /^VmHWM:\s+(\d+) kB$/m.exec(status);
  if (match?.[1] === undefined) throw new Error(`Cannot read VmHWM: not in /proc/${pid}/status`);
  return Number(match[1]);
}
/** One spawn timed from spawn to the initialize reply, in ms (also how the runner primes caches). */
export async function coldStart(spec: ServerSpec, timeoutMs: number): Promise<number> {
  const spawned = performance.now();
  const session = new Session(spec);
  try {
    const elapsed = await initialize(session, spawned, timeoutMs);
    await session.close();
    return elapsed;
  } catch (error) {
    session.kill();
    throw error;
  }
}

/** A 1 MiB-ish text that no redaction preset touches, varied so the server can't memoise it. */
function largeText(bytes: number, seed: number): string {
  const line = `The quick brown fox ${seed} jumps over the lazy dog; `;
  return line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes);
}

/**
 * Measures one server: cold starts first (separate spawns), then one session
 * running warm-up, sequential, pipelined and large calls. Rejects, with the
 * server's name and the end of its stderr, on any wrong reply, a crash or a
 * timeout.
 */
export async function measureServer(
  spec: ServerSpec,
  options: HarnessOptions = {},
): Promise<Measurement> {
  const sequentialCalls = options.sequentialCalls ?? 4000;
  const pipelinedCalls = options.pipelinedCalls ?? 20000;
  const window = options.window ?? 64;
  const warmupCalls = options.warmupCalls ?? 3000;
  const largeBytes = options.largeBytes ?? 1024 * 1024;
  const largeCalls = options.largeCalls ?? 5;
  const coldStarts = options.coldStarts ?? 5;
  const timeoutMs = options.timeoutMs ?? 60_000;

  const starts: number[] = [];
  for (let i = 0; i < coldStarts; i++) starts.push(await coldStart(spec, timeoutMs));

  const spawned = performance.now();
  const session = new Session(spec);
  try {
    await initialize(session, spawned, timeoutMs);
    let id = 1;
    const warmSequential = Math.floor(warmupCalls / 4);
    await session.echo(warmSequential, 1, (i) => `warm-${i}`, timeoutMs, id);
    id += warmSequential;
    await session.echo(warmupCalls - warmSequential, window, (i) => `warm-${i}`, timeoutMs, id);
    id += warmupCalls - warmSequential;

    // Each call phase runs in equal parts and keeps the median rate, so that a burst of load
    // from another process during one part does not decide the figure.
    const rate = async (calls: number, inFlight: number, label: string): Promise<number> => {
      const part = Math.ceil(calls / PARTS);
      const rates: number[] = [];
      for (let done = 0; done < calls; done += part) {
        const count = Math.min(part, calls - done);
        const ms = await session.echo(
          count,
          inFlight,
          (i) => `${label}-${done + i}`,
          timeoutMs,
          id,
        );
        id += count;
        rates.push(count / (ms / 1000));
      }
      return median(rates);
    };
    const sequentialPerSecond = await rate(sequentialCalls, 1, "seq");
    const cpuBefore = await cpuNanos(session.pid);
    const writesBefore = writeSyscalls(await readProc(`/proc/${session.pid}/io`));
    const pipelinedPerSecond = await rate(pipelinedCalls, window, "pipe");
    const cpuAfter = await cpuNanos(session.pid);
    const writesAfter = writeSyscalls(await readProc(`/proc/${session.pid}/io`));

    const texts = Array.from({ length: largeCalls + 1 }, (_, i) => largeText(largeBytes, i));
    const large: number[] = [];
    for (const [index, text] of texts.entries()) {
      const elapsed = await session.echo(1, 1, () => text, timeoutMs, id++);
      if (index > 0) large.push(elapsed);
    }
    const peakKiB = await peakRssKiB(session.pid);
    await session.close();
    return {
      sequentialPerSecond,
      pipelinedPerSecond,
      largeRoundTripMs: median(large),
      coldStartMs: median(starts),
      peakRssMiB: peakKiB / 1024,
      cpuMicrosPerCall: (cpuAfter - cpuBefore) / 1e3 / pipelinedCalls,
      writesPerCall: (writesAfter - writesBefore) / pipelinedCalls,
    };
  } catch (error) {
    session.kill();
    throw error;
  }
}

if (import.meta.main) {
  const separator = Deno.args.indexOf("--");
  const [command, ...args] = separator === -1 ? Deno.args : Deno.args.slice(separator + 1);
  if (command === undefined) {
    console.error("Usage: harness.ts -- COMMAND [ARGS...]");
    Deno.exit(2);
  }
  const measurement = await measureServer({ name: command, command, args });
  console.log(JSON.stringify(measurement, null, 2));
}
