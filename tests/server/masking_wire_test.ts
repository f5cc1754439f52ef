/**
 * The masking guarantee at the lowest point: every frame the server writes
 * to a transport (the memory pair, which is stdio's path), every byte of
 * every HTTP response body (JSON and SSE, streams read to their end), every
 * reply `server.handle()` returns, every stderr line and every audit entry.
 * A secret is planted in client input and handler output across every
 * method of both eras' method tables (read from the tables, so a method
 * added later is covered without touching this file), unknown method names,
 * and over HTTP headers that disagree with the body; no byte may hold it.
 */

import assert from "node:assert/strict";
import { createServer, defineTool, ErrorCode, RpcError, type Server } from "../../mod.ts";
import { callbackAuditSink, createGuardrails } from "../../guardrails.ts";
import { createMemoryPair } from "../../testing.ts";
import { StdioTransport } from "../../src/transports/stdio.ts";
import { legacyMethods } from "../../src/eras/methods/legacy.ts";
import { MODERN_METHOD_NAMES } from "../../src/eras/methods/modern.ts";
import { leakyEcho, SECRET } from "../_helpers/leaky_tools.ts";
import { modernMeta } from "../_helpers/helpers.ts";
import { ENDPOINT, type HeaderPatch, headersFor } from "../_helpers/http_helpers.ts";

const RULE = "ODK-[A-Za-z0-9]{24,}";

/** Every method and notification name either era's table answers, plus names no table has. */
function methodNames(): string[] {
  // The tables' rows are closures over deps they do not call until a request comes.
  const legacy = legacyMethods({} as never);
  return [
    ...new Set([
      ...legacy.methods.keys(),
      ...legacy.notifications.keys(),
      ...MODERN_METHOD_NAMES,
      "server/discover",
      SECRET,
      `tools/${SECRET}`,
      "constructor",
      "toString",
      "hasOwnProperty",
      "__proto__",
    ]),
  ];
}

/** A small deterministic generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(next: () => number, items: readonly T[]): T {
  return items[Math.floor(next() * items.length)] as T;
}

/** Values of each parameter a method reads, some valid, most carrying the secret. */
const CHOICES: Readonly<Record<string, readonly unknown[]>> = {
  name: ["echo", "meta", "fail", "rpcfail", "greet", SECRET, `x${SECRET}`],
  uri: [
    `memo://${SECRET}`,
    "memo://gone",
    "memo://nil",
    "memo://fail",
    "memo://plain",
    `nothing://${SECRET}`,
    SECRET,
  ],
  arguments: [{ text: SECRET }, { who: SECRET }, { [SECRET]: SECRET }, SECRET],
  cursor: [SECRET, "bm90LWEtY3Vyc29y"],
  level: [SECRET, "debug", "info"],
  taskId: [SECRET],
  protocolVersion: [SECRET, "2025-06-18", "2025-11-25"],
  capabilities: [{ [SECRET]: { x: SECRET } }],
  clientInfo: [{ name: SECRET, version: SECRET }],
  ref: [
    { type: "ref/prompt", name: "greet" },
    { type: "ref/prompt", name: SECRET },
    { type: "ref/resource", uri: "memo://{id}" },
    { type: "ref/resource", uri: SECRET },
  ],
  argument: [{ name: "who", value: SECRET }, { name: "id", value: SECRET }, {
    name: SECRET,
    value: SECRET,
  }],
  requestId: [SECRET, 1],
  reason: [SECRET],
  notifications: [
    { resourcesListChanged: true, resourceSubscriptions: [`memo://${SECRET}`, SECRET] },
    { [SECRET]: true },
  ],
  inputResponses: [{ [SECRET]: { action: "accept", content: { x: SECRET } } }],
  requestState: [SECRET],
  status: [SECRET],
};

/** One request's params: a random subset of every parameter, so each method gets what it reads. */
function plantedParams(next: () => number): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const [key, values] of Object.entries(CHOICES)) {
    if (next() < 0.7) params[key] = pick(next, values);
  }
  return params;
}

/** A modern `_meta`, sometimes with the secret in the revision, the client or an extra key. */
function plantedMeta(next: () => number): Record<string, unknown> {
  const extra = pick(next, [
    {},
    { "io.modelcontextprotocol/clientInfo": { name: SECRET, version: "1" } },
    { "io.modelcontextprotocol/logLevel": SECRET },
    { [SECRET]: SECRET, progressToken: SECRET },
    { "io.modelcontextprotocol/protocolVersion": SECRET },
  ]);
  return modernMeta({ elicitation: {}, sampling: {} }, {
    "io.modelcontextprotocol/logLevel": "debug",
    progressToken: "p1",
    ...extra,
  });
}

/** A generated request of either era (or a notification, when `id` is undefined). */
interface Planted {
  readonly era: "legacy" | "modern";
  readonly body: Record<string, unknown>;
  /** Header changes for HTTP: headers that disagree with the body, each echoing the secret. */
  readonly patch: HeaderPatch;
}

/** Requests that reach each handler's output: the generated ones mostly end in refusals. */
const REACHING: readonly (readonly [string, Record<string, unknown>])[] = [
  ["tools/call", { name: "echo", arguments: { text: SECRET } }],
  ["tools/call", { name: "meta", arguments: {} }],
  ["tools/call", { name: "fail", arguments: {} }],
  ["tools/call", { name: "rpcfail", arguments: {} }],
  ["tools/call", { name: SECRET, arguments: {} }],
  ["resources/read", { uri: `memo://${SECRET}` }],
  ["resources/read", { uri: "memo://gone" }],
  ["resources/read", { uri: "memo://fail" }],
  ["prompts/get", { name: "greet", arguments: { who: SECRET } }],
  ["completion/complete", {
    ref: { type: "ref/prompt", name: "greet" },
    argument: { name: "who", value: "a" },
  }],
  ["completion/complete", {
    ref: { type: "ref/resource", uri: "memo://{id}" },
    argument: { name: "id", value: "a" },
  }],
  ["resources/subscribe", { uri: `memo://${SECRET}` }],
  ["subscriptions/listen", { notifications: { resourceSubscriptions: [`memo://${SECRET}`] } }],
];

function plantedRequests(seed: number, perMethod: number): Planted[] {
  const next = random(seed);
  const planted: Planted[] = [];
  let id = 100;
  for (const [method, params] of REACHING) {
    planted.push({ era: "legacy", body: { jsonrpc: "2.0", id: id++, method, params }, patch: {} });
    const modern = {
      ...params,
      _meta: modernMeta({ elicitation: {} }, {
        progressToken: "p1",
        "io.modelcontextprotocol/logLevel": "debug",
      }),
    };
    planted.push({
      era: "modern",
      body: { jsonrpc: "2.0", id: id++, method, params: modern },
      patch: {},
    });
  }
  for (const method of methodNames()) {
    for (let round = 0; round < perMethod; round++) {
      const era = round % 2 === 0 ? "legacy" : "modern";
      const params = plantedParams(next);
      if (era === "modern") params._meta = plantedMeta(next);
      const notify = method.startsWith("notifications/") || next() < 0.1;
      const body: Record<string, unknown> = notify
        ? { jsonrpc: "2.0", method, params }
        : { jsonrpc: "2.0", id: id++, method, params };
      const patch: HeaderPatch = era === "legacy" ? {} : pick(next, [
        {},
        {},
        { "mcp-method": SECRET },
        { "mcp-name": SECRET },
        { "mcp-protocol-version": SECRET },
      ]);
      planted.push({ era, body, patch });
    }
  }
  return planted;
}

/** A server that puts the secret into everything its handlers send back. */
function plantedServer(audit: unknown[], diagnostics: string[]): Server {
  return createServer({
    name: "planted",
    version: "1.0.0",
    guardrails: createGuardrails({
      redact: { patterns: [RULE] },
      access: { tools: { deny: ["ODK-*"] } },
      audit: callbackAuditSink((entry) => void audit.push(entry)),
    }),
    log: (line) => void diagnostics.push(line),
    tools: [
      leakyEcho,
      defineTool({
        name: "meta",
        description: "Answers with the secret in its _meta",
        inputSchema: { type: "object" },
        handler: () => ({
          content: [{ type: "text", text: "see _meta" }],
          _meta: { note: SECRET, [SECRET]: { nested: [SECRET] } },
        }),
      }),
      defineTool({
        name: "fail",
        description: "Throws the secret",
        inputSchema: { type: "object" },
        handler: () => {
          throw new Error(`cannot use ${SECRET}`);
        },
      }),
      defineTool({
        name: "rpcfail",
        description: "Throws a protocol error with the secret",
        inputSchema: { type: "object" },
        handler: () => {
          throw new RpcError(ErrorCode.MethodNotFound, `no ${SECRET}`, { why: SECRET });
        },
      }),
    ],
    resourceTemplates: [{
      uriTemplate: "memo://{id}",
      name: "memo",
      complete: { id: () => [SECRET] },
      read: ({ id }) => {
        if (id === "gone") return undefined;
        if (id === "nil") return null;
        if (id === "fail") throw new RpcError(ErrorCode.InvalidParams, `bad ${SECRET}`);
        return `memo ${id} mentions ${SECRET}`;
      },
    }],
    prompts: [{
      name: "greet",
      arguments: [{ name: "who", complete: () => [SECRET] }],
      get: (args) => `hello ${String(args.who)} and ${SECRET}`,
    }],
  });
}

/** Reads a stream to its end into `into`, as text. */
async function drain(stream: ReadableStream<Uint8Array>, into: string[]): Promise<void> {
  const decoder = new TextDecoder();
  for await (const chunk of stream) into.push(decoder.decode(chunk, { stream: true }));
  into.push(decoder.decode());
}

/** `server` with a `fetch` that keeps every byte of every response body in `bytes`. */
function recordingFetch(
  server: Server,
  bytes: string[],
  drains: Promise<void>[],
): (request: Request) => Promise<Response> {
  return async (request) => {
    const response = await server.fetch(request);
    if (response.body === null) return response;
    const [mine, theirs] = response.body.tee();
    drains.push(drain(mine, bytes));
    return new Response(theirs, { status: response.status, headers: response.headers });
  };
}

/** Reads what the client gets of a response; a stream that stays open is let go after `ms`. */
async function consume(response: Response, ms: number): Promise<void> {
  const body = response.body;
  if (body === null) return;
  const reader = body.getReader();
  const deadline = setTimeout(() => reader.cancel().catch(() => {}), ms);
  try {
    while (!(await reader.read()).done);
  } catch {
    // Cancelled at the deadline: the recorder still reads the stream to its end.
  } finally {
    clearTimeout(deadline);
  }
}

/** Sends every planted request over HTTP: a legacy session, and sessionless modern POSTs. */
async function overHttp(fetch: (request: Request) => Promise<Response>, planted: Planted[]) {
  const base = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  const postOf = (body: unknown, headers: Record<string, string>) =>
    fetch(
      new Request(ENDPOINT, {
        method: "POST",
        headers: { ...base, ...headers },
        body: JSON.stringify(body),
      }),
    );
  const init = await postOf({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: { [SECRET]: {} },
      clientInfo: { name: SECRET, version: SECRET },
    },
  }, {});
  const session = init.headers.get("mcp-session-id");
  assert.ok(session !== null, "the legacy session opened");
  await consume(init, 2000);
  await consume(
    await postOf({ jsonrpc: "2.0", method: "notifications/initialized" }, {
      "mcp-session-id": session,
      "mcp-protocol-version": "2025-11-25",
    }),
    2000,
  );
  const statuses = new Set<number>();
  for (const { era, body, patch } of planted) {
    const headers: Record<string, string> = era === "legacy"
      ? { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" }
      : {};
    if (era === "modern") {
      const conforming = headersFor(body as { method: string; params?: Record<string, unknown> });
      for (const [key, value] of Object.entries({ ...conforming, ...patch })) {
        if (value !== null) headers[key] = value;
      }
    }
    const response = await postOf(body, headers);
    statuses.add(response.status);
    await consume(response, body.method === "subscriptions/listen" ? 100 : 3000);
  }
  return statuses;
}

/** A client's end of a connection: frames to send, and each frame the server writes. */
interface ClientEnd {
  send(frame: string): Promise<void>;
  frames: AsyncIterable<string>;
  close(): Promise<void>;
}

/** The memory pair: the server's frames as its transport's writable got them. */
function memoryEnd(server: Server): [ClientEnd, Promise<void>] {
  const [client, end] = createMemoryPair();
  const writer = client.writable.getWriter();
  return [{
    send: (frame) => writer.write(frame),
    frames: client.readable,
    close: () => writer.close().catch(() => {}),
  }, server.connect(end)];
}

/** The stdio transport over byte streams: every byte it writes, split at its newlines. */
function stdioEnd(server: Server): [ClientEnd, Promise<void>] {
  const input = new TransformStream<Uint8Array, Uint8Array>();
  const output = new TransformStream<Uint8Array, Uint8Array>();
  const writer = input.writable.getWriter();
  const encoder = new TextEncoder();
  const transport = new StdioTransport({
    input: input.readable,
    output: output.writable,
    redirectConsole: false,
  });
  let rest = "";
  const lines = output.readable.pipeThrough(new TextDecoderStream()).pipeThrough(
    new TransformStream<string, string>({
      transform(chunk, controller) {
        const parts = (rest + chunk).split("\n");
        rest = parts.pop() ?? "";
        for (const line of parts) controller.enqueue(line);
      },
    }),
  );
  return [{
    send: (frame) => writer.write(encoder.encode(`${frame}\n`)),
    frames: lines,
    close: () => writer.close().catch(() => {}),
  }, server.connect(transport)];
}

/** Sends every planted request over a connection, keeping every frame the server writes. */
async function overConnection(
  [client, served]: [ClientEnd, Promise<void>],
  planted: Planted[],
  frames: string[],
) {
  const waiting = new Map<unknown, () => void>();
  const reading = (async () => {
    for await (const frame of client.frames) {
      frames.push(frame);
      const message: unknown = JSON.parse(frame);
      if (typeof message === "object" && message !== null && "id" in message) {
        waiting.get(message.id)?.();
      }
    }
  })();
  const send = async (body: Record<string, unknown>, wait: boolean) => {
    const answered = new Promise<void>((resolve) => {
      waiting.set(body.id, resolve);
      // A request nobody answers (a listen, a notification) must not stall the run.
      setTimeout(resolve, wait ? 3000 : 0);
    });
    await client.send(JSON.stringify(body));
    await answered;
  };
  await send({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: SECRET, version: "1" },
    },
  }, true);
  await send({ jsonrpc: "2.0", method: "notifications/initialized" }, false);
  for (const { body } of planted) {
    const wait = body.id !== undefined && body.method !== "subscriptions/listen";
    await send(body, wait);
  }
  return async () => {
    await client.close();
    await Promise.all([served, reading]);
  };
}

Deno.test("no byte the server writes holds a planted secret: every method of both eras, every transport", async () => {
  const audit: unknown[] = [];
  const diagnostics: string[] = [];
  const server = plantedServer(audit, diagnostics);
  const planted = plantedRequests(22, 4);
  const bytes: string[] = [];
  const drains: Promise<void>[] = [];
  const frames: string[] = [];
  const stdioFrames: string[] = [];
  const handled: unknown[] = [];
  const statuses = await overHttp(recordingFetch(server, bytes, drains), planted);
  const closeMemory = await overConnection(memoryEnd(server), planted, frames);
  const closeStdio = await overConnection(stdioEnd(server), planted, stdioFrames);
  for (const { body } of planted) {
    if (body.method !== "subscriptions/listen") handled.push(await server.handle(body));
  }
  await server.close();
  await closeMemory();
  await closeStdio();
  await Promise.all(drains);
  const written = [
    bytes.join(""),
    frames.join("\n"),
    stdioFrames.join("\n"),
    JSON.stringify(handled),
  ];
  const everything = [...written, diagnostics.join("\n"), JSON.stringify(audit)].join("\n");
  const at = everything.indexOf(SECRET.slice(4));
  assert.equal(at, -1, `the secret leaked: …${everything.slice(Math.max(0, at - 150), at + 300)}`);
  // Not vacuous: the planted requests reached handlers, refusals and every kind of answer.
  assert.ok(planted.length >= methodNames().length * 4);
  for (const status of [200, 202, 400, 404]) assert.ok(statuses.has(status), `HTTP ${status} seen`);
  for (const text of written) {
    assert.ok(text.includes("[REDACTED]"), "the secret was sent for, and masked");
    assert.ok(text.includes('"note":"[REDACTED]"'), "a result's _meta was sent, masked");
  }
  assert.ok(bytes.join("").includes("-32020"), "header mismatches were answered");
  for (const sent of [frames, stdioFrames]) {
    assert.ok(sent.join("").includes("-32601"), "unknown methods were answered");
  }
});

Deno.test("the reply's last masking step masks each error and _meta once, with a mask that is not idempotent", async () => {
  // One pass turns "b" into "ab", a second would make it "aab".
  const redact = { presets: false, defaultKeys: false, patterns: ["b"], mask: "ab" } as const;
  const server = createServer({
    name: "once",
    version: "1.0.0",
    guardrails: createGuardrails({ redact, access: { tools: { deny: ["b"] } } }),
    tools: [
      defineTool({
        name: "meta",
        description: "Answers with _meta",
        inputSchema: { type: "object" },
        handler: () => ({ content: [{ type: "text", text: "-" }], _meta: { x: "b" } }),
      }),
      defineTool({
        name: "rpc",
        description: "Throws a protocol error",
        inputSchema: { type: "object" },
        handler: () => {
          throw new RpcError(-32042, "b", { y: "b" });
        },
      }),
    ],
    resourceTemplates: [{ uriTemplate: "m://{id}", name: "m", read: () => undefined }],
  });
  const modern = modernMeta();
  const cases: [string, Record<string, unknown>, unknown][] = [
    ["tools/call", { name: "meta", arguments: {} }, { x: "ab" }],
    ["tools/call", { name: "rpc", arguments: {} }, {
      code: -32042,
      message: "ab",
      data: { y: "ab" },
    }],
    ["tools/call", { name: "b", arguments: {} }, {
      code: -32001,
      message: 'Access denied: tool "ab"',
    }],
    ["b", {}, { code: -32601, message: 'Method not found: "ab"' }],
    ["resources/read", { uri: "m://b", _meta: modern }, {
      code: -32602,
      message: "Resource not found",
      data: { uri: "m://ab" },
    }],
    ["tools/call", { name: "b", arguments: {}, _meta: modern }, {
      code: -31001,
      message: 'Access denied: tool "ab"',
    }],
  ];
  for (const [method, params, expected] of cases) {
    const reply = await server.handle({ jsonrpc: "2.0", id: 1, method, params });
    assert.ok(reply !== undefined && !Array.isArray(reply));
    const got = "error" in reply ? reply.error : (reply.result._meta as Record<string, unknown>);
    if ("error" in reply) assert.deepEqual(got, expected, `${method} ${JSON.stringify(params)}`);
    else assert.equal((got as { x: unknown }).x, (expected as { x: unknown }).x);
  }
  await server.close();
});
