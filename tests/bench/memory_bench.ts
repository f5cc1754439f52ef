/**
 * Memory under load, bounded and measured: the peak RSS (`VmHWM`) of a
 * server process after
 *
 * - `sessions`: 10,000 legacy HTTP sessions opened (initialize only, 16 at a
 *   time) and left open;
 * - `subscriptions`: 1,000 `resources/subscribe` of distinct URIs in one
 *   legacy stdio session, each answered, all left open;
 * - `queued`: 10,000 `tools/call`s of `echo` written to stdio in one go, so
 *   they queue in the server, every reply checked. The bench server's
 *   in-flight quota is raised to 10,000 (`--inflight`): at the default, 64
 *   a principal, the calls past it are refused at once, which is the bound;
 * - `listen`: 1,000 `subscriptions/listen` streams of revision 2026-07-28
 *   over HTTP (SSE), opened 16 at a time, each acknowledged, all left open.
 *   Each comes from its own principal (an `x-user` header the bench server
 *   authenticates), as many clients' streams do; the default quota of 16
 *   streams per principal stays in force.
 *
 * Each figure is compared with the ceiling server's under the same load.
 *
 * @module
 */

import { type HttpServerSpec, openSession, peakRssMiB, startHttpServer } from "./http_bench.ts";
import { initialize, type ServerSpec, Session } from "./stdio_session.ts";

/** A memory scenario. */
export type MemoryScenario = "sessions" | "subscriptions" | "queued" | "listen";

/** How big each scenario is. */
export const SCENARIO_SIZE: Readonly<Record<MemoryScenario, number>> = {
  sessions: 10_000,
  subscriptions: 1_000,
  queued: 10_000,
  listen: 1_000,
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

/** The body of one `subscriptions/listen` request of revision 2026-07-28. */
function listenBody(id: number): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "subscriptions/listen",
    params: {
      notifications: { toolsListChanged: true, resourcesListChanged: true },
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { name: "warden-bench", version: "1.0.0" },
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  });
}

/** Opens one listen stream as principal `user-N`; resolves with its reader once acknowledged. */
async function openListen(
  url: string,
  index: number,
): Promise<ReadableStreamDefaultReader<Uint8Array>> {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "subscriptions/listen",
      "x-user": `user-${index}`,
    },
    body: listenBody(index),
  });
  const type = response.headers.get("content-type") ?? "";
  if (response.body === null || !type.includes("text/event-stream")) {
    const text = await response.text();
    throw new Error(
      `listen stream ${index}: HTTP ${response.status} ${type}: ${text.slice(0, 200)}`,
    );
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let seen = "";
  while (!seen.includes("notifications/subscriptions/acknowledged")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`listen stream ${index} ended before its acknowledgement`);
    seen += decoder.decode(value, { stream: true });
  }
  return reader;
}

/**
 * Opens `count` listen streams (16 at a time, each from its own principal),
 * waits for every acknowledgement and holds them open; the server's peak RSS
 * in MiB, read while all are open.
 */
export async function listenPeak(spec: HttpServerSpec, count: number): Promise<number> {
  const server = await startHttpServer(spec);
  const open: ReadableStreamDefaultReader<Uint8Array>[] = [];
  try {
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < count) open.push(await openListen(server.url, next++));
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    if (open.length !== count) throw new Error(`${spec.name}: ${open.length} streams of ${count}`);
    return await peakRssMiB(server.pid);
  } finally {
    await Promise.all(open.map((reader) => reader.cancel().catch(() => {})));
    await server.stop();
  }
}
