/**
 * Shared test fixtures: a small server, a few message builders, reply readers,
 * and the `isRecord()` guard and `within()` timeout every test file uses.
 */

import {
  createServer,
  defineTool,
  type RequestContext,
  type Server,
  type ServerOptions,
} from "../../mod.ts";
import type { CallContext } from "../../guardrails.ts";

/** A request message. */
export function request(id: number | string, method: string, params?: Record<string, unknown>) {
  return params === undefined
    ? { jsonrpc: "2.0", id, method }
    : { jsonrpc: "2.0", id, method, params };
}

/** A notification message. */
export function notification(method: string, params?: Record<string, unknown>) {
  return params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params };
}

/** An initialize request offering `version`. */
export function initialize(id: number | string = 0, version = "2025-06-18") {
  return request(id, "initialize", {
    protocolVersion: version,
    capabilities: {},
    clientInfo: { name: "test-client", version: "1.0.0" },
  });
}

/** Collects diagnostics instead of printing them. */
export function captureLog(): { lines: string[]; log: (message: string) => void } {
  const lines: string[] = [];
  return { lines, log: (message) => lines.push(message) };
}

/** A fresh `echo` tool (it returns its `text`) and `test://hello` resource, for fixture servers. */
export function echoFixtures(): Required<Pick<ServerOptions, "tools" | "resources">> {
  return {
    tools: [
      defineTool({
        name: "echo",
        description: "Echoes its text",
        inputSchema: {
          type: "object",
          properties: { text: { type: "string" } },
          required: ["text"],
        },
        handler: ({ text }) => text,
      }),
    ],
    resources: [{ uri: "test://hello", name: "hello", read: () => "hello" }],
  };
}

/** An `echo` tool whose `text` is optional: the text back, or "" without one. */
export function echoTool() {
  return defineTool({
    name: "echo",
    description: "Echoes",
    inputSchema: { type: "object", properties: { text: { type: "string" } } },
    handler: ({ text }) => text ?? "",
  });
}

/** A `chatty` tool: logs at debug, warning and error, and reports progress 1 and 2 of 2. */
export function chattyTool() {
  return defineTool({
    name: "chatty",
    description: "Logs at debug, warning and error, and reports progress",
    inputSchema: { type: "object", properties: {} },
    handler: (_args, ctx) => {
      ctx.log("debug", "debug line");
      ctx.log("warning", "warning line");
      ctx.log("error", "error line");
      ctx.progress(1, 2, "half");
      ctx.progress(2, 2, "done");
      return "chatted";
    },
  });
}

/** A server with one of each kind, diagnostics captured into `lines`. */
export function fixtureServer(
  extra: Partial<ServerOptions> = {},
): { server: Server; lines: string[] } {
  const { lines, log } = captureLog();
  const server = createServer({
    name: "fixture",
    version: "1.2.3",
    log,
    ...echoFixtures(),
    prompts: [{ name: "greet", description: "Greets", get: () => "Say hello" }],
    ...extra,
  });
  return { server, lines };
}

/** Whether `value` is a plain object (not null, not an array), so its keys can be read. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Resolves as `promise` does, or rejects once `ms` have passed; the timer never outlives it. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`Timed out after ${ms} ms: ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The `result` of a success reply; throws when `reply` is anything else. */
export function resultOf(reply: unknown): Record<string, unknown> {
  if (!isRecord(reply) || !isRecord(reply.result)) {
    throw new Error(`Expected a success reply, got ${JSON.stringify(reply)}`);
  }
  return reply.result;
}

/** The `error` of an error reply; throws when `reply` is anything else. */
export function errorOf(reply: unknown): { code: number; message: string; data?: unknown } {
  if (!isRecord(reply) || !isRecord(reply.error) || typeof reply.error.code !== "number") {
    throw new Error(`Expected an error reply, got ${JSON.stringify(reply)}`);
  }
  const { code, message, data } = reply.error;
  const error: { code: number; message: string; data?: unknown } = {
    code,
    message: String(message),
  };
  if (data !== undefined) error.data = data;
  return error;
}

/**
 * A context for calling guardrails (the call's facts) or handlers directly;
 * its client methods refuse.
 */
export function testContext(principal?: string): RequestContext & CallContext {
  const refuse = () => Promise.reject(new Error("No client in this test"));
  return {
    signal: new AbortController().signal,
    aborted: false,
    cancelledByClient: false,
    era: "legacy",
    continuation: false,
    mask: undefined,
    requestId: 1,
    client: { info: undefined, capabilities: {}, protocolVersion: "2025-06-18" },
    principal,
    _meta: undefined,
    progressToken: undefined,
    log: () => {},
    progress: () => {},
    sample: refuse,
    elicit: refuse,
    elicitUrl: refuse,
    roots: refuse,
    closeStream: () => {},
  };
}

/** The revision served per request, with no session. */
export const MODERN = "2026-07-28";

/** A revision 2026-07-28 request's `_meta`: the version, `capabilities`, and any `extra` keys. */
export function modernMeta(
  capabilities: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": { name: "modern-test-client", version: "1.0.0" },
    "io.modelcontextprotocol/clientCapabilities": capabilities,
    ...extra,
  };
}

/** A revision 2026-07-28 request: `params` plus a `_meta` declaring `capabilities`. */
export function modernRequest(
  id: number | string,
  method: string,
  params: Record<string, unknown> = {},
  capabilities: Record<string, unknown> = {},
) {
  return request(id, method, { ...params, _meta: modernMeta(capabilities) });
}
