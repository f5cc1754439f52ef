/**
 * The HTTP listener behind `serveHttp` (serve_http.ts), loaded when a server
 * is first served over HTTP: serving a server's Streamable HTTP endpoint on the host's HTTP server
 * (`Deno.serve`, `Bun.serve` or `node:http`), on the loopback interface
 * unless told otherwise, with a graceful shutdown: stop accepting, let the
 * calls in flight finish within the grace period, close the server (which
 * flushes the audit log), stop the listener.
 *
 * @module
 */

import { listenHttp } from "../runtime/listen.ts";
import { onShutdownSignal } from "../runtime/signals.ts";
import type { HttpListener, ServeHttpOptions } from "./serve_http.ts";
import type { Server } from "./types.ts";
import { pathMatcher, requestPath } from "../http/requests.ts";
import { isMetadataPath, metadataPaths } from "../auth/metadata.ts";

/** How long the listener may take to stop after the server closed, before connections are cut. */
const STOP_WAIT_MS = 2000;

function delay(ms: number): { done: Promise<void>; cancel: () => void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const done = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return { done, cancel: () => clearTimeout(timer) };
}

/** `response`, with `done` called once its body has been sent or abandoned. */
function observeBody(response: Response, done: () => void): Response {
  // The header first: reading `body` turns a plain body into a stream the runtime must pump.
  const body = response.headers.get("content-type")?.startsWith("text/event-stream") === true
    ? response.body
    : null;
  if (body === null) {
    done();
    return response;
  }
  const reader = body.getReader();
  const tracked = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done: ended } = await reader.read();
        if (ended) {
          controller.close();
          done();
        } else {
          controller.enqueue(value);
        }
      } catch (error) {
        controller.error(error);
        done();
      }
    },
    cancel(reason) {
      done();
      return reader.cancel(reason);
    },
  });
  return new Response(tracked, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/**
 * The endpoint's front gate: the path check, and a count of the POSTs whose
 * answer is not yet out, which a graceful shutdown waits for before it
 * closes. A count, not a promise per call: the hot path allocates nothing
 * for it.
 */
class DrainGate {
  #open = 0;
  #draining = false;
  #idle: (() => void) | undefined;
  readonly #onPath: (url: string) => boolean;

  constructor(readonly server: Server, readonly path: string) {
    this.#onPath = pathMatcher(path);
  }

  /** Refuses what arrives from now on (503), so the calls in flight can finish. */
  drain(): void {
    this.#draining = true;
  }

  /** Resolves once no POST is in flight, or after `ms`. */
  async settled(ms: number): Promise<void> {
    if (this.#open === 0) return;
    const timeout = delay(ms);
    const idle = new Promise<void>((resolve) => (this.#idle = resolve));
    await Promise.race([idle, timeout.done]);
    timeout.cancel();
  }

  handle(request: Request): Promise<Response> {
    // The endpoint serves its Protected Resource Metadata (OAuth) at the well-known paths.
    if (!this.#onPath(request.url) && !isMetadataPath(requestPath(request.url))) {
      return Promise.resolve(new Response("Not found", { status: 404 }));
    }
    if (this.#draining) {
      return Promise.resolve(
        new Response("Service unavailable: shutting down", {
          status: 503,
          headers: { connection: "close" },
        }),
      );
    }
    if (request.method !== "POST") return this.server.fetch(request);
    this.#open++;
    let finished = false;
    const finish = (): void => {
      if (finished) return;
      finished = true;
      if (--this.#open === 0) this.#idle?.();
    };
    let fetching: Promise<Response>;
    try {
      fetching = this.server.fetch(request);
    } catch (error) {
      finish();
      return Promise.reject(error);
    }
    return fetching.then((response) => observeBody(response, finish), (error: unknown) => {
      finish();
      throw error;
    });
  }
}

/**
 * The graceful shutdown: stop accepting, give the calls in flight the grace
 * period, close the server, then stop the listener (cutting connections
 * that outlive {@linkcode STOP_WAIT_MS}).
 */
async function stopGracefully(
  server: Server,
  host: Awaited<ReturnType<typeof listenHttp>>,
  gate: DrainGate,
  graceMs: number,
): Promise<void> {
  gate.drain();
  host.stopAccepting();
  await gate.settled(graceMs);
  // Aborts the calls still running, ends the sessions (and their streams), flushes the audit log.
  await server.close();
  const wait = delay(STOP_WAIT_MS);
  const stopped = await Promise.race([host.finished.then(() => true), wait.done.then(() => false)]);
  wait.cancel();
  if (!stopped) host.closeAll();
}

/** Listens as `serveHttp` documents. */
export async function listen(server: Server, options: ServeHttpOptions): Promise<HttpListener> {
  await refuseUnusedAuth(server, options);
  const path = options.path ?? "/mcp";
  const hostname = options.hostname ?? "127.0.0.1";
  const log = options.log ?? ((message: string) => console.error(message));
  const gate = new DrainGate(server, path);
  const host = await listenHttp((request) => gate.handle(request), {
    hostname,
    port: options.port ?? 0,
    log,
  });
  let removeSignals = (): void => {};
  let stopping: Promise<void> | undefined;
  const graceMs = options.shutdownGraceMs ?? server.shutdownGraceMs;
  const shutdown = (): Promise<void> => {
    stopping ??= stopGracefully(server, host, gate, graceMs).then(() => removeSignals());
    return stopping;
  };
  if (options.signal?.aborted === true) void shutdown();
  else options.signal?.addEventListener("abort", () => void shutdown(), { once: true });
  if (options.handleSignals ?? true) removeSignals = await onShutdownSignal(shutdown, { log });
  const urlHost = hostname.includes(":") ? `[${hostname}]` : hostname;
  return {
    url: `http://${urlHost}:${host.port}${path}`,
    port: host.port,
    finished: host.finished,
    shutdown,
  };
}

/**
 * Refuses to serve when `options` carry OAuth (`setup.http` from
 * `--auth-issuer`) that the server itself was not given: the endpoint's
 * options belong to `createServer({ http })`, and serving without them would
 * leave open a server its author believes protected.
 *
 * @throws {TypeError} When the server does not serve the metadata of that `auth`.
 */
async function refuseUnusedAuth(server: Server, options: ServeHttpOptions): Promise<void> {
  if (!("auth" in options) || !isAuth(options.auth)) return;
  const path = metadataPaths(options.auth.metadata.resource)[0] ?? "";
  const probe = await server.fetch(new Request(`http://127.0.0.1${path}`));
  await probe.body?.cancel();
  if (probe.status !== 200) {
    throw new TypeError(
      "Cannot serve HTTP: the options carry http.auth but the server was created without it; pass them to createServer({ http }) too",
    );
  }
}

function isAuth(value: unknown): value is { metadata: { resource: string } } {
  if (typeof value !== "object" || value === null || !("metadata" in value)) return false;
  const metadata = value.metadata;
  return typeof metadata === "object" && metadata !== null && "resource" in metadata &&
    typeof metadata.resource === "string";
}
