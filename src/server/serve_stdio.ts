/**
 * Serving a server on the process's stdin and stdout, on Deno, Node or Bun,
 * with the shutdown a client expects: EOF, SIGINT and SIGTERM all end the
 * session the same way (no new requests are read, in-flight ones get the
 * server's `shutdownGraceMs`, the audit log is flushed) before it returns or
 * the process exits. The end is bounded: a close that hangs (a store that
 * cannot be reached, a sink that never flushes) does not keep a stdio
 * server alive once its client has gone.
 *
 * @module
 */

import { exitProcess, hostStdin, hostStdout, runtime } from "../runtime/host.ts";
import { onShutdownSignal } from "../runtime/signals.ts";
import { StdioTransport, type StdioTransportOptions } from "../transports/stdio.ts";
import type { Server } from "./types.ts";

/** `stop`, or either of `stop` and the caller's own signal. */
function endedBy(stop: AbortSignal, own: AbortSignal | undefined): AbortSignal {
  return own === undefined ? stop : AbortSignal.any([stop, own]);
}

/** Lets a timer not keep the process alive: a number on Deno, an object with `unref` on Node and Bun. */
function unref(timer: unknown): void {
  if (typeof timer === "number") Deno.unrefTimer(timer);
  else if (typeof timer === "object" && timer !== null && "unref" in timer) {
    const release = timer.unref;
    if (typeof release === "function") release.call(timer);
  }
}

/** How long `server.close()` may take after the session ended, beyond the grace period, in ms. */
const CLOSE_WAIT_MS = 5000;

/**
 * Closes the server, but waits at most the grace period plus
 * {@linkcode CLOSE_WAIT_MS}: past it, one line says so on stderr and, when
 * the session was the host's own stdin, the process exits with 1 (whatever
 * still hangs would keep it alive). Resolves either way.
 */
async function closeWithin(server: Server, ownStdin: boolean): Promise<void> {
  const waitMs = server.shutdownGraceMs + CLOSE_WAIT_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((
    resolve,
  ) => (timer = setTimeout(() => resolve("late"), waitMs)));
  // The timer must not keep a process alive whose close did finish.
  unref(timer);
  const closed = server.close().then(() => "closed" as const);
  const ended = await Promise.race([closed, late]);
  clearTimeout(timer);
  if (ended === "closed") return;
  console.error(`warden: the server did not close within ${waitMs} ms after its session ended`);
  if (ownStdin) await exitProcess(1);
}

/**
 * Serves `server` on the host's stdio until the client closes stdin or a
 * signal arrives, then closes the server so every audit entry is written.
 *
 * @param server The server to serve.
 * @param options The transport's options, the principal, and signal handling.
 * @returns Resolves when the session has ended and the server is closed.
 *
 * @example
 * ```ts ignore
 * import { createServer, serveStdio } from "@warden/mcp";
 * const server = createServer({ name: "desk", version: "1.0.0" });
 * await serveStdio(server);
 * ```
 */
export async function serveStdio(
  server: Server,
  options: StdioTransportOptions & {
    /** The session's principal; overrides the server's. */
    principal?: string;
    /**
     * Whether SIGINT and SIGTERM end the session like EOF does (in-flight calls
     * finish within the server's grace period, the audit log is flushed) and
     * then exit the process with 130 or 143. A second signal exits at once.
     * @default {true}
     */
    handleSignals?: boolean;
  } = {},
): Promise<void> {
  const { principal, handleSignals = true, ...transportOptions } = options;
  // On Deno the transport reads stdin itself (`Deno.stdin.read` into one buffer, no web stream).
  const input = options.input ?? (runtime === "deno" ? undefined : await hostStdin());
  const output = options.output ?? await hostStdout();
  const stop = new AbortController();
  let session: Promise<void> | undefined;
  const removeSignals = handleSignals
    ? await onShutdownSignal(async () => {
      stop.abort();
      await session?.catch(() => {});
      await server.close();
    })
    : () => {};
  try {
    // A signal ends the input as EOF does: the session stops reading but finishes what it started.
    const transport = new StdioTransport({
      ...transportOptions,
      ...(output === undefined ? {} : { output }),
      ...(input === undefined ? {} : { input }),
      ...(handleSignals ? { signal: endedBy(stop.signal, options.signal) } : {}),
    });
    session = server.connect(transport, principal === undefined ? {} : { principal });
    await session;
  } finally {
    removeSignals();
    await closeWithin(server, options.input === undefined);
  }
}
