/**
 * The HTTP benchmark: spawns a server that prints `listening PORT`, checks
 * one full reply with `fetch`, then loads it with `wrk` (16 connections, two
 * threads, a fixed duration, loopback only) sending `tools/call` of `echo`
 * with a fresh id per request. A Lua hook counts every reply that is not the
 * echo (a JSON-RPC error comes with HTTP 200, so the status alone proves
 * nothing) and the run fails on any. The server's peak RSS comes from
 * /proc/PID/status.
 *
 * Three kinds of traffic:
 * - `stateless`: 2025-era requests with no session;
 * - `session`: one legacy session (initialize once), every call carrying its
 *   `Mcp-Session-Id`;
 * - `era-2026`: requests in the 2026-07-28 era (the `_meta` envelope and the
 *   `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers), measured
 *   only when the server answers `server/discover` in that era, and
 *   otherwise reported "n/a (era not served)".
 *
 * @module
 */

import { readProc } from "./harness.ts";

/** An HTTP server to measure: a command that prints `listening PORT` on stdout. */
export interface HttpServerSpec {
  /** A short label. */
  readonly name: string;
  /** The executable. */
  readonly command: string;
  /** Its arguments. */
  readonly args: readonly string[];
  /** The working directory. */
  readonly cwd: string;
}

/** The traffic a load run sends. */
export type HttpTraffic = "stateless" | "session" | "era-2026";

/** One load run's outcome. */
export interface HttpMeasurement {
  /** Replies per second, or NaN when the traffic is not served. */
  readonly requestsPerSecond: number;
  /** The server's peak RSS at the end of the run, in MiB. */
  readonly peakRssMiB: number;
}

const decoder = new TextDecoder();
const ERA = "2026-07-28";
const LEGACY = "2025-06-18";
const TEXT = "bench";

/** The Lua hooks given to wrk: a fresh id per request and a count of replies that are not the echo. */
const LUA = `
wrk.method = "POST"
local threads = {}
local counter = 1
function setup(thread)
  thread:set("base", counter * 100000000)
  counter = counter + 1
  table.insert(threads, thread)
end
function init(args)
  sent = 0
  bad = 0
end
function request()
  sent = sent + 1
  return wrk.format(nil, nil, nil, string.format(template, base + sent))
end
function response(status, headers, body)
  if status ~= 200 or not string.find(body, '"text":"${TEXT}"', 1, true) then bad = bad + 1 end
end
function done(summary, latency, requests)
  local total = 0
  for _, thread in ipairs(threads) do total = total + thread:get("bad") end
  io.write(string.format("BAD %d\\n", total))
end
`;

/** A running server. */
export interface RunningServer {
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

/** Spawns the server and waits for its `listening PORT` line. */
export async function startHttpServer(spec: HttpServerSpec): Promise<RunningServer> {
  const child = new Deno.Command(spec.command, {
    args: [...spec.args],
    cwd: spec.cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${spec.name}: no "listening PORT" within 60 s`)),
      60_000,
    );
  });
  try {
    while (!/listening (\d+)/.test(seen)) {
      const { value, done } = await Promise.race([reader.read(), timeout]);
      if (done) throw new Error(`${spec.name}: exited before listening`);
      seen += value;
    }
  } catch (error) {
    child.kill("SIGKILL");
    await child.status;
    throw error;
  } finally {
    clearTimeout(timer);
  }
  // Anything printed later is drained so the server never blocks on a full pipe.
  const draining = (async () => {
    while (!(await reader.read()).done);
  })().catch(() => {});
  const port = Number(/listening (\d+)/.exec(seen)?.[1]);
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    pid: child.pid,
    async stop() {
      try {
        child.kill("SIGKILL");
      } catch {
        // Already gone.
      }
      await child.status;
      await draining;
    },
  };
}

/** The headers and the body template (with `%d` for the id) of one kind of traffic. */
export interface TrafficShape {
  readonly headers: Record<string, string>;
  readonly template: string;
}

const BASE_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

/** A `tools/call` of `echo` in the given traffic. */
export function callShape(traffic: HttpTraffic, sessionId?: string): TrafficShape {
  const call = (meta: string) =>
    `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"${TEXT}"}${meta}}}`;
  if (traffic === "era-2026") {
    return {
      headers: {
        ...BASE_HEADERS,
        "mcp-protocol-version": ERA,
        "mcp-method": "tools/call",
        "mcp-name": "echo",
      },
      template: call(`,"_meta":${eraMeta()}`),
    };
  }
  const headers: Record<string, string> = { ...BASE_HEADERS, "mcp-protocol-version": LEGACY };
  if (traffic === "session" && sessionId !== undefined) headers["mcp-session-id"] = sessionId;
  return { headers, template: call("") };
}

function eraMeta(): string {
  return JSON.stringify({
    "io.modelcontextprotocol/protocolVersion": ERA,
    "io.modelcontextprotocol/clientInfo": { name: "warden-bench", version: "1.0.0" },
    "io.modelcontextprotocol/clientCapabilities": {},
  });
}

/** The JSON-RPC messages in a reply body, whether JSON or an SSE stream. */
export function messagesOf(contentType: string, body: string): unknown[] {
  if (!contentType.includes("text/event-stream")) return body === "" ? [] : [JSON.parse(body)];
  return body.split("\n").filter((line) => line.startsWith("data:")).map((line) =>
    line.slice(5).trim()
  ).filter((data) => data !== "").map((data) => JSON.parse(data));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** POSTs one message; the reply with the same id, and the response's headers. */
export async function post(
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ reply: Record<string, unknown> | undefined; headers: Headers; status: number }> {
  const response = await fetch(url, { method: "POST", headers, body });
  const text = await response.text();
  const id: unknown = JSON.parse(body).id;
  let reply: Record<string, unknown> | undefined;
  try {
    reply = messagesOf(response.headers.get("content-type") ?? "", text)
      .filter(isRecord).find((message) => message.id === id);
  } catch {
    reply = undefined;
  }
  return { reply, headers: response.headers, status: response.status };
}

/** Opens a legacy session; its id. */
export async function openSession(url: string): Promise<string> {
  const headers = { ...BASE_HEADERS };
  const initialize = JSON.stringify({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: LEGACY,
      capabilities: {},
      clientInfo: { name: "warden-bench", version: "1.0.0" },
    },
  });
  const { reply, headers: replyHeaders, status } = await post(url, headers, initialize);
  const sessionId = replyHeaders.get("mcp-session-id");
  if (status !== 200 || !isRecord(reply?.result) || sessionId === null) {
    throw new Error(`Cannot open a session at ${url}: HTTP ${status}`);
  }
  const initialized = await fetch(url, {
    method: "POST",
    headers: { ...headers, "mcp-session-id": sessionId, "mcp-protocol-version": LEGACY },
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  await initialized.body?.cancel();
  return sessionId;
}

/** Whether the server answers `server/discover` in the 2026-07-28 era. */
export async function servesEra2026(url: string): Promise<boolean> {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "server/discover",
    params: { _meta: JSON.parse(eraMeta()) },
  });
  try {
    const { reply, status } = await post(url, {
      ...BASE_HEADERS,
      "mcp-protocol-version": ERA,
      "mcp-method": "server/discover",
    }, body);
    return status === 200 && isRecord(reply?.result);
  } catch {
    return false;
  }
}

/** Checks one call of the given shape with fetch: it must come back as the echo. */
async function checkOneCall(url: string, shape: TrafficShape, name: string): Promise<void> {
  const { reply, status } = await post(url, shape.headers, shape.template.replace("%d", "7"));
  const content = isRecord(reply?.result) ? reply.result.content : undefined;
  const block = Array.isArray(content) ? content[0] : undefined;
  if (status !== 200 || !isRecord(block) || block.text !== TEXT) {
    throw new Error(`${name}: the probe call did not come back as the echo (HTTP ${status})`);
  }
}

/** Load options. */
export interface LoadOptions {
  /** Open connections. @default {16} */
  connections?: number;
  /** Measured seconds. @default {3} */
  seconds?: number;
  /** Unmeasured warm-up seconds. @default {1} */
  warmupSeconds?: number;
}

/** Runs wrk; requests per second, failing on any socket error or reply that is not the echo. */
async function wrk(
  url: string,
  shape: TrafficShape,
  seconds: number,
  connections: number,
  name: string,
): Promise<number> {
  const script = await Deno.makeTempFile({ prefix: "warden-bench-", suffix: ".lua" });
  try {
    await Deno.writeTextFile(script, `template = ${JSON.stringify(shape.template)}\n${LUA}`);
    const args = [
      "-t2",
      `-c${connections}`,
      `-d${seconds}s`,
      // A reply slower than this is a failure; wrk's default of 2 s is too short for the slowest
      // servers on a loaded 2-core machine.
      "--timeout",
      "10s",
      "-s",
      script,
      ...Object.entries(shape.headers).flatMap(([key, value]) => ["-H", `${key}: ${value}`]),
      url,
    ];
    const { success, stdout, stderr } = await new Deno.Command("wrk", { args }).output();
    const text = decoder.decode(stdout);
    if (!success) throw new Error(`${name}: wrk failed: ${decoder.decode(stderr)}${text}`);
    const rate = /Requests\/sec:\s+([\d.]+)/.exec(text)?.[1];
    const bad = Number(/^BAD (\d+)$/m.exec(text)?.[1] ?? Number.NaN);
    const errors = /Socket errors: (.+)$/m.exec(text)?.[1];
    if (rate === undefined || !(bad === 0) || errors !== undefined) {
      throw new Error(`${name}: ${bad} bad replies or socket errors under load:\n${text}`);
    }
    return Number(rate);
  } finally {
    await Deno.remove(script).catch(() => {});
  }
}

/** Whether wrk is installed. */
export async function hasWrk(): Promise<boolean> {
  try {
    return (await new Deno.Command("wrk", { args: ["-v"], stdout: "null", stderr: "null" })
      .output()).code <= 1;
  } catch {
    return false;
  }
}

/** Peak RSS of a process, in MiB. */
export async function peakRssMiB(pid: number): Promise<number> {
  const match = /^VmHWM:\s+(\d+) kB$/m.exec(await readProc(`/proc/${pid}/status`));
  if (match?.[1] === undefined) throw new Error(`Cannot read VmHWM of ${pid}`);
  return Number(match[1]) / 1024;
}

/** Spawns the server, loads it with `traffic` and stops it. */
export async function measureHttp(
  spec: HttpServerSpec,
  traffic: HttpTraffic,
  options: LoadOptions = {},
): Promise<HttpMeasurement> {
  const connections = options.connections ?? 16;
  const server = await startHttpServer(spec);
  try {
    if (traffic === "era-2026" && !(await servesEra2026(server.url))) {
      return { requestsPerSecond: Number.NaN, peakRssMiB: Number.NaN };
    }
    const sessionId = traffic === "session" ? await openSession(server.url) : undefined;
    const shape = callShape(traffic, sessionId);
    await checkOneCall(server.url, shape, spec.name);
    await wrk(server.url, shape, options.warmupSeconds ?? 1, connections, spec.name);
    const requestsPerSecond = await wrk(
      server.url,
      shape,
      options.seconds ?? 3,
      connections,
      spec.name,
    );
    return { requestsPerSecond, peakRssMiB: await peakRssMiB(server.pid) };
  } finally {
    await server.stop();
  }
}
