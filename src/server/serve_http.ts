/**
 * Serving a server's Streamable HTTP endpoint on the host's HTTP server
 * (`Deno.serve`, `Bun.serve` or `node:http`), on the loopback interface
 * unless told otherwise, with a graceful shutdown: stop accepting, let the
 * calls in flight finish within the grace period, close the server (which
 * flushes the audit log), stop the listener. The listener itself loads on
 * the first call (http_listener.ts): a stdio server never loads it.
 *
 * @module
 */

import type { Server } from "./types.ts";

/**
 * Options of {@linkcode serveHttp}.
 *
 * @example Listening on a chosen port and stopping from code
 * ```ts
 * import { createServer, serveHttp, type ServeHttpOptions } from "@warden/mcp";
 * const server = createServer({ name: "desk", version: "1.0.0" });
 * const stop = new AbortController();
 * const options: ServeHttpOptions = {
 *   port: 0,
 *   path: "/mcp",
 *   signal: stop.signal,
 *   handleSignals: false,
 *   shutdownGraceMs: 10_000,
 * };
 * const listener = await serveHttp(server, options);
 * console.error(`listening on ${listener.url}`);
 * stop.abort(); // a graceful shutdown, as listener.shutdown() does
 * await listener.finished;
 * ```
 */
export interface ServeHttpOptions {
  /**
   * The interface to listen on. Anything but loopback exposes the server to
   * the network: configure `http.allowedHosts` and `http.authenticate` then.
   * @default {"127.0.0.1"}
   */
  hostname?: string;
  /**
   * The port; 0 picks a free one.
   * @default {0}
   */
  port?: number;
  /**
   * The endpoint's path; every other path is 404.
   * @default {"/mcp"}
   */
  path?: string;
  /** Aborting it shuts the listener down gracefully (like `shutdown()`). */
  signal?: AbortSignal;
  /**
   * Whether SIGINT and SIGTERM shut the listener down gracefully and then
   * exit the process with 130 or 143. A second signal exits at once.
   * @default {true}
   */
  handleSignals?: boolean;
  /**
   * How long calls in flight may run once a shutdown begins, in ms, before
   * they are aborted.
   * @default {the server's shutdownGraceMs (5000)}
   */
  shutdownGraceMs?: number;
  /**
   * Where the listener's own diagnostics go.
   * @default {console.error}
   */
  log?: (message: string) => void;
}

/**
 * Serves `server.fetch` at `path` on the host's HTTP server: `Deno.serve` on
 * Deno, `Bun.serve` on Bun, `node:http` on Node.
 *
 * @param server The server to serve.
 * @param options Where to listen, and how to shut down.
 * @returns The listener, once it listens.
 *
 * @example
 * ```ts ignore
 * import { createServer, serveHttp } from "@warden/mcp";
 * const server = createServer({ name: "desk", version: "1.0.0" });
 * const listener = await serveHttp(server, { port: 8123 });
 * console.error(`listening on ${listener.url}`);
 * ```
 */
export async function serveHttp(
  server: Server,
  options: ServeHttpOptions = {},
): Promise<{
  /** The endpoint's URL, e.g. `http://127.0.0.1:8123/mcp`. */
  readonly url: string;
  /** The port it listens on. */
  readonly port: number;
  /**
   * Shuts down gracefully: new requests are refused (503) and no new
   * connections accepted, calls in flight get the grace period, then the
   * server is closed (aborting what is left and flushing the audit log) and
   * the listener stopped. Calling it again returns the same promise.
   */
  shutdown(): Promise<void>;
  /** Resolves when the listener has stopped. */
  readonly finished: Promise<void>;
}> {
  // A static specifier, so that `deno compile` and `deno publish` include the module.
  const loaded = await import("./http_listener.ts").catch((error: unknown) => {
    throw new Error(`Cannot serve HTTP: the HTTP listener failed to load: ${String(error)}`);
  });
  return await loaded.listen(server, options);
}

/** A running HTTP listener. */
export type HttpListener = Awaited<ReturnType<typeof serveHttp>>;
