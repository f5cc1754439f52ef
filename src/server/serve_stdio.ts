/**
 * Serving a server on the process's stdin and stdout, on Deno, Node or Bun,
 * with the shutdown a client expects: EOF, SIGINT and SIGTERM all end the
 * session the same way (no new requests are read, in-flight ones get the
 * server's `shutdownGraceMs`, the audit log is flushed) before it returns or
 * the process exits.
 *
 * @module
 */

import { hostStdin, hostStdout } from "../runtime/host.ts";
import { onShutdownSignal } from "../runtime/signals.ts";
import { StdioTransport, type StdioTransportOptions } from "../transports/stdio.ts";
import type { Server } from "./types.ts";

/**
 * `source` until `stop` aborts, then a clean end, as if the client had
 * closed stdin: the session stops reading but finishes what it started.
 */
function endOnAbort(
  source: ReadableStream<Uint8Array>,
  stop: AbortSignal,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let ended = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      stop.addEventListener("abort", () => {
        if (ended) return;
        ended = true;
        controller.close();
        reader.cancel().catch(() => {});
      }, { once: true });
    },
    async pull(controller) {
      const { value, done } = await reader.read();
      if (ended) return;
      if (done) {
        ended = true;
        controller.close();
      } else {
        controller.enqueue(value);
      }
    },
    cancel(reason) {
      ended = true;
      return reader.cancel(reason);
    },
  });
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
  const input = options.input ?? await hostStdin();
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
    const transport = new StdioTransport({
      ...transportOptions,
      ...(output === undefined ? {} : { output }),
      input: handleSignals ? endOnAbort(input, stop.signal) : input,
    });
    session = server.connect(transport, principal === undefined ? {} : { principal });
    await session;
  } finally {
    removeSignals();
    await server.close();
  }
}
