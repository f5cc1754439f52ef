/**
 * A client per transport (the memory pair, which is stdio's path, and
 * Streamable HTTP through `server.fetch`) in either protocol era, that keeps
 * everything the server sends it and answers the server's own requests: for
 * tests about what leaves the server, whatever the way out.
 */

import { ErrorCode, ModernErrorCode, type Server } from "../../mod.ts";
import { createMemoryPair } from "../../testing.ts";
import { isRecord, MODERN, modernMeta, notification, request } from "./helpers.ts";
import { headerValue, jsonOf, openSession, post, SseReader } from "./http_helpers.ts";

export type Message = Record<string, unknown>;
export type WireEra = "legacy" | "modern";

/** What the clients declare: every way the server may ask them something. */
export const CLIENT_CAPABILITIES = {
  elicitation: {},
  sampling: {},
  extensions: { "io.modelcontextprotocol/tasks": {} },
};

/** One client connection, recording what arrives. */
export interface Wire {
  /** Every message the server sent: replies, notifications and its requests. */
  readonly received: Message[];
  /** Sends a request and resolves with its reply, answering the server's requests meanwhile. */
  request(method: string, params: Record<string, unknown>): Promise<Message>;
  /** Sends a request that is answered only when the server closes (subscriptions/listen). */
  open(method: string, params: Record<string, unknown>): void;
  /** Ends the connection and waits for every opened request; call after `server.close()`. */
  close(): Promise<void>;
}

/** `params` as a request of `era` carries them (modern: the revision, capabilities, log level). */
export function paramsIn(era: WireEra, params: Record<string, unknown>): Record<string, unknown> {
  const _meta = era === "legacy" ? { progressToken: "p1" } : modernMeta(CLIENT_CAPABILITIES, {
    "io.modelcontextprotocol/logLevel": "debug",
    progressToken: "p1",
  });
  return { ...params, _meta };
}

/** The client's answer to a server request: a sampled message, or a declined elicitation. */
function answerTo(asked: Message): unknown {
  return asked.method === "sampling/createMessage"
    ? { role: "assistant", content: { type: "text", text: "fine" }, model: "test-model" }
    : { action: "decline" };
}

function isServerRequest(message: Message): boolean {
  return typeof message.method === "string" && message.id !== undefined;
}

function parseMessage(text: string): Message {
  const message: unknown = JSON.parse(text);
  if (!isRecord(message)) throw new Error(`Not a JSON-RPC object: ${text}`);
  return message;
}

/** A client on a memory pair: stdio's path through `server.connect()`. */
export async function memoryWire(server: Server, era: WireEra): Promise<Wire> {
  const [client, end] = createMemoryPair();
  const writer = client.writable.getWriter();
  const write = (message: unknown) => writer.write(JSON.stringify(message));
  const received: Message[] = [];
  const waiting = new Map<unknown, (reply: Message) => void>();
  const served = server.connect(end);
  const reading = (async () => {
    for await (const frame of client.readable) {
      const message = parseMessage(frame);
      received.push(message);
      if (isServerRequest(message)) {
        write({ jsonrpc: "2.0", id: message.id, result: answerTo(message) }).catch(() => {});
      } else if (message.method === undefined) waiting.get(message.id)?.(message);
    }
  })();
  let ids = 0;
  const send = async (method: string, params: Record<string, unknown>): Promise<Message> => {
    const id = ++ids;
    const reply = new Promise<Message>((resolve) => waiting.set(id, resolve));
    await write(request(id, method, params));
    return reply;
  };
  if (era === "legacy") {
    await send("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: CLIENT_CAPABILITIES,
      clientInfo: { name: "wire-client", version: "1.0.0" },
    });
    await write(notification("notifications/initialized"));
  }
  const opened: Promise<unknown>[] = [];
  return {
    received,
    request: send,
    open: (method, params) => void opened.push(send(method, params)),
    async close() {
      // A server that closed first has closed this side's writable too.
      await writer.close().catch(() => {});
      await Promise.all([served, reading, ...opened]);
    },
  };
}

/** Where `Mcp-Name` comes from in a modern POST, by method. */
const NAME_SOURCES: Readonly<Record<string, string>> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId",
};

function modernHeaders(method: string, params: Record<string, unknown>): Record<string, string> {
  const headers: Record<string, string> = { "mcp-protocol-version": MODERN, "mcp-method": method };
  const key = NAME_SOURCES[method];
  const name = key === undefined ? undefined : params[key];
  if (typeof name === "string") headers["mcp-name"] = headerValue(name);
  return headers;
}

/** A client over Streamable HTTP: a legacy session, or sessionless modern POSTs. */
export async function httpWire(server: Server, era: WireEra): Promise<Wire> {
  const received: Message[] = [];
  const session = era === "legacy"
    ? await openSession(server, { capabilities: CLIENT_CAPABILITIES })
    : undefined;
  const postOne = (body: Message, method: string, params: Record<string, unknown>) =>
    session === undefined ? post(server, body, modernHeaders(method, params)) : session.post(body);
  const answer = async (asked: Message): Promise<void> => {
    const body = { jsonrpc: "2.0", id: asked.id, result: answerTo(asked) };
    await (await postOne(body, "", {})).body?.cancel();
  };
  /** Reads a POST's answer: one JSON reply, or an SSE stream that ends with it. */
  const replyOf = async (response: Response, id: number): Promise<Message> => {
    if (response.headers.get("content-type") === "application/json") {
      const reply = await jsonOf(response);
      received.push(reply);
      return reply;
    }
    const reader = new SseReader(response);
    for (let event = await reader.next(5000); event !== undefined; event = await reader.next()) {
      if (event.data === "") continue; // a priming event
      const message = parseMessage(event.data);
      received.push(message);
      if (isServerRequest(message)) await answer(message);
      else if (message.method === undefined && message.id === id) {
        await reader.rest();
        return message;
      }
    }
    throw new Error(`The stream of request ${id} ended without its reply`);
  };
  let ids = 0;
  const send = async (method: string, params: Record<string, unknown>): Promise<Message> => {
    const id = ++ids;
    return await replyOf(await postOne(request(id, method, params), method, params), id);
  };
  const opened: Promise<unknown>[] = [];
  return {
    received,
    request: send,
    open: (method, params) => void opened.push(send(method, params)),
    async close() {
      // server.close() ended the session and answered every open request.
      await Promise.all(opened);
    },
  };
}

/** Every transport a wire property runs over, by label. */
export const WIRES: [string, (server: Server, era: WireEra) => Promise<Wire>][] = [
  ["memory", memoryWire],
  ["http", httpWire],
];

/** Both protocol eras. */
export const ERAS: WireEra[] = ["legacy", "modern"];

/** The error code of `reply`, or undefined when it is not an error. */
export function codeOf(reply: Message): number | undefined {
  return isRecord(reply.error) && typeof reply.error.code === "number"
    ? reply.error.code
    : undefined;
}

/** The code an access refusal carries in `era`. */
export function deniedCode(era: WireEra): number {
  return era === "legacy" ? ErrorCode.AccessDenied : ModernErrorCode.AccessDenied;
}

/** Polls every 5 ms until `done()` holds; throws after `ms`. */
export async function waitFor(done: () => boolean, ms = 3000): Promise<void> {
  const until = Date.now() + ms;
  while (!done()) {
    if (Date.now() > until) throw new Error("Timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
