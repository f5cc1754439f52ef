/**
 * The masking guarantee per channel: every way a secret can leave the server
 * (replies, notifications, diagnostics, requests to the client, task
 * notices, audit entries, telemetry) passes the server's one masker, on
 * every transport (the memory pair, which is stdio's path, and Streamable
 * HTTP), in each protocol era that has the channel. masking_property_test.ts
 * holds the same property over the ways of assembling the guardrails, and
 * masking_wire_test.ts at the lowest point, whatever channel a byte took.
 */

import assert from "node:assert/strict";
import { createServer, defineTool, type Server } from "../../mod.ts";
import { leakyEcho, SECRET } from "../_helpers/leaky_tools.ts";
import { callbackAuditSink, createGuardrails } from "../../guardrails.ts";
import { callTelemetry } from "../../telemetry.ts";
import { loadOtelApi, type OtelApiModule } from "../../src/runtime/npm/otel.ts";
import { isRecord, resultOf } from "../_helpers/helpers.ts";
import {
  httpWire,
  memoryWire,
  type Message,
  paramsIn,
  type Wire,
  type WireEra,
} from "../_helpers/wire_clients.ts";

const RULE = "ODK-[A-Za-z0-9]{24,}";

/** A span as the test's tracer saw it: its name, attributes and status. */
interface SeenSpan {
  name: string;
  attributes: Record<string, unknown>;
  status?: unknown;
}

type TracerProvider = Parameters<OtelApiModule["trace"]["setGlobalTracerProvider"]>[0];

/** A tracer provider that keeps what each span was given, in memory. */
function recordingTracer(api: OtelApiModule, spans: SeenSpan[]): TracerProvider {
  const tracer = {
    startSpan(name: string, options: { attributes?: Record<string, unknown> } = {}) {
      const seen: SeenSpan = { name, attributes: { ...options.attributes } };
      spans.push(seen);
      const span = api.trace.wrapSpanContext(api.INVALID_SPAN_CONTEXT);
      span.setAttribute = (key, value) => {
        seen.attributes[key] = value;
        return span;
      };
      span.setStatus = (status) => {
        seen.status = status;
        return span;
      };
      return span;
    },
    startActiveSpan(): never {
      throw new Error("callTelemetry() starts its spans with startSpan");
    },
  };
  return { getTracer: () => tracer };
}

/** A server with a secret on every way out, and the guardrails that must mask it. */
function channelServer(
  audit: unknown[],
  diagnostics: string[],
  chore: Promise<void>,
): Server {
  return createServer({
    name: "channels",
    version: "1.0.0",
    guardrails: [
      ...createGuardrails({
        redact: { patterns: [RULE] },
        audit: callbackAuditSink((entry) => void audit.push(entry)),
      }),
      callTelemetry(),
    ],
    log: (line) => void diagnostics.push(line),
    tools: [
      leakyEcho,
      defineTool({
        name: "ask",
        description: "Asks the user, quoting the secret",
        inputSchema: { type: "object" },
        handler: async (_args, ctx) => {
          const answer = await ctx.elicit(`Is ${SECRET} yours?`, {
            type: "object",
            properties: { yes: { type: "boolean" } },
          });
          return answer.action;
        },
      }),
      defineTool({
        name: "sample",
        description: "Asks the client's model, quoting the secret",
        inputSchema: { type: "object" },
        handler: async (_args, ctx) => {
          const sampled = await ctx.sample({
            messages: [{ role: "user", content: { type: "text", text: `Spell ${SECRET}` } }],
            systemPrompt: `Never say ${SECRET}`,
            maxTokens: 10,
          });
          return sampled.model;
        },
      }),
      defineTool({
        name: "chore",
        description: "A task that reports progress and ends, quoting the secret",
        task: "optional",
        inputSchema: { type: "object" },
        handler: async (_args, ctx) => {
          await chore;
          ctx.progress(1, 2, `filing ${SECRET}`);
          return `filed ${SECRET}`;
        },
      }),
    ],
    resourceTemplates: [{
      uriTemplate: "memo://{id}",
      name: "memo",
      read: ({ id }) => `memo ${id} mentions ${SECRET}`,
    }],
    prompts: [{
      name: "brief",
      description: "A briefing",
      arguments: [{
        name: "topic",
        complete: () => {
          throw new Error(`no completions for ${SECRET}`);
        },
      }],
      get: () => "brief",
    }],
  });
}

/** The requests of both eras that send the secret out through the server. */
const CHANNEL_CALLS: [method: string, params: Record<string, unknown>][] = [
  ["tools/call", { name: "echo", arguments: { text: SECRET } }],
  ["tools/call", { name: SECRET, arguments: {} }],
  ["tools/call", { name: "ask", arguments: {} }],
  ["tools/call", { name: "sample", arguments: {} }],
  ["resources/read", { uri: `memo://${SECRET}` }],
  [
    "completion/complete",
    { ref: { type: "ref/prompt", name: "brief" }, argument: { name: "topic", value: "x" } },
  ],
];

/** Polls `done` until it holds, for up to two seconds. */
async function until(done: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !done(); waited += 5) {
    if (waited > 2000) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Runs the chore as a task, watched by a subscription: what tasks/get showed
 * on the way to its end.
 */
async function runChore(wire: Wire, release: () => void): Promise<Message[]> {
  const handle = resultOf(await wire.request("tools/call", paramsIn("modern", { name: "chore" })));
  const taskId = String(handle.taskId);
  const notices = () => wire.received.filter((m) => m.method === "notifications/tasks");
  wire.open("subscriptions/listen", paramsIn("modern", { notifications: { taskIds: [taskId] } }));
  await until(
    () => wire.received.some((m) => m.method === "notifications/subscriptions/acknowledged"),
    "the subscription",
  );
  release();
  const shown: Message[] = [];
  while (shown.at(-1)?.status !== "completed") {
    shown.push(resultOf(await wire.request("tasks/get", paramsIn("modern", { taskId }))));
  }
  await until(
    () => notices().some((m) => isRecord(m.params) && m.params.status === "completed"),
    "the task's last notice",
  );
  return shown;
}

/** What a modern input_required reply asks the client. */
function inputRequestsOf(reply: Message): unknown[] {
  const result = reply.result;
  return isRecord(result) && isRecord(result.inputRequests)
    ? Object.values(result.inputRequests)
    : [];
}

const WIRES: Record<string, (server: Server, era: WireEra) => Promise<Wire>> = {
  "memory (stdio's path)": memoryWire,
  "HTTP": httpWire,
};

for (const [transport, connect] of Object.entries(WIRES)) {
  for (const era of ["legacy", "modern"] as const) {
    Deno.test(`every outgoing channel is masked: ${transport}, ${era} era`, async () => {
      const api = await loadOtelApi();
      const spans: SeenSpan[] = [];
      assert.ok(api.trace.setGlobalTracerProvider(recordingTracer(api, spans)));
      try {
        const audit: unknown[] = [];
        const diagnostics: string[] = [];
        const chore = Promise.withResolvers<void>();
        const server = channelServer(audit, diagnostics, chore.promise);
        const wire = await connect(server, era);
        const replies: Message[] = [];
        for (const [method, params] of CHANNEL_CALLS) {
          replies.push(await wire.request(method, paramsIn(era, params)));
        }
        const tasks = era === "modern" ? await runChore(wire, chore.resolve) : [];
        await server.close();
        await wire.close();
        const sent = (...methods: string[]) =>
          wire.received.filter((m) => methods.includes(String(m.method)));
        const channels: Record<string, unknown[]> = {
          replies,
          notifications: sent("notifications/message", "notifications/progress"),
          diagnostics,
          "requests to the client": era === "legacy"
            ? sent("elicitation/create", "sampling/createMessage")
            : replies.flatMap(inputRequestsOf),
          "audit entries": audit,
          telemetry: spans,
        };
        if (era === "modern") channels["task notices"] = [...tasks, ...sent("notifications/tasks")];
        // Everything a client received, replies or not, hides it too.
        channels["anything received"] = wire.received;
        const unused = Object.keys(channels).filter((channel) => channels[channel]?.length === 0);
        assert.deepEqual(unused, [], "every channel was used");
        const leaked = Object.entries(channels)
          .filter(([, written]) => JSON.stringify(written).includes(SECRET.slice(4)))
          .map(([channel, written]) => `${channel}: ${JSON.stringify(written)}`);
        assert.deepEqual(leaked, [], "no channel holds the secret");
      } finally {
        api.trace.disable();
      }
    });
  }
}
