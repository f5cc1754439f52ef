/**
 * Helpers for the Streamable HTTP tests: requests built for `server.fetch`,
 * a session that remembers its id and revision, and an incremental SSE
 * reader. No sockets: every request is a constructed `Request`.
 */

import assert from "node:assert/strict";
import { createServer, type HttpOptions, type Server, type ServerOptions } from "../../mod.ts";
import {
  captureLog,
  echoFixtures,
  errorOf,
  isRecord,
  MODERN,
  request,
  resultOf,
  within,
} from "./helpers.ts";

/** Where the tests send their requests; `localhost` passes the default Host check. */
export const ENDPOINT = "http://localhost/mcp";

/** Headers to add (a string) or to leave out (null). */
export type HeaderPatch = Record<string, string | null>;

/** The headers a well-behaved client sends with a POST. */
const POST_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

function patched(base: Readonly<Record<string, string>>, patch: HeaderPatch): Headers {
  const headers = new Headers(base);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) headers.delete(key);
    else headers.set(key, value);
  }
  return headers;
}

/** A POST to the endpoint; `body` is sent as is when it is a string, else as JSON. */
export function post(
  server: Server,
  body: unknown,
  headers: HeaderPatch = {},
  url = ENDPOINT,
): Promise<Response> {
  return server.fetch(
    new Request(url, {
      method: "POST",
      headers: patched(POST_HEADERS, headers),
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
  );
}

/** A request with any method and no body. */
export function send(server: Server, method: string, headers: HeaderPatch = {}): Promise<Response> {
  return server.fetch(new Request(ENDPOINT, { method, headers: patched({}, headers) }));
}

/** A GET for an SSE stream. */
export function get(server: Server, headers: HeaderPatch = {}): Promise<Response> {
  return send(server, "GET", { accept: "text/event-stream", ...headers });
}

/** A server with the given HTTP options (no keep-alive timers) and diagnostics captured. */
export function httpServer(
  http: HttpOptions = {},
  extra: Partial<ServerOptions> = {},
): { server: Server; lines: string[] } {
  const { lines, log } = captureLog();
  const server = createServer({
    name: "http-fixture",
    version: "1.0.0",
    log,
    ...echoFixtures(),
    ...extra,
    http: { keepAliveMs: 0, ...http },
  });
  return { server, lines };
}

/** The JSON body of a response, checked to be an object. */
export async function jsonOf(response: Response): Promise<Record<string, unknown>> {
  const body: unknown = await response.json();
  assert.ok(isRecord(body), `expected a JSON object, got ${JSON.stringify(body)}`);
  return body;
}

/** The JSON-RPC error code of an error response's body (and checks `id: null`). */
export async function rpcErrorCode(response: Response): Promise<number> {
  const body = await jsonOf(response);
  assert.equal(body.id, null);
  return errorOf(body).code;
}

/** One parsed SSE event. */
export interface SseEvent {
  id?: string;
  retry?: number;
  event?: string;
  data: string;
}

function parseEvent(block: string): SseEvent | undefined {
  const event: SseEvent = { data: "" };
  const data: string[] = [];
  let fields = 0;
  for (const line of block.split("\n")) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const name = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    fields++;
    if (name === "id") event.id = value;
    else if (name === "retry") event.retry = Number(value);
    else if (name === "event") event.event = value;
    else if (name === "data") data.push(value);
  }
  if (fields === 0) return undefined; // a comment (keep-alive) only
  event.data = data.join("\n");
  return event;
}

/** Reads an SSE response one event at a time. */
export class SseReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = "";
  #done = false;

  constructor(response: Response) {
    assert.equal(response.headers.get("content-type"), "text/event-stream");
    assert.ok(response.body !== null, "an SSE response has a body");
    this.#reader = response.body.getReader();
  }

  /** The next event, or undefined when the stream has ended; fails after `ms`. */
  next(ms = 2000): Promise<SseEvent | undefined> {
    return within(this.#next(), ms, "the next SSE event");
  }

  /** The next event's data as a JSON object; fails when the stream ends first. */
  async message(ms = 2000): Promise<Record<string, unknown>> {
    const event = await this.next(ms);
    assert.ok(event !== undefined, "expected another event, the stream ended");
    assert.equal(event.event, "message");
    const value: unknown = JSON.parse(event.data);
    assert.ok(isRecord(value));
    return value;
  }

  /** Every remaining event, until the stream ends. */
  async rest(ms = 2000): Promise<SseEvent[]> {
    const events: SseEvent[] = [];
    while (true) {
      const event = await this.next(ms);
      if (event === undefined) return events;
      events.push(event);
    }
  }

  /** Stops reading; the server sees the client go away. */
  async cancel(): Promise<void> {
    await this.#reader.cancel();
  }

  async #next(): Promise<SseEvent | undefined> {
    while (true) {
      const end = this.#buffer.indexOf("\n\n");
      if (end !== -1) {
        const block = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 2);
        const event = parseEvent(block);
        if (event !== undefined) return event;
        continue;
      }
      if (this.#done) return undefined;
      const { value, done } = await this.#reader.read();
      if (done) this.#done = true;
      else this.#buffer += this.#decoder.decode(value, { stream: true });
    }
  }
}

/** The JSON-RPC messages of SSE events (priming events, with empty data, left out). */
export function messagesOf(events: readonly SseEvent[]): Record<string, unknown>[] {
  return events.filter((event) => event.data !== "").map((event) => {
    const value: unknown = JSON.parse(event.data);
    assert.ok(isRecord(value));
    return value;
  });
}

/** A session opened with `initialize`, sending its id and revision on every request. */
export interface TestSession {
  readonly id: string;
  readonly version: string;
  /** A POST in this session. */
  post(body: unknown, headers?: HeaderPatch): Promise<Response>;
  /** A GET in this session (Accept: text/event-stream). */
  get(headers?: HeaderPatch): Promise<Response>;
  /** A DELETE of this session. */
  delete(headers?: HeaderPatch): Promise<Response>;
  /** The headers this session sends. */
  headers(): HeaderPatch;
}

/** Opens a session at `version` (initialize + notifications/initialized). */
export async function openSession(
  server: Server,
  options: { version?: string; capabilities?: Record<string, unknown>; headers?: HeaderPatch } = {},
): Promise<TestSession> {
  const version = options.version ?? "2025-11-25";
  const body = request(0, "initialize", {
    protocolVersion: version,
    capabilities: options.capabilities ?? {},
    clientInfo: { name: "http-test-client", version: "1.0.0" },
  });
  const response = await post(server, body, options.headers ?? {});
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "application/json");
  const reply = await jsonOf(response);
  assert.equal(resultOf(reply).protocolVersion, version);
  const id = response.headers.get("mcp-session-id");
  assert.ok(id !== null, "initialize issues an Mcp-Session-Id");
  const headers = (): HeaderPatch => ({
    ...options.headers,
    "mcp-session-id": id,
    "mcp-protocol-version": version,
  });
  const session: TestSession = {
    id,
    version,
    post: (message, extra = {}) => post(server, message, { ...headers(), ...extra }),
    get: (extra = {}) => get(server, { ...headers(), ...extra }),
    delete: (extra = {}) => send(server, "DELETE", { ...headers(), ...extra }),
    headers,
  };
  const initialized = await session.post({ jsonrpc: "2.0", method: "notifications/initialized" });
  assert.equal(initialized.status, 202);
  return session;
}

/** A promise with its resolve function, for handlers that wait on the test. */
export function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  const { promise, resolve } = Promise.withResolvers<T>();
  return { promise, open: resolve };
}

/** Lets queued promise jobs and zero-delay timers run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** Where `Mcp-Name` comes from, by method (revision 2026-07-28). */
const NAME_SOURCES: Readonly<Record<string, string>> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
};

/** The headers a conforming client sends for `body`. */
export function headersFor(
  body: { method: string; params?: Record<string, unknown> },
): HeaderPatch {
  const headers: HeaderPatch = { "mcp-protocol-version": MODERN, "mcp-method": body.method };
  const key = NAME_SOURCES[body.method];
  const name = key === undefined ? undefined : body.params?.[key];
  if (typeof name === "string") headers["mcp-name"] = headerValue(name);
  return headers;
}

/** A value as a client puts it in a header: plain when safe, else the base64 sentinel. */
export function headerValue(value: string): string {
  const safe = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value) &&
    !(value.startsWith("=?base64?") && value.endsWith("?="));
  if (safe) return value;
  const bytes = new TextEncoder().encode(value);
  return `=?base64?${btoa(String.fromCharCode(...bytes))}?=`;
}

/** A modern POST with the conforming headers, patched. */
export function modernPost(
  server: Server,
  body: { method: string; params?: Record<string, unknown> },
  patch: HeaderPatch = {},
): Promise<Response> {
  return post(server, body, { ...headersFor(body), ...patch });
}

/** Status, JSON-RPC error code and id of an error response. */
export async function refusal(response: Response): Promise<[number, number, unknown]> {
  const body = await jsonOf(response);
  return [response.status, errorOf(body).code, body.id];
}
