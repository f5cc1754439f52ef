/**
 * What the tests of per-revision behaviour share: a scripted client on one
 * end of a memory pair, initialized at the revision a test chooses, that
 * answers the server's requests as the test says; the `add` tool; and a
 * reader for a result's only text block.
 *
 * @module
 */

import assert from "node:assert/strict";
import { defineTool, ErrorCode, type Server } from "../../mod.ts";
import { createMemoryPair } from "../../testing.ts";
import { isRecord, resultOf } from "./helpers.ts";

/** A JSON-RPC message or params object. */
export type Message = Record<string, unknown>;

/** Answers a server → client request: a result, or throws for an error reply. */
export type Answer = (method: string, params: Message) => unknown;

/** A scripted client on one end of a memory pair. */
export interface Peer {
  /** Sends a request and resolves to the whole reply. */
  call(method: string, params?: Message): Promise<Message>;
  /** Sends a batch and resolves to the reply frame. */
  batch(messages: unknown[]): Promise<unknown>;
  /** Server → client requests and notifications, in arrival order. */
  readonly received: Message[];
  /** Ends the session and waits for the server to finish it. */
  close(): Promise<void>;
}

/** The default: every server request is unexpected. */
const refuseAll: Answer = (method) => {
  throw new Error(`Unexpected ${method}`);
};

/** Connects a fake client to `server`, initialized at `version` with `capabilities`. */
export async function connectPeer(
  server: Server,
  version: string,
  capabilities: Message = {},
  answer: Answer = refuseAll,
): Promise<Peer & { negotiated: unknown }> {
  const [client, serverEnd] = createMemoryPair();
  const done = server.connect(serverEnd);
  const writer = client.writable.getWriter();
  const pending = new Map<unknown, (reply: unknown) => void>();
  let onBatch: ((reply: unknown) => void) | undefined;
  const received: Message[] = [];
  let next = 0;
  const send = (message: unknown) => writer.write(JSON.stringify(message));
  const reading = (async () => {
    for await (const frame of client.readable) {
      const message: unknown = JSON.parse(frame);
      if (!isRecord(message) || message.id === null) {
        onBatch?.(message);
        continue;
      }
      if (typeof message.method !== "string") {
        pending.get(message.id)?.(message);
        pending.delete(message.id);
        continue;
      }
      received.push(message);
      if (message.id === undefined) continue;
      const params = isRecord(message.params) ? message.params : {};
      try {
        const result = await answer(message.method, params);
        await send({ jsonrpc: "2.0", id: message.id, result });
      } catch (error) {
        await send({
          jsonrpc: "2.0",
          id: message.id,
          error: { code: ErrorCode.InternalError, message: String(error) },
        });
      }
    }
  })();
  const call = async (method: string, params?: Message): Promise<Message> => {
    const id = `c${++next}`;
    const reply = new Promise<unknown>((resolve) => pending.set(id, resolve));
    await send(
      params === undefined ? { jsonrpc: "2.0", id, method } : {
        jsonrpc: "2.0",
        id,
        method,
        params,
      },
    );
    const message = await reply;
    assert.ok(isRecord(message));
    return message;
  };
  const init = await call("initialize", {
    protocolVersion: version,
    capabilities,
    clientInfo: { name: `peer-${version}`, version: "1.0.0" },
  });
  await send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return {
    negotiated: resultOf(init).protocolVersion,
    call,
    batch: async (messages) => {
      const reply = new Promise<unknown>((resolve) => (onBatch = resolve));
      await send(messages);
      return await reply;
    },
    received,
    close: async () => {
      await writer.close();
      await done;
      await reading;
    },
  };
}

/** The text of a result's only text block. */
export function onlyText(result: Message): string {
  const content = result.content;
  assert.ok(Array.isArray(content) && content.length === 1, JSON.stringify(result));
  const [block] = content;
  assert.ok(isRecord(block) && block.type === "text" && typeof block.text === "string");
  return block.text;
}

/** A tool that adds two integers, and refuses anything else as invalid arguments. */
export const ADD = defineTool({
  name: "add",
  description: "Adds two integers",
  inputSchema: {
    type: "object",
    properties: { a: { type: "integer" }, b: { type: "integer" } },
    required: ["a", "b"],
  },
  handler: ({ a, b }) => String(a + b),
});
