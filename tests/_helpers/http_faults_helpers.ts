/**
 * Helpers for the fault tests with real processes: start a server command
 * (Deno, a bundle on Node, Bun), wait for its "ready on" line, speak
 * Streamable HTTP to it with fetch, and read its audit file.
 */

import assert from "node:assert/strict";
import { isRecord, within } from "./helpers.ts";
import { ROOT } from "./subprocess.ts";

/** A server child process and what it printed. */
export interface Served {
  /** The child, for signals. */
  readonly child: Deno.ChildProcess;
  /** Its exit status, once it has exited. */
  readonly status: Promise<Deno.CommandStatus>;
  /** Every stderr line so far. */
  readonly stderr: readonly string[];
  /** The endpoint URL, or "stdio". */
  readonly url: string;
  /** Resolves once `count` stderr lines match `pattern`. */
  waitFor(pattern: RegExp, count: number): Promise<void>;
  /** Writes one JSON-RPC message as a line to stdin (stdio servers). */
  send(message: unknown): Promise<void>;
  /** Every stdout line so far (stdio servers' replies). */
  readonly stdout: readonly string[];
  /** Sends a request over stdin and resolves to the stdout reply with its id. */
  request(id: number, method: string, params?: Record<string, unknown>): Promise<
    Record<string, unknown>
  >;
  /** Closes the child's stdin (EOF). */
  closeInput(): Promise<void>;
  /** Kills the child if it still runs and waits for its pipes. */
  cleanUp(): Promise<void>;
}

function lines(stream: ReadableStream<Uint8Array>, onLine: () => void) {
  const collected: string[] = [];
  const done = (async () => {
    let rest = "";
    for await (const text of stream.pipeThrough(new TextDecoderStream())) {
      const parts = (rest + text).split("\n");
      rest = parts.pop() ?? "";
      for (const part of parts) {
        collected.push(part);
        onLine();
      }
    }
    if (rest !== "") collected.push(rest);
    onLine();
  })();
  return { collected, done };
}

/** Starts `command args` at the repository root and waits for its "ready on" line. */
export async function serve(
  command: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<Served> {
  const child = new Deno.Command(command, {
    args,
    cwd: ROOT,
    env,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const watchers = new Set<() => void>();
  const notify = (): void => watchers.forEach((watch) => watch());
  const out = lines(child.stdout, notify);
  const err = lines(child.stderr, notify);
  let exited = false;
  const status = child.status.then((status) => {
    exited = true;
    notify();
    return status;
  });
  const writer = child.stdin.getWriter();
  const waitFor = (pattern: RegExp, count: number): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const check = (): void => {
        if (err.collected.filter((line) => pattern.test(line)).length >= count) {
          watchers.delete(check);
          resolve();
        } else if (exited) {
          watchers.delete(check);
          reject(new Error(`The server exited first:\n${err.collected.join("\n")}`));
        }
      };
      watchers.add(check);
      check();
    });
  const cleanUp = async (): Promise<void> => {
    await writer.close().catch(() => {});
    if (!exited) {
      try {
        child.kill("SIGKILL");
      } catch {
        // It exited between the check and the kill.
      }
    }
    await status;
    await Promise.allSettled([out.done, err.done]);
  };
  try {
    await within(waitFor(/ready on /, 1), 30_000, `${command} ${args.join(" ")} to start`);
  } catch (error) {
    await cleanUp();
    throw error;
  }
  const send = (message: unknown): Promise<void> =>
    writer.write(new TextEncoder().encode(`${JSON.stringify(message)}\n`));
  const found = (id: number): Record<string, unknown> | undefined => {
    for (const line of out.collected) {
      if (!line.startsWith("{")) continue;
      const value: unknown = JSON.parse(line);
      if (isRecord(value) && value.id === id) return value;
    }
    return undefined;
  };
  const replyTo = (id: number): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const reply = found(id);
        if (reply !== undefined) {
          watchers.delete(check);
          resolve(reply);
        } else if (exited) {
          watchers.delete(check);
          reject(
            new Error(`The server exited before answering ${id}:\n${err.collected.join("\n")}`),
          );
        }
      };
      watchers.add(check);
      check();
    });
  const ready = err.collected.find((line) => line.includes("ready on ")) ?? "";
  const url = /ready on (http:\/\/\S+)/.exec(ready)?.[1] ?? "stdio";
  return {
    child,
    status,
    stderr: err.collected,
    stdout: out.collected,
    url,
    waitFor,
    send,
    closeInput: () => writer.close(),
    request: async (id, method, params) => {
      await send(
        params === undefined
          ? { jsonrpc: "2.0", id, method }
          : { jsonrpc: "2.0", id, method, params },
      );
      return await within(replyTo(id), 15_000, `the reply to ${method} (id ${id})`);
    },
    cleanUp,
  };
}

/** A Streamable HTTP session over fetch. */
export interface HttpClient {
  /** Sends one request and resolves to the answer's content type and raw body (JSON or SSE). */
  raw(
    id: number,
    method: string,
    params?: Record<string, unknown>,
  ): Promise<{ status: number; type: string; body: string }>;
  /** Sends one request and resolves to its HTTP status and JSON-RPC reply (null if none). */
  call(
    id: number,
    method: string,
    params?: Record<string, unknown>,
  ): Promise<{ status: number; reply: Record<string, unknown> | null }>;
}

/** Initializes a session at `url` and returns a client for it. */
export async function connect(url: string): Promise<HttpClient> {
  let sessionId: string | null = null;
  const raw: HttpClient["raw"] = async (id, method, params) => {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-06-18",
    };
    if (sessionId !== null) headers["mcp-session-id"] = sessionId;
    const body = JSON.stringify(
      params === undefined
        ? { jsonrpc: "2.0", id, method }
        : { jsonrpc: "2.0", id, method, params },
    );
    const response = await fetch(url, { method: "POST", headers, body });
    sessionId ??= response.headers.get("mcp-session-id");
    const type = response.headers.get("content-type")?.split(";")[0] ?? "";
    return { status: response.status, type, body: await response.text() };
  };
  const call: HttpClient["call"] = async (id, method, params) => {
    const { status, body: text } = await raw(id, method, params);
    let reply: unknown = null;
    try {
      reply = JSON.parse(text);
    } catch {
      reply = null;
    }
    return { status, reply: isRecord(reply) ? reply : null };
  };
  const init = await call(0, "initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "faults", version: "1.0.0" },
  });
  assert.equal(init.status, 200, JSON.stringify(init));
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2025-06-18",
  };
  if (sessionId !== null) headers["mcp-session-id"] = sessionId;
  const initialized = await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  await initialized.text();
  return { call, raw };
}

/** The audit file's entries (a missing file has none). */
export async function auditEntries(path: string): Promise<Record<string, unknown>[]> {
  let text = "";
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  const lines = text.split("\n").filter((line) => line !== "").map((line) => {
    const entry: unknown = JSON.parse(line);
    assert.ok(isRecord(entry), line);
    return entry;
  });
  // Call entries only: the audit chain's genesis and checkpoint lines carry an "event".
  return lines.filter((line) => !("event" in line));
}

/** The request ids among `entries` for `tools/call`. */
export function auditedIds(entries: readonly Record<string, unknown>[]): Set<unknown> {
  return new Set(entries.filter((entry) => entry.method === "tools/call").map((e) => e.request_id));
}
