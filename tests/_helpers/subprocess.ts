/**
 * A Deno server as a real child process, spoken to over its pipes: a minimal
 * JSON-RPC client that writes one request per line to its stdin and matches
 * replies on its stdout by id, keeping every stdout and stderr line for the
 * test's framing checks.
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { isRecord, within } from "./helpers.ts";

/** The repository root as a path (with a trailing separator); children run there. */
export const ROOT: string = fileURLToPath(new URL("../..", import.meta.url));

/** What a finished `deno` run printed. */
export interface DenoOutput {
  /** Its exit code. */
  code: number;
  /** Its stdout, decoded. */
  stdout: string;
  /** Its stderr, decoded. */
  stderr: string;
}

/**
 * Runs `deno <args>` to the end with stdin closed and colours off, in `cwd`
 * (the repository root by default) with `env` on top of this environment.
 */
export async function runDeno(
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<DenoOutput> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: options.cwd ?? ROOT,
    env: { NO_COLOR: "1", ...options.env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return { code, stdout: decoder.decode(stdout), stderr: decoder.decode(stderr) };
}

/** Options of {@linkcode spawnServer}. */
export interface SpawnOptions {
  /** The `clientInfo.name` that `initialize()` sends. @default {"subprocess-test"} */
  clientName?: string;
  /** How long `call()` waits for its reply before it fails. @default {10_000} */
  replyTimeoutMs?: number;
}

/** A server child process with a minimal JSON-RPC client over its pipes. */
export interface ServerProcess {
  /** The child itself, for sending it signals. */
  readonly child: Deno.ChildProcess;
  /** Resolves to the child's exit status once it has exited. */
  readonly status: Promise<Deno.CommandStatus>;
  /** Every line the child wrote to stdout so far, without its newline. */
  readonly stdout: readonly string[];
  /** Every line the child wrote to stderr so far, without its newline. */
  readonly stderr: readonly string[];
  /** Writes one message as a line to the child's stdin. */
  send(message: unknown): Promise<void>;
  /** Sends a request with a fresh numeric id and resolves to its reply. */
  call(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Runs the initialize handshake at 2025-06-18, then sends notifications/initialized. */
  initialize(): Promise<void>;
  /** Closes the child's stdin (EOF). */
  closeInput(): Promise<void>;
  /** Resolves once stdout and stderr have both ended. */
  pipesDone(): Promise<void>;
  /** How many requests `call()` has sent. */
  requests(): number;
  /** Kills the child if it still runs and waits for every pipe, so nothing leaks. */
  cleanUp(): Promise<void>;
}

/** Collects a byte stream as lines, handing each to `onLine` as it arrives. */
function collectLines(
  stream: ReadableStream<Uint8Array>,
  onLine: (line: string) => void = () => {},
): { lines: string[]; done: Promise<void> } {
  const lines: string[] = [];
  const take = (line: string): void => {
    lines.push(line);
    onLine(line);
  };
  const done = (async () => {
    let rest = "";
    for await (const text of stream.pipeThrough(new TextDecoderStream())) {
      const parts = (rest + text).split("\n");
      rest = parts.pop() ?? "";
      parts.forEach(take);
    }
    if (rest !== "") take(rest);
  })();
  return { lines, done };
}

/** Runs `deno <args>` at the repository root with all three pipes, and a client over them. */
export function spawnServer(args: string[], options: SpawnOptions = {}): ServerProcess {
  const clientName = options.clientName ?? "subprocess-test";
  const replyTimeoutMs = options.replyTimeoutMs ?? 10_000;
  const encoder = new TextEncoder();
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const waiting = new Map<string | number, (reply: Record<string, unknown>) => void>();
  const stdout = collectLines(child.stdout, (line) => {
    let reply: unknown;
    try {
      reply = JSON.parse(line);
    } catch {
      return; // left to the test's framing checks
    }
    if (!isRecord(reply) || (typeof reply.id !== "string" && typeof reply.id !== "number")) return;
    waiting.get(reply.id)?.(reply);
    waiting.delete(reply.id);
  });
  const stderr = collectLines(child.stderr);
  let exited = false;
  const status = child.status.then((status) => {
    exited = true;
    return status;
  });
  let nextId = 1;

  const send = (message: unknown): Promise<void> =>
    writer.write(encoder.encode(`${JSON.stringify(message)}\n`));
  const call = async (
    method: string,
    params?: Record<string, unknown>,
  ): Promise<Record<string, unknown>> => {
    const id = nextId++;
    const reply = new Promise<Record<string, unknown>>((resolve) => waiting.set(id, resolve));
    await send(
      params === undefined
        ? { jsonrpc: "2.0", id, method }
        : { jsonrpc: "2.0", id, method, params },
    );
    return await within(reply, replyTimeoutMs, `the reply to ${method} (id ${id})`);
  };

  return {
    child,
    status,
    stdout: stdout.lines,
    stderr: stderr.lines,
    send,
    call,
    initialize: async () => {
      const reply = await call("initialize", {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: clientName, version: "1.0.0" },
      });
      assert.ok(isRecord(reply.result), JSON.stringify(reply));
      await send({ jsonrpc: "2.0", method: "notifications/initialized" });
    },
    closeInput: () => writer.close(),
    pipesDone: async () => {
      await Promise.all([stdout.done, stderr.done]);
    },
    requests: () => nextId - 1,
    cleanUp: async () => {
      await writer.close().catch(() => {});
      if (!exited) {
        try {
          child.kill("SIGKILL");
        } catch {
          // It exited between the check and the kill.
        }
      }
      await status;
      await Promise.allSettled([stdout.done, stderr.done]);
    },
  };
}
