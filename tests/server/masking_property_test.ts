/**
 * The masking guarantee as a property: however the guardrails were
 * assembled (one config object, separate pieces, a policy file, the server
 * flags), nothing the server writes anywhere (replies, notifications, stderr
 * diagnostics, audit entries, in both protocol eras) contains a secret the
 * configured redactor masks, wherever in a request the secret was put
 * (argument values and names, item names, URIs, handler output, errors).
 * masking_channels_test.ts holds the same property per channel and transport;
 * masking_wire_test.ts at the lowest point (every byte a transport writes),
 * over every method of both eras' tables.
 */

import assert from "node:assert/strict";
import { createServer, defineTool } from "../../mod.ts";
import { leakyEcho, SECRET } from "../_helpers/leaky_tools.ts";
import type { Guardrail } from "../../src/call/guardrail.ts";
import { auditLog, callbackAuditSink, createGuardrails, redaction } from "../../guardrails.ts";
import { setupFromFlags } from "../../src/setup/flags.ts";
import { parsePolicy } from "../../src/setup/policy_file.ts";
import { connectPeer, type Message } from "../_helpers/peer.ts";

const RULE = "ODK-[A-Za-z0-9]{24,}";
const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
  "io.modelcontextprotocol/logLevel": "debug",
  progressToken: "p1",
};

/** A way of assembling the guardrails, given where audit entries must go. */
type Route = (audit: (entry: unknown) => void) => Promise<Guardrail[]>;

const ROUTES: Record<string, Route> = {
  "createGuardrails(config)": (audit) =>
    Promise.resolve(
      createGuardrails({ redact: { patterns: [RULE] }, audit: callbackAuditSink(audit) }),
    ),
  "separate pieces": (audit) =>
    Promise.resolve([
      redaction({ patterns: [RULE] }),
      auditLog({ sink: callbackAuditSink(audit) }),
    ]),
  "separate pieces, audit given its own redactor": (audit) =>
    Promise.resolve([
      auditLog({ sink: callbackAuditSink(audit), redact: {} }),
      redaction({ patterns: [RULE] }),
    ]),
  "policy file text": async (audit) => {
    const config = await parsePolicy(
      `{ "redact": { "patterns": ["${RULE}"] }, "access": { "tools": { "allow": ["*"] } } }`,
      "inline",
    );
    return createGuardrails({ ...config, audit: callbackAuditSink(audit) });
  },
  "server flags with a policy file": async (audit) => {
    const dir = await Deno.makeTempDir();
    const path = `${dir}/policy.jsonc`;
    await Deno.writeTextFile(path, `{ "redact": { "patterns": ["${RULE}"] } }`);
    const setup = await setupFromFlags({ policy: path });
    await Deno.remove(dir, { recursive: true });
    return [...setup.guardrails, auditLog({ sink: callbackAuditSink(audit) })];
  },
};

function leakyServer(guardrails: Guardrail[], log: (line: string) => void) {
  return createServer({
    name: "leaky",
    version: "1.0.0",
    guardrails,
    log,
    tools: [
      leakyEcho,
      defineTool({
        name: "strict",
        description: "Takes exactly one argument",
        inputSchema: {
          type: "object",
          properties: { a: { type: "number" } },
          additionalProperties: false,
        },
        handler: () => "ok",
      }),
      defineTool({
        name: "fail",
        description: "Fails with the secret in its message",
        inputSchema: { type: "object" },
        handler: () => {
          throw new Error(`cannot use ${SECRET}`);
        },
      }),
      defineTool({
        name: "ask",
        description: "Asks the user, quoting the secret",
        inputSchema: { type: "object" },
        handler: async (_args, ctx) => {
          await ctx.elicit(`Is ${SECRET} yours?`, {
            type: "object",
            properties: { yes: { type: "boolean" } },
          });
          return "asked";
        },
      }),
    ],
    resourceTemplates: [{
      uriTemplate: "memo://{id}",
      name: "memo",
      read: ({ id }) => {
        if (id === "broken") throw new TypeError(`broken memo near ${SECRET}`);
        return `memo ${id} mentions ${SECRET}`;
      },
    }],
  });
}

/** Every request shape that could carry the secret out, in both eras. */
function requests(): [method: string, params: Record<string, unknown>][] {
  const shapes: [string, Record<string, unknown>][] = [
    ["tools/call", { name: "echo", arguments: { text: SECRET } }],
    ["tools/call", { name: "strict", arguments: { a: 1, [SECRET]: 2 } }],
    ["tools/call", { name: SECRET, arguments: {} }],
    ["tools/call", { name: "fail", arguments: {} }],
    ["tools/call", { name: "ask", arguments: {} }],
    ["resources/read", { uri: `memo://${SECRET}` }],
    ["resources/read", { uri: "memo://broken" }],
    ["resources/read", { uri: `nothing://${SECRET}` }],
    ["prompts/get", { name: SECRET }],
  ];
  return [
    ...shapes.map((
      [m, p],
    ): [string, Record<string, unknown>] => [m, { ...p, _meta: { progressToken: "p1" } }]),
    ...shapes.map(([m, p]): [string, Record<string, unknown>] => [m, { ...p, _meta: MODERN_META }]),
  ];
}

for (const [label, route] of Object.entries(ROUTES)) {
  Deno.test(`nothing the server writes holds a masked secret: ${label}`, async () => {
    const audited: unknown[] = [];
    const lines: string[] = [];
    const server = leakyServer(
      await route((entry) => void audited.push(entry)),
      (line) => void lines.push(line),
    );
    const written: Message[] = [];
    const peer = await connectPeer(server, { capabilities: { elicitation: {} } });
    const answering = (async () => {
      // Answer the legacy elicitation so the call can finish; record what was asked.
      while (true) {
        const asked = await peer.next("elicitation/create").catch(() => undefined);
        if (asked === undefined) return;
        written.push(asked);
        await peer.answer(asked, { action: "decline" });
      }
    })();
    for (const [method, params] of requests()) {
      written.push(await peer.request(method, params));
    }
    await peer.settle();
    for (const kind of ["notifications/message", "notifications/progress"]) {
      written.push(...peer.drain(kind));
    }
    await peer.close();
    await answering;
    await server.close();
    const everything = JSON.stringify({ written, lines, audited });
    assert.ok(audited.length >= requests().length, `${label}: every call audited`);
    assert.ok(written.length > requests().length, `${label}: notifications were sent`);
    assert.ok(!everything.includes(SECRET), `${label}: the secret leaked:\n${everything}`);
    assert.ok(!everything.includes(SECRET.slice(4)), `${label}: part of the secret leaked`);
  });
}

Deno.test("an audit entry is masked once, however the audit log was given its rules", async () => {
  // A mask that is not idempotent: one pass turns "b" into "ab", a second into "aab".
  const options = { presets: false, defaultKeys: false, patterns: ["b"], mask: "ab" } as const;
  const routes: [
    label: string,
    (sink: ReturnType<typeof callbackAuditSink>) => Guardrail[],
    reply: string,
  ][] = [
    ["createGuardrails()", (sink) => createGuardrails({ redact: options, audit: sink }), "ab"],
    // The server's masker masks the entry; the audit log's own redactor stands by.
    [
      "a redactor of its own beside the redaction step",
      (sink) => [redaction(options), auditLog({ sink, redact: options })],
      "ab",
    ],
    // No redaction step: the server masks nothing, so the audit log's own redactor does.
    [
      "a redactor of its own and no redaction step",
      (sink) => [auditLog({ sink, redact: options })],
      "b",
    ],
    // The policy's audit log keeps the policy's rules on a server without its redaction step.
    [
      "createGuardrails() without its redaction step",
      (sink) =>
        createGuardrails({ redact: options, audit: sink }).filter((g) => g.stage !== "redact"),
      "b",
    ],
  ];
  for (const [label, guardrails, replied] of routes) {
    const audited: unknown[] = [];
    const server = createServer({
      name: "once",
      version: "1.0.0",
      guardrails: guardrails(callbackAuditSink((entry) => void audited.push(entry))),
      tools: [defineTool({
        name: "echo",
        description: "Echoes",
        inputSchema: { type: "object", properties: { text: { type: "string" } } },
        handler: ({ text }) => text ?? "",
      })],
    });
    const reply = await server.handle({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "echo", arguments: { text: "b" } },
    });
    await server.close();
    assert.deepEqual(reply, {
      jsonrpc: "2.0",
      id: 1,
      result: { content: [{ type: "text", text: replied }] },
    }, label);
    const entry = audited[0];
    assert.ok(typeof entry === "object" && entry !== null && "arguments" in entry, label);
    assert.deepEqual(entry.arguments, { text: "ab" }, label);
  }
});
