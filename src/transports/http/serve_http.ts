/**
 * Serving a server's Streamable HTTP endpoint with `Deno.serve`, on the
 * loopback interface unless told otherwise.
 *
 * @module
 */

import type { Server } from "../../server/types.ts";

/** Options of {@linkcode serveHttp}. */
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
  /** Aborting it stops the listener (like `shutdown()`). */
  signal?: AbortSignal;
}

/** A running HTTP listener. */
export interface HttpListener {
  /** The endpoint's URL, e.g. `http://127.0.0.1:8123/mcp`. */
  readonly url: string;
  /** The port it listens on. */
  readonly port: number;
  /** Stops accepting connections, closes the server's sessions, and waits for the listener. */
  shutdown(): Promise<void>;
  /** Resolves when the listener has stopped. */
  readonly finished: Promise<void>;
}

/**
 * Serves `server.fetch` at `path` with `Deno.serve`.
 *
 * @example
 * ```ts ignore
 * import { createServer, serveHttp } from "@warden/mcp";
 * const server = createServer({ name: "desk", version: "1.0.0" });
 * const listener = serveHttp(server, { port: 8123 });
 * console.error(`listening on ${listener.url}`);
 * ```
 */
export function serveHttp(server: Server, options: ServeHttpOptions = {}): HttpListener {
  const path = options.path ?? "/mcp";
  const hostname = options.hostname ?? "127.0.0.1";
  const controller = new AbortController();
  options.signal?.addEventListener("abort", () => controller.abort(), { once: true });
  const listener = Deno.serve({
    hostname,
    port: options.port ?? 0,
    signal: controller.signal,
    onListen: () => {},
  }, (request) => {
    if (new URL(request.url).pathname !== path) return new Response("Not found", { status: 404 });
    return server.fetch(request);
  });
  const address = listener.addr;
  const host = hostname.includes(":") ? `[${hostname}]` : hostname;
  return {
    url: `http://${host}:${address.port}${path}`,
    port: address.port,
    finished: listener.finished,
    async shutdown() {
      // Sessions hold open SSE streams; closing the server ends them so the listener can stop.
      await server.close();
      controller.abort();
      await listener.finished;
    },
  };
}
