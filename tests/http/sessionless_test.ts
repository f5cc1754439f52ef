/**
 * The sessionless path (stateless mode and revision 2026-07-28), held to
 * every rule the session path keeps, over both eras and drawn from one
 * seeded generator: the body limit with and without Content-Length (an
 * honest one, a lying one, none), no session kept and none counted live
 * once the answer is out, SSE only when the call sends something before
 * its reply, a client that closes the stream cancels the call, and one
 * audit line per answered call.
 */

import assert from "node:assert/strict";
import { createServer, defineTool, type HttpOptions, type Server } from "../../mod.ts";
import { callbackAuditSink, createGuardrails } from "../../guardrails.ts";
import { McpSession } from "../../src/core/session.ts";
import { Dispatcher, type MethodHandler } from "../../src/dispatcher/dispatcher.ts";
import { createHttpHandler } from "../../src/http/handler.ts";
import type { HttpHost } from "../../src/http/options.ts";
import { isRecord, modernMeta, request } from "../_helpers/helpers.ts";
import { gate, headersFor, messagesOf, post, SseReader } from "../_helpers/http_helpers.ts";
import { seededRandom } from "../_helpers/seeded_random.ts";

const LEGACY = "2025-06-18";
type Era = "legacy" | "modern";
const ERAS: readonly Era[] = ["legacy", "modern"];

/** A `tools/call` in `era`, with the headers its binding wants. */
function call(era: Era, id: number, name: string, args: Record<string, unknown> = {}) {
  if (era === "legacy") {
    return {
      body: request(id, "tools/call", { name, arguments: args }),
      headers: { "mcp-protocol-version": LEGACY },
    };
  }
  const body = request(id, "tools/call", { name, arguments: args, _meta: modernMeta() });
  return { body, headers: headersFor(body) };
}

/**
 * A host over the real dispatcher and protocol session, counting what the
 * transport makes: protocol sessions, and the ones counted live right now.
 */
function countingHost(methods: Map<string, MethodHandler<McpSession>>) {
  const counts = { made: 0, live: 0, peakLive: 0 };
  const host: HttpHost<McpSession> = {
    dispatcher: new Dispatcher<McpSession>({ methods, notifications: new Map(), log: () => {} }),
    newSession(principal) {
      counts.made++;
      return new McpSession(principal);
    },
    track(_session, _close) {
      counts.live++;
      counts.peakLive = Math.max(counts.peakLive, counts.live);
      let released = false;
      return () => {
        assert.ok(!released, "a session is released once");
        released = true;
        counts.live--;
      };
    },
    legacyVersions: [LEGACY],
    modern: true,
    modernNotifications: new Set(["notifications/cancelled"]),
    modernMethods: { has: (method) => methods.has(method) },
    mask: (value) => value,
    refused: () => Promise.resolve(),
    headerParams: () => [],
    log: () => {},
  };
  return { host, counts };
}

/** One of four shapes of a tool: answers at once or later, says something first or not. */
interface Shape {
  readonly later: boolean;
  readonly chatty: boolean;
}

/** `tools/call` answering as its arguments' shape says; a chatty call logs before its reply. */
const shapedCall: MethodHandler<McpSession> = (params, { id, session }) => {
  const args = isRecord(params.arguments) ? params.arguments : {};
  if (args.chatty === true) {
    session.notify("notifications/message", { level: "info", data: "working" }, id);
  }
  const result = { content: [{ type: "text", text: String(args.text) }] };
  return args.later === true ? Promise.resolve().then(() => result) : result;
};

async function bodyMessages(response: Response): Promise<Record<string, unknown>[]> {
  if (response.headers.get("content-type") === "text/event-stream") {
    return messagesOf(await new SseReader(response).rest());
  }
  const value: unknown = await response.json();
  return [value].filter(isRecord);
}

Deno.test("sessionless: SSE only when the call sends something first; no session kept or left live", async () => {
  const random = seededRandom(26);
  for (const stateless of [true, false]) {
    const { host, counts } = countingHost(new Map([["tools/call", shapedCall]]));
    const handler = createHttpHandler(host, { stateless });
    const server = { fetch: handler.fetch } as Pick<Server, "fetch"> as Server;
    const eras = stateless ? ERAS : ["modern" as const];
    for (let round = 0; round < 40; round++) {
      const era = eras[Math.floor(random() * eras.length)] ?? "modern";
      const shape: Shape = { later: random() < 0.5, chatty: random() < 0.5 };
      const sseOk = random() < 0.8;
      const text = `t${round}`;
      const { body, headers } = call(era, round, "echo", { text, ...shape });
      const response = await post(server, body, {
        ...headers,
        accept: sseOk ? "application/json, text/event-stream" : "application/json",
      });
      const label = `${era} stateless=${stateless} ${JSON.stringify(shape)} sse=${sseOk}`;
      assert.equal(response.status, 200, label);
      const streamed = response.headers.get("content-type") === "text/event-stream";
      assert.equal(streamed, shape.chatty && sseOk, label);
      assert.equal(response.headers.get("mcp-session-id"), null, label);
      const messages = await bodyMessages(response);
      const reply = messages.at(-1);
      assert.deepEqual(reply?.result, { content: [{ type: "text", text }] }, label);
      // The log line travels before the reply, on the stream only.
      assert.equal(messages.length, streamed ? 2 : 1, label);
      assert.equal(counts.live, 0, `${label}: nothing is counted live after the answer`);
    }
    // One protocol session per request, and only a call that waited was ever counted live.
    assert.equal(counts.made, 40);
    assert.ok(counts.peakLive <= 1);
    handler.close("done");
  }
});

Deno.test("sessionless: the body limit holds with an honest, a lying and no Content-Length, in both eras", async () => {
  const random = seededRandom(413);
  const { host } = countingHost(new Map([["tools/call", shapedCall]]));
  const maxBodyBytes = 400;
  const handler = createHttpHandler(host, { stateless: true, maxBodyBytes });
  const encoder = new TextEncoder();
  for (let round = 0; round < 60; round++) {
    const era = ERAS[round % 2] ?? "legacy";
    const { body, headers } = call(era, round, "echo", { text: "x" });
    const json = JSON.stringify(body);
    const size = json.length + Math.floor(random() * (maxBodyBytes * 1.5 - json.length));
    const bytes = encoder.encode(json + " ".repeat(size - json.length));
    const declaration = (["honest", "lying", "none"] as const)[Math.floor(random() * 3)];
    const requestHeaders = new Headers({
      ...headers,
      "content-type": "application/json",
      accept: "application/json",
    });
    if (declaration === "honest") requestHeaders.set("content-length", String(bytes.length));
    // A length that claims less than what follows, within the limit.
    if (declaration === "lying") requestHeaders.set("content-length", String(json.length));
    const response = await handler.fetch(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: requestHeaders,
        // Without a declared length the body arrives in chunks, as a chunked upload does.
        body: declaration === "none"
          ? new ReadableStream({
            start(controller) {
              for (let at = 0; at < bytes.length; at += 64) {
                controller.enqueue(bytes.slice(at, at + 64));
              }
              controller.close();
            },
          })
          : bytes,
      }),
    );
    const label = `${era} ${declaration} ${bytes.length} bytes`;
    assert.equal(response.status, bytes.length > maxBodyBytes ? 413 : 200, label);
    if (response.status === 413) {
      assert.equal(response.headers.get("connection"), "close", label);
    }
    await response.body?.cancel();
  }
  handler.close("done");
});

Deno.test("sessionless: a client that closes the stream cancels the call, in both eras", async () => {
  for (const era of ERAS) {
    const started = gate();
    const aborted = gate<unknown>();
    const slow: MethodHandler<McpSession> = (_params, { id, session, request }) => {
      session.notify("notifications/message", { level: "info", data: "started" }, id);
      started.open();
      return new Promise((_resolve, reject) => {
        request.signal.addEventListener("abort", () => {
          aborted.open(request.signal.reason);
          reject(request.signal.reason);
        }, { once: true });
      });
    };
    const { host, counts } = countingHost(new Map([["tools/call", slow]]));
    const handler = createHttpHandler(host, { stateless: true });
    const { body, headers } = call(era, 1, "slow");
    const server = { fetch: handler.fetch } as Pick<Server, "fetch"> as Server;
    const response = await post(server, body, headers);
    assert.equal(response.headers.get("content-type"), "text/event-stream", era);
    await started.promise;
    assert.equal(counts.live, 1, `${era}: the waiting call is counted live`);
    await response.body?.cancel();
    const reason = await aborted.promise;
    assert.match(String(reason), /closed the response stream/, era);
    // The dispatcher settles the cancelled call with no reply, then the session is released.
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.equal(counts.live, 0, `${era}: released after the cancellation`);
    handler.close("done");
  }
});

Deno.test("sessionless: server.close() aborts a call that is still waiting", async () => {
  const aborted = gate<unknown>();
  const { server } = auditedServer({ stateless: true }, aborted);
  const { body, headers } = call("legacy", 9, "hang");
  const pending = post(server, body, { ...headers, accept: "application/json" });
  await new Promise((resolve) => setTimeout(resolve, 10));
  await server.close();
  assert.match(String(await aborted.promise), /shutting down/);
  const response = await pending;
  await response.body?.cancel();
});

/** A server with `echo`, `fail` and `hang` tools and an audit log kept in memory. */
function auditedServer(http: HttpOptions, hung = gate<unknown>()) {
  const entries: Record<string, unknown>[] = [];
  const server = createServer({
    name: "sessionless",
    version: "1.0.0",
    log: () => {},
    http,
    guardrails: createGuardrails({
      audit: callbackAuditSink((entry) => void entries.push({ ...entry })),
    }),
    tools: [
      defineTool({
        name: "echo",
        description: "Echoes",
        inputSchema: { type: "object", properties: { text: { type: "string" } } },
        handler: ({ text }) => text ?? "",
      }),
      defineTool({
        name: "fail",
        description: "Fails",
        inputSchema: { type: "object", properties: {} },
        handler: async () => {
          await Promise.resolve();
          throw new Error("no");
        },
      }),
      defineTool({
        name: "hang",
        description: "Waits until aborted",
        inputSchema: { type: "object", properties: {} },
        handler: (_args, ctx) =>
          new Promise<string>((_resolve, reject) => {
            ctx.signal.addEventListener("abort", () => {
              hung.open(ctx.signal.reason);
              reject(ctx.signal.reason);
            }, { once: true });
          }),
      }),
    ],
  });
  return { server, entries };
}

Deno.test("sessionless: every answered call has its audit line, in both eras", async () => {
  const random = seededRandom(7);
  const { server, entries } = auditedServer({ stateless: true });
  const expected: [unknown, string, string][] = [];
  for (let id = 1; id <= 30; id++) {
    const era = ERAS[Math.floor(random() * 2)] ?? "legacy";
    const name = random() < 0.7 ? "echo" : "fail";
    const { body, headers } = call(era, id, name, { text: `e${id}` });
    const response = await post(server, body, headers);
    assert.equal(response.status, 200, `${era} ${name}`);
    await response.body?.cancel();
    expected.push([id, name, name === "echo" ? "ok" : "tool_error"]);
  }
  await server.close();
  assert.deepEqual(entries.map((entry) => [entry.request_id, entry.name, entry.outcome]), expected);
});
