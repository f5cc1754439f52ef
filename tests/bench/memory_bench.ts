/**
 * Memory under load, bounded and measured: the peak RSS (`VmHWM`) of a
 * server process after
 *
 * - `sessions`: 10,000 legacy HTTP sessions opened (initialize only, 16 at a
 *   time) and left open;
 * - `subscriptions`: 1,000 `resources/subscribe` of distinct URIs in one
 *   legacy stdio session, each answered, all left open;
 * - `queued`: 10,000 `tools/call`s of `echo` written to stdio in one go, so
 *   they queue in the server, every reply checked.
 *
 * Each figure is compared with the ceiling server's under the same load.
 *
 * @module
 */

import { type HttpServerSpec, openSession, peakRssMiB, startHttpServer } from "./http_bench.ts";
import { initialize, type ServerSpec, Session } from "./stdio_session.ts";

/** A memory scenario. */
export type MemoryScenario = "sessions" | "subscriptions" | "queued";

/** How big each scenario is. */
export const SCENARIO_SIZE: Readonly<Record<MemoryScenario, number>> = {
  sessions: 10_000,
  subscriptions: 1_000,
  queued: 10_000,
};

const TIMEOUT_MS = 120_000;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Opens `count` legacy sessions, 16 at a time; the server's peak RSS in MiB. */
export async function sessionsPeak(spec: HttpServerSpec, count: number): Promise<number> {
  const server = await startHttpServer(spec);
  try {
    let opened = 0;
    const ids = new Set<string>();
    const worker = async (): Promise<void> => {
      while (opened < count) {
        opened++;
        ids.add(await openSession(server.url));
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    if (ids.size !== count) {
      throw new Error(`${spec.name}: ${ids.size} distinct sessions of ${count}`);
    }
    return await peakRssMiB(server.pid);
  } finally {
    await server.stop();
  }
}

/** Runs `load` on a fresh stdio session of `spec`; the server's peak RSS in MiB. */
async function stdioPeak(
  spec: ServerSpec,
  load: (session: Session) => Promise<unknown>,
): Promise<number> {
  const session = new Session(spec);
  try {
    await initialize(session, performance.now(), TIMEOUT_MS);
    await load(session);
    const peak = await peakRssMiB(session.pid);
    await session.close();
    return peak;
  } catch (error) {
    session.kill();
    throw error;
  }
}

/** Subscribes to `count` distinct items (64 in flight); the server's peak RSS in MiB. */
export function subscriptionsPeak(spec: ServerSpec, count: number): Promise<number> {
  return stdioPeak(spec, (session) =>
    session.exchange(
      count,
      64,
      TIMEOUT_MS,
      1,
      (id, index) =>
        `{"jsonrpc":"2.0","id":${id},"method":"resources/subscribe","params":{"uri":"bench://item/${index}"}}\n`,
      (message) =>
        isRecord(message) && isRecord(message.result) ? undefined : "a subscribe that failed",
    ));
}

/** Writes `count` echo calls at once; the server's peak RSS in MiB. */
export function queuedPeak(spec: ServerSpec, count: number): Promise<number> {
  return stdioPeak(spec, (session) => session.echo(count, count, (i) => `q${i}`, TIMEOUT_MS, 1));
}
