/**
 * The masking guarantee at the lowest point: every frame the server writes
 * to a transport (the memory pair, and the stdio transport's bytes), every
 * byte of every HTTP response body (JSON and SSE, streams read to their
 * end), every reply `server.handle()` returns, every stderr line and every
 * audit entry. A secret is planted in client input and handler output
 * across every method of both eras' method tables (read from the tables, so
 * a method added later is covered without touching this file), unknown
 * method names, and over HTTP headers that disagree with the body; no byte
 * may hold it.
 */

import assert from "node:assert/strict";
import { createServer, defineTool, ErrorCode, RpcError, type Server } from "../../mod.ts";
import { callbackAuditSink, createGuardrails } from "../../guardrails.ts";
import { loadSkill } from "../../skills.ts";
import { leakyEcho, SECRET } from "../_helpers/leaky_tools.ts";
import { isRecord, modernMeta, modernRequest } from "../_helpers/helpers.ts";
import { ENDPOINT, headersFor } from "../_helpers/http_helpers.ts";
import { methodNames, plantedRequests } from "../_helpers/planted_requests.ts";
import {
  memoryEnd,
  overConnection,
  overHttp,
  recordingFetch,
  stdioEnd,
} from "../_helpers/wire_recorders.ts";

const RULE = "ODK-[A-Za-z0-9]{24,}";

/** A server that puts the secret into everything its handlers send back. */
function plantedServer(audit: unknown[], diagnostics: string[]): Server {
  return createServer({
    name: "planted",
    version: "1.0.0",
    guardrails: createGuardrails({
      redact: { patterns: [RULE] },
      access: { tools: { deny: ["ODK-*", "denied*"] } },
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
      defineTool({
        name: "task_meta",
        description: "A task whose result has the secret in its text and _meta",
        inputSchema: { type: "object" },
        task: "optional",
        handler: () => ({
          content: [{ type: "text", text: `done with ${SECRET}` }],
          _meta: { note: SECRET },
        }),
      }),
      defineTool({
        name: "task_fail",
        description: "A task that fails with the secret",
        inputSchema: { type: "object" },
        task: "optional",
        handler: () => {
          throw new RpcError(-32002, `gone ${SECRET}`, { why: SECRET });
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

/** A skill and an app view whose every part (frontmatter, files, HTML, tool) holds the secret. */
async function plantExtensions(server: Server): Promise<void> {
  server.skill(
    await loadSkill({
      files: {
        "SKILL.md":
          `---\nname: planted\ndescription: Uses ${SECRET} to work.\n---\nKey ${SECRET}.\n`,
        "notes.md": `The key is ${SECRET}.\n`,
      },
    }),
  );
  server.app({
    uri: "ui://planted/view",
    name: "view",
    description: `A view that shows ${SECRET}`,
    html: () => `<!doctype html><p>${SECRET}</p>`,
    csp: {},
    appTools: [
      defineTool({
        name: "view_tool",
        description: "An app-only tool that answers with the secret",
        inputSchema: { type: "object" },
        handler: () => `app sees ${SECRET}`,
      }),
    ],
  });
}

/**
 * Reads every task the planted calls started (from the replies `server.handle()` got) until it
 * ends, with tasks/get on stdio's path and over HTTP; returns the final statuses, sorted.
 */
async function followTasks(
  server: Server,
  handled: unknown[],
  fetch: (request: Request) => Promise<Response>,
): Promise<string[]> {
  const ids = handled.flatMap((reply) => {
    const result = isRecord(reply) && isRecord(reply.result) ? reply.result : undefined;
    return result?.resultType === "task" && typeof result.taskId === "string"
      ? [result.taskId]
      : [];
  });
  const statuses: string[] = [];
  for (const taskId of ids) {
    const body = modernRequest(`get-${taskId}`, "tasks/get", { taskId }, {
      extensions: { "io.modelcontextprotocol/tasks": {} },
    });
    let status: unknown;
    for (let attempt = 0; attempt < 100; attempt++) {
      const reply = await server.handle(body);
      handled.push(reply);
      status = isRecord(reply) && isRecord(reply.result) ? reply.result.status : undefined;
      if (status === "completed" || status === "failed") break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const headers = { ...headersFor(body), "mcp-name": taskId, ...POST_HEADERS };
    const response = await fetch(
      new Request(ENDPOINT, { method: "POST", headers, body: JSON.stringify(body) }),
    );
    await response.body?.cancel();
    statuses.push(String(status));
  }
  return statuses.sort();
}

const POST_HEADERS = { "content-type": "application/json", accept: "application/json" };

Deno.test("no byte the server writes holds a planted secret: every method of both eras, every transport", async () => {
  const audit: unknown[] = [];
  const diagnostics: string[] = [];
  const server = plantedServer(audit, diagnostics);
  await plantExtensions(server);
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
  const tasks = await followTasks(server, handled, recordingFetch(server, bytes, drains));
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
  // The first 6 characters of the secret's random part: a secret cut in two leaks too.
  const at = everything.indexOf(SECRET.slice(4, 10));
  assert.equal(at, -1, `the secret leaked: …${everything.slice(Math.max(0, at - 150), at + 300)}`);
  // Not vacuous: the planted requests reached handlers, refusals and every kind of answer.
  assert.ok(planted.length >= methodNames().length * 4);
  for (const status of [200, 202, 400, 404]) assert.ok(statuses.has(status), `HTTP ${status} seen`);
  for (const text of written) {
    assert.ok(text.includes("[REDACTED]"), "the secret was sent for, and masked");
    assert.ok(text.includes('"note":"[REDACTED]"'), "a result's _meta was sent, masked");
  }
  assert.ok(bytes.join("").includes("-32020"), "header mismatches were answered");
  assert.ok(bytes.join("").includes("event: message"), "SSE streams were read");
  assert.deepEqual(tasks, ["completed", "failed"], "tasks ran to their end and were read");
  for (const sent of [frames, stdioFrames]) {
    assert.ok(sent.join("").includes("-32601"), "unknown methods were answered");
  }
});

/** Every string literal in src/ shaped like a method name ("a/b", "a/b/c"). */
async function methodLikeLiterals(): Promise<Set<string>> {
  const names = new Set<string>();
  const walk = async (dir: URL): Promise<void> => {
    for await (const entry of Deno.readDir(dir)) {
      const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
      if (entry.isDirectory) await walk(url);
      else if (entry.name.endsWith(".ts")) {
        const text = await Deno.readTextFile(url);
        for (const [, name] of text.matchAll(/"([a-z]+(?:\/[a-zA-Z_]+)+)"/g)) names.add(name!);
      }
    }
  };
  await walk(new URL("../../src/", import.meta.url));
  return names;
}

Deno.test("every method a server with every extension answers is among the planted methods", async () => {
  // A method added later is covered by the property above only if methodNames() finds it: any
  // name the code spells that a full server answers (not -32601) must be in the generated list.
  const server = plantedServer([], []);
  await plantExtensions(server);
  const caps = {
    extensions: {
      "io.modelcontextprotocol/tasks": {},
      "io.modelcontextprotocol/skills": {},
      "io.modelcontextprotocol/ui": {},
    },
  };
  const planted = new Set(methodNames());
  const answered: string[] = [];
  for (const name of await methodLikeLiterals()) {
    if (name.startsWith("notifications/")) continue;
    for (
      const body of [
        { jsonrpc: "2.0", id: 1, method: name, params: {} },
        modernRequest(2, name, {}, caps),
      ]
    ) {
      const reply = await server.handle(body);
      const code = isRecord(reply) && isRecord(reply.error) ? reply.error.code : undefined;
      const message = isRecord(reply) && isRecord(reply.error) ? String(reply.error.message) : "";
      if (code !== ErrorCode.MethodNotFound || !message.startsWith("Method not found")) {
        answered.push(name);
      }
    }
  }
  assert.ok(answered.includes("skills/list") && answered.includes("tools/call"), "not vacuous");
  assert.deepEqual([...new Set(answered)].filter((name) => !planted.has(name)), []);
  await server.close();
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
