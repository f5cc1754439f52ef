/**
 * The host's HTTP server behind one small interface: `Deno.serve` on Deno,
 * `Bun.serve` on Bun, `node:http` (through an adapter) on Node. Only the
 * runtime's own server is loaded.
 *
 * @module
 */

import { runtime } from "./host.ts";

/** Where and how to listen. */
export interface ListenOptions {
  /** The interface to bind. */
  hostname: string;
  /** The port; 0 picks a free one. */
  port: number;
  /** Where the server's own failures go. */
  log: (message: string) => void;
}

/** A listening HTTP server of the host. */
export interface HostServer {
  /** The port it listens on. */
  readonly port: number;
  /** Stops accepting connections; requests already in progress keep being served. */
  stopAccepting(): void;
  /** Closes every connection still open, in progress or not. */
  closeAll(): void;
  /** Resolves when the server has stopped. */
  readonly finished: Promise<void>;
}

/** The part of Bun's server API this module uses. */
interface BunServer {
  readonly port: number;
  stop(closeActiveConnections?: boolean): unknown;
}

/** The part of the `Bun` global this module uses. */
interface BunApi {
  serve(options: {
    hostname: string;
    port: number;
    idleTimeout: number;
    fetch: (request: Request) => Promise<Response>;
    error: (error: unknown) => Response;
  }): BunServer;
}

function isBunApi(value: unknown): value is BunApi {
  return typeof value === "object" && value !== null && "serve" in value &&
    typeof value.serve === "function";
}

function listenDeno(
  handler: (request: Request) => Promise<Response>,
  options: ListenOptions,
): HostServer {
  const server = Deno.serve({
    hostname: options.hostname,
    port: options.port,
    onListen: () => {},
    onError: (error) => {
      options.log(`warden: the HTTP server failed: ${error}`);
      return new Response("Internal error", { status: 500 });
    },
  }, handler);
  let stopping: Promise<void> | undefined;
  return {
    port: server.addr.port,
    finished: server.finished,
    stopAccepting() {
      stopping ??= server.shutdown();
    },
    closeAll() {
      stopping ??= server.shutdown();
      // Deno has no forced close; the process may at least exit without waiting for stragglers.
      server.unref();
    },
  };
}

function listenBun(
  handler: (request: Request) => Promise<Response>,
  options: ListenOptions,
): HostServer {
  const bun: unknown = Reflect.get(globalThis, "Bun");
  if (!isBunApi(bun)) throw new TypeError("Cannot serve HTTP: Bun.serve is missing");
  let stopped!: () => void;
  const finished = new Promise<void>((resolve) => (stopped = resolve));
  const server = bun.serve({
    hostname: options.hostname,
    port: options.port,
    // Bun ends connections idle for 10 s by default, which would cut SSE streams.
    idleTimeout: 0,
    fetch: handler,
    error: (error) => {
      options.log(`warden: the HTTP server failed: ${error}`);
      return new Response("Internal error", { status: 500 });
    },
  });
  const stop = (force: boolean): void => {
    Promise.resolve(server.stop(force)).then(stopped, stopped);
  };
  return {
    port: server.port,
    finished,
    stopAccepting: () => stop(false),
    closeAll: () => stop(true),
  };
}

/**
 * Serves `handler` on the host's HTTP server.
 *
 * @param handler A fetch handler; it must answer every request itself.
 * @param options Where to listen and where failures go.
 * @returns The listening server.
 *
 * @example
 * ```ts
 * import { listenHttp } from "./listen.ts";
 * const server = await listenHttp(() => Promise.resolve(new Response("hi")), {
 *   hostname: "127.0.0.1",
 *   port: 0,
 *   log: console.error,
 * });
 * server.stopAccepting();
 * await server.finished;
 * ```
 */
export async function listenHttp(
  handler: (request: Request) => Promise<Response>,
  options: ListenOptions,
): Promise<HostServer> {
  if (runtime === "deno") return listenDeno(handler, options);
  if (runtime === "bun") return listenBun(handler, options);
  const { listenNode } = await import("./node_http.ts");
  return await listenNode(handler, options);
}
