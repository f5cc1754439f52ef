/**
 * Serving a server on the process's stdin and stdout, with the shutdown a
 * client expects: EOF, SIGINT and SIGTERM all end the session and flush the
 * guardrails (the audit log) before the process exits.
 *
 * @module
 */

import { StdioTransport, type StdioTransportOptions } from "../transports/stdio.ts";
import type { Server } from "./types.ts";

/** Options of {@linkcode serveStdio}. */
export interface ServeStdioOptions extends StdioTransportOptions {
  /** The session's principal; overrides the server's. */
  principal?: string;
  /**
   * Whether SIGINT and SIGTERM close the server (flushing the audit log) and
   * exit with 130 or 143.
   * @default {true}
   */
  handleSignals?: boolean;
}

const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;

/**
 * Serves `server` on stdio until the client closes stdin or a signal
 * arrives, then closes the server so every audit entry is written.
 *
 * @example
 * ```ts ignore
 * import { createServer, serveStdio } from "@warden/mcp";
 * const server = createServer({ name: "desk", version: "1.0.0" });
 * await serveStdio(server);
 * ```
 */
export async function serveStdio(server: Server, options: ServeStdioOptions = {}): Promise<void> {
  const { principal, handleSignals = true, ...transportOptions } = options;
  const transport = new StdioTransport(transportOptions);
  const removers: (() => void)[] = [];
  if (handleSignals) {
    const process = (await import("node:process")).default;
    for (const [signal, code] of Object.entries(SIGNAL_EXIT_CODES)) {
      const onSignal = () => {
        server.close().finally(() => process.exit(code));
      };
      try {
        process.once(signal, onSignal);
        removers.push(() => process.off(signal, onSignal));
      } catch {
        // A platform without this signal (SIGTERM on Windows) simply doesn't get the hook.
      }
    }
  }
  try {
    await server.connect(transport, principal === undefined ? {} : { principal });
  } finally {
    for (const remove of removers) remove();
    await server.close();
  }
}
