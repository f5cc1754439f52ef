/**
 * What the report says about the machine it ran on.
 *
 * @module
 */

import { readProc } from "./harness.ts";
import { outputOf } from "./node_packages.ts";

/** CPU, cores, memory, kernel and runtimes. */
export async function describeMachine(nodeVersion: string | undefined): Promise<string> {
  const cpuinfo = await readProc("/proc/cpuinfo");
  const cpu = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1] ?? "unknown CPU";
  const memKiB = Number(/^MemTotal:\s+(\d+)/m.exec(await readProc("/proc/meminfo"))?.[1] ?? 0);
  const kernel = await outputOf("uname", ["-sr"]) ?? "unknown kernel";
  const wrk = (await outputOf("sh", ["-c", "wrk -v 2>&1 | head -1"]))?.split(" ")[1] ?? "absent";
  return `${cpu}, ${navigator.hardwareConcurrency} cores, ${
    (memKiB / 1024 / 1024).toFixed(0)
  } GiB, ${kernel}; Deno ${Deno.version.deno}, Node ${nodeVersion ?? "absent"}, wrk ${wrk}`;
}

/** The 1, 5 and 15 minute load averages. */
export async function loadAverage(): Promise<string> {
  return (await readProc("/proc/loadavg")).split(" ").slice(0, 3).join(" ");
}
