/**
 * The HTTP servers the benchmark compares, one per process, on 127.0.0.1 and
 * a free port, which is printed to stdout as `listening PORT` once it is up:
 *
 * - `ceiling`: a bare `Deno.serve` that reads the body, `JSON.parse`s it and
 *   answers `initialize` (with an `Mcp-Session-Id` kept in a map, as any
 *   server holding sessions must), `tools/call` of `echo`,
 *   `resources/subscribe`, and notifications (202);
 * - `warden-stateless`: Warden's `serveHttp` with `http: { stateless: true }`;
 * - `warden-session`: Warden's `serveHttp` with sessions (room for 20,000);
 * - `warden-listen`: Warden's `serveHttp` authenticating each request's
 *   `x-user` header as its principal, for the listen-streams memory figure
 *   (every quota at its default).
 *
 * A request whose `_meta` names revision 2026-07-28 gets what that revision
 * requires of any server and no more: its `MCP-Protocol-Version`, `Mcp-Method`
 * and (for `tools/call`) `Mcp-Name` headers compared with the body (400 on a
 * mismatch), `resultType` in the result, and `server/discover` answered (the
 * harness probes it before it loads a server with the era's traffic).
 *
 * The ceiling also holds `subscriptions/listen` streams open: it answers one
 * with an SSE response whose first event acknowledges it, and keeps the
 * stream in a set until the client cancels it.
 *
 * `--guardrails` turns on all four guardrails on the permissive policy, as
 * in warden_server.ts.
 *
 * Run: `deno run --allow-net=127.0.0.1 tests/bench/servers/http_server.ts warden-session`
 *
 * @module
 */

import { serveHttp } from "../../../mod.ts";
import { createEchoServer, guardrailsOf, PERMISSIVE_POLICY } from "./warden_server.ts";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const sessions = new Map<string, { protocolVersion: unknown; subscriptions: Set<string> }>();
const listening = new Set<ReadableStreamDefaultController<Uint8Array>>();
const encoder = new TextEncoder();

/** An SSE stream that acknowledges the listen request `id` and stays open until cancelled. */
function listenStream(id: unknown, params: Record<string, unknown>): Response {
  const acknowledged = {
    jsonrpc: "2.0",
    method: "notifications/subscriptions/acknowledged",
    params: { ...(isRecord(params.notifications) ? params.notifications : {}), _meta: { id } },
  };
  let held: ReadableStreamDefaultController<Uint8Array> | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      held = controller;
      listening.add(controller);
      controller.enqueue(encoder.encode(`data: ${JSON.stringify(acknowledged)}\n\n`));
    },
    cancel() {
      if (held !== undefined) listening.delete(held);
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

const ERA = "2026-07-28";
const ERA_VERSION_KEY = "io.modelcontextprotocol/protocolVersion";

/** Whether a 2026-07-28 request's headers say what its body says, as the revision requires. */
function eraHeadersAgree(request: Request, method: unknown, params: Record<string, unknown>) {
  const headers = request.headers;
  if (headers.get("mcp-protocol-version") !== ERA || headers.get("mcp-method") !== method) {
    return false;
  }
  return method !== "tools/call" || headers.get("mcp-name") === params.name;
}

/** The ceiling's answer to one request. */
async function ceiling(request: Request): Promise<Response> {
  if (request.method !== "POST") return new Response(null, { status: 405 });
  const message: unknown = JSON.parse(await request.text());
  if (!isRecord(message) || message.id === undefined) return new Response(null, { status: 202 });
  const { id, method } = message;
  const params = isRecord(message.params) ? message.params : {};
  const headers: Record<string, string> = { "content-type": "application/json" };
  const era = isRecord(params._meta) && params._meta[ERA_VERSION_KEY] === ERA;
  if (era && !eraHeadersAgree(request, method, params)) {
    const error = { code: -32020, message: "Header mismatch" };
    return new Response(JSON.stringify({ jsonrpc: "2.0", id, error }), { status: 400, headers });
  }
  let result: Record<string, unknown> | undefined;
  if (method === "tools/call") {
    const args = isRecord(params.arguments) ? params.arguments : {};
    if (params.name === "echo" && typeof args.text === "string") {
      result = { content: [{ type: "text", text: args.text }] };
    }
  } else if (method === "initialize") {
    const sessionId = crypto.randomUUID();
    sessions.set(sessionId, { protocolVersion: params.protocolVersion, subscriptions: new Set() });
    headers["mcp-session-id"] = sessionId;
    result = {
      protocolVersion: params.protocolVersion,
      capabilities: { tools: {}, resources: { subscribe: true } },
      serverInfo: { name: "ceiling", version: "1.0.0" },
    };
  } else if (method === "server/discover" && era) {
    result = {
      supportedVersions: [ERA],
      capabilities: { tools: {} },
      serverInfo: { name: "ceiling", version: "1.0.0" },
    };
  } else if (method === "subscriptions/listen") {
    return listenStream(id, params);
  } else if (method === "resources/subscribe" && typeof params.uri === "string") {
    const session = sessions.get(request.headers.get("mcp-session-id") ?? "");
    session?.subscriptions.add(params.uri);
    result = {};
  }
  if (era && result !== undefined) result.resultType = "complete";
  const reply = result === undefined
    ? { jsonrpc: "2.0", id, error: { code: -32601, message: "Method not found" } }
    : { jsonrpc: "2.0", id, result };
  return new Response(JSON.stringify(reply), { headers });
}

const [kind] = Deno.args;
const guarded = Deno.args.includes("--guardrails");
let port: number;
if (kind === "ceiling") {
  port = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, ceiling).addr.port;
} else if (kind === "warden-stateless" || kind === "warden-session" || kind === "warden-listen") {
  const server = createEchoServer(
    await guardrailsOf(guarded ? PERMISSIVE_POLICY : undefined),
    kind === "warden-stateless"
      ? { stateless: true }
      : kind === "warden-listen"
      ? { authenticate: (request) => request.headers.get("x-user") ?? undefined }
      : { maxSessions: 20_000 },
  );
  port = (await serveHttp(server)).port;
} else {
  console.error(
    "Usage: http_server.ts ceiling|warden-stateless|warden-session|warden-listen [--guardrails]",
  );
  Deno.exit(2);
}
console.log(`listening ${port}`);
