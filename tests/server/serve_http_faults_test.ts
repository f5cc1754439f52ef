/**
 * `serveHttp()` under malformed and slow requests, over raw TCP: fetch
 * normalises the Host header and sends whole bodies, so these requests are
 * written byte by byte to a socket on 127.0.0.1.
 */

import assert from "node:assert/strict";
import { createServer, serveHttp, type ServerOptions } from "../../mod.ts";
import { captureLog, echoFixtures, within } from "../_helpers/helpers.ts";
import { requestHost, requestPath } from "../../src/http/requests.ts";

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "raw", version: "1.0.0" },
  },
});

/** A server on a free port whose every diagnostic (server and listener) is captured. */
async function listening(http: ServerOptions["http"] = {}) {
  const { lines, log } = captureLog();
  const server = createServer({ name: "raw", version: "1.0.0", log, http, ...echoFixtures() });
  const listener = await serveHttp(server, { port: 0, handleSignals: false, log });
  return { lines, listener };
}

/** Whether `text` holds a whole HTTP response (its head and a Content-Length or chunked body). */
function complete(text: string): boolean {
  const end = text.indexOf("\r\n\r\n");
  if (end === -1) return false;
  if (/\r\ntransfer-encoding: chunked/i.test(text.slice(0, end))) {
    return text.endsWith("\r\n0\r\n\r\n");
  }
  const length = /\r\ncontent-length: (\d+)/i.exec(text.slice(0, end));
  return length !== null &&
    new TextEncoder().encode(text.slice(end + 4)).length >= Number(length[1]);
}

/**
 * Writes `parts` to a new connection (pausing between them), then reads until
 * a whole response is in, the server closes the connection, or `readMs` pass.
 */
async function exchange(
  port: number,
  parts: string[],
  options: { pauseMs?: number; readMs?: number } = {},
): Promise<{ text: string; closed: boolean; ms: number }> {
  const started = Date.now();
  const connection = await Deno.connect({ hostname: "127.0.0.1", port });
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  let text = "";
  let closed = false;
  let answered!: () => void;
  const response = new Promise<void>((resolve) => (answered = resolve));
  const reading = (async () => {
    const buffer = new Uint8Array(16 * 1024);
    while (true) {
      const count = await connection.read(buffer).catch(() => null);
      if (count === null) {
        closed = true;
        return;
      }
      text += decoder.decode(buffer.subarray(0, count), { stream: true });
      if (complete(text)) answered();
    }
  })();
  for (const part of parts) {
    await connection.write(encoder.encode(part)).catch(() => 0);
    if (options.pauseMs !== undefined) await new Promise((r) => setTimeout(r, options.pauseMs));
  }
  const deadline = new Promise((resolve) => setTimeout(resolve, options.readMs ?? 3000));
  await Promise.race([reading, response, deadline]);
  try {
    connection.close();
  } catch {
    // Already closed by the server.
  }
  const ms = Date.now() - started;
  await reading;
  return { text, closed, ms };
}

function statusOf(text: string): number {
  const match = /^HTTP\/1\.1 (\d{3})/.exec(text);
  assert.ok(match, `no HTTP status line in ${JSON.stringify(text.slice(0, 200))}`);
  return Number(match[1]);
}

function postHead(host: string, length: number, extra = ""): string {
  return `POST /mcp HTTP/1.1\r\nHost: ${host}\r\ncontent-type: application/json\r\n` +
    `accept: application/json, text/event-stream\r\ncontent-length: ${length}\r\n${extra}\r\n`;
}

Deno.test("serveHttp() answers a malformed or foreign Host with 403 and logs nothing per request", async () => {
  const { lines, listener } = await listening();
  try {
    const table: [string, number][] = [
      ["[::1].evil.example", 403],
      ["[::1]x", 403],
      ["a b", 403],
      ["[::1", 403],
      ["evil.example", 403],
      ["localhost:1", 200],
      [`127.0.0.1:${listener.port}`, 200],
      [`[::1]:${listener.port}`, 200],
    ];
    for (const [host, expected] of table) {
      const { text } = await exchange(listener.port, [
        postHead(host, new TextEncoder().encode(INITIALIZE).length, "connection: close\r\n"),
        INITIALIZE,
      ]);
      assert.equal(statusOf(text), expected, `Host: ${host}\n${text.slice(0, 300)}`);
      if (expected === 403) assert.match(text, /host not allowed/);
    }
    // Every request went through the handler without a failure worth a line.
    assert.deepEqual(lines, []);
  } finally {
    await listener.shutdown();
  }
});

Deno.test("serveHttp() answers a body that stalls mid-way with 408 and Connection: close", async () => {
  const { lines, listener } = await listening({ bodyTimeoutMs: 300 });
  try {
    const half = INITIALIZE.slice(0, 20);
    const { text, ms } = await exchange(
      listener.port,
      [postHead("localhost", INITIALIZE.length), half],
      { readMs: 5000 },
    );
    assert.equal(statusOf(text), 408, text);
    assert.match(text, /did not arrive within 300 ms/);
    assert.match(text, /\r\nconnection: close\r\n/i);
    // It waited for the limit, not for the client: neither at once nor forever.
    assert.ok(ms >= 250 && ms < 4000, `answered after ${ms} ms`);
    assert.deepEqual(lines, []);

    // A body that arrives in slow pieces, each within the limit but all of it
    // past it, is cut too: the limit bounds the whole body, not each read.
    const pieces = [postHead("localhost", INITIALIZE.length)];
    for (let index = 0; index < INITIALIZE.length; index += 10) {
      pieces.push(INITIALIZE.slice(index, index + 10));
    }
    const slow = await within(
      exchange(listener.port, pieces, { pauseMs: 100, readMs: 500 }),
      30_000,
      "the slow body",
    );
    assert.equal(statusOf(slow.text), 408, slow.text);
  } finally {
    await listener.shutdown();
  }
});

Deno.test("requestPath() and requestHost() read any request URL without throwing", () => {
  const paths: [string, string][] = [
    ["http://localhost:8080/mcp?x=1", "/mcp"],
    ["http://a b/mcp", "/mcp"],
    ["http://[::1]x/mcp#frag", "/mcp"],
    ["http://[::1].evil.example/other?q", "/other"],
    ["http://a b", "/"],
    ["not a url at all", "/"],
  ];
  for (const [url, path] of paths) assert.equal(requestPath(url), path, url);
  const hosts: [Pick<Request, "url" | "headers">, string | null][] = [
    [new Request("http://localhost:8080/mcp"), "localhost:8080"],
    [new Request("http://localhost/mcp", { headers: { host: "a b" } }), "a b"],
    [{ url: "http://user:pw@[::1]x/mcp", headers: new Headers() }, "[::1]x"],
    [{ url: "no scheme", headers: new Headers() }, null],
  ];
  for (const [request, host] of hosts) {
    assert.equal(requestHost(request), host, request.url);
  }
});
