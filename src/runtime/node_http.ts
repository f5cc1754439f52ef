/**
 * A fetch handler on `node:http`: each IncomingMessage becomes a web
 * `Request` (its body streamed, its signal aborted when the client goes
 * away) and each `Response` is written back as it streams (SSE included),
 * with backpressure, and cancelled when the client disconnects.
 *
 * @module
 */

import type { IncomingMessage, ServerResponse } from "node:http";
import type { HostServer, ListenOptions } from "./listen.ts";

type Handler = (request: Request) => Promise<Response>;

/** The path and query of a request target; absolute-form and odd targets are reduced safely. */
function targetOf(url: string | undefined): string {
  if (url === undefined || url === "") return "/";
  if (url.startsWith("/")) return url;
  try {
    const parsed = new URL(url);
    return `${parsed.pathname}${parsed.search}`;
  } catch {
    return "/"; // "*" (OPTIONS) and the like: the handler answers by path
  }
}

function headersOf(message: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = message.rawHeaders;
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = raw[index];
    const value = raw[index + 1];
    if (name === undefined || value === undefined) continue;
    try {
      headers.append(name, value);
    } catch {
      // A value the fetch Headers refuse is dropped, as a fetch server would never see it.
    }
  }
  return headers;
}

function requestOf(
  message: IncomingMessage,
  origin: string,
  signal: AbortSignal,
  toWeb: (stream: IncomingMessage) => ReadableStream<Uint8Array>,
): Request {
  const method = message.method ?? "GET";
  const init: RequestInit & { duplex?: "half" } = {
    method,
    headers: headersOf(message),
    signal,
  };
  if (method !== "GET" && method !== "HEAD") {
    init.body = toWeb(message);
    init.duplex = "half";
  }
  // The URL's authority is the listener's own: a client's Host header may be anything.
  return new Request(`${origin}${targetOf(message.url)}`, init);
}

async function writeResponse(
  response: Response,
  reply: ServerResponse,
  closing: boolean,
): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  // Once the server stops accepting, a kept-alive connection would only hold the shutdown up.
  if (closing) headers.connection = "close";
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers["set-cookie"] = cookies;
  reply.writeHead(response.status, headers);
  if (response.body === null) {
    reply.end();
    return;
  }
  // Stream headers now: an SSE client waits for them before the first event.
  reply.flushHeaders();
  const reader = response.body.getReader();
  const cancel = (): void => void reader.cancel().catch(() => {});
  reply.once("close", cancel);
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      if (!reply.write(value)) {
        await new Promise<void>((resolve) => {
          const go = (): void => {
            reply.off("drain", go);
            reply.off("close", go);
            resolve();
          };
          reply.on("drain", go);
          reply.on("close", go);
        });
      }
      if (reply.destroyed) return;
    }
    reply.end();
  } catch {
    reply.destroy();
  } finally {
    reply.off("close", cancel);
  }
}

/**
 * Serves `handler` with `node:http` on `options.hostname` and `options.port`.
 *
 * @param handler The fetch handler.
 * @param options Where to listen.
 * @returns The listening server.
 *
 * @example
 * ```ts ignore
 * import { listenNode } from "./node_http.ts";
 * const server = await listenNode(() => Promise.resolve(new Response("hi")), {
 *   hostname: "127.0.0.1",
 *   port: 0,
 *   log: console.error,
 * });
 * server.closeAll();
 * ```
 */
export async function listenNode(handler: Handler, options: ListenOptions): Promise<HostServer> {
  const http = await import("node:http");
  const { Readable } = await import("node:stream");
  const toWeb = (stream: IncomingMessage): ReadableStream<Uint8Array> => {
    const web: unknown = Readable.toWeb(stream);
    if (!(web instanceof ReadableStream)) {
      throw new TypeError("Cannot read request body: not a web stream");
    }
    return web;
  };
  let origin = "";
  let stopping = false;
  const server = http.createServer((message, reply) => {
    const controller = new AbortController();
    reply.once("close", () => {
      if (!reply.writableFinished) controller.abort(new Error("The client disconnected"));
    });
    let request: Request;
    try {
      request = requestOf(message, origin, controller.signal, toWeb);
    } catch {
      reply.writeHead(400, { "content-type": "text/plain", connection: "close" });
      reply.end("Bad request");
      return;
    }
    handler(request)
      .then((response) => writeResponse(response, reply, stopping))
      .catch((error: unknown) => {
        options.log(`warden: the HTTP adapter failed: ${error}`);
        if (!reply.headersSent) reply.writeHead(500, { connection: "close" });
        reply.end();
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.hostname, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : options.port;
  const host = options.hostname.includes(":") ? `[${options.hostname}]` : options.hostname;
  origin = `http://${host}:${port}`;
  const finished = new Promise<void>((resolve) => server.once("close", () => resolve()));
  return {
    port,
    finished,
    stopAccepting() {
      stopping = true;
      server.close();
      server.closeIdleConnections();
    },
    closeAll() {
      server.close();
      server.closeAllConnections();
    },
  };
}
