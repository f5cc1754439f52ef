/**
 * A raw JSON-RPC client on one end of a memory pair, for tests that drive a
 * live session, with the small server and reply reader those tests share.
 */

import { createServer, type Server, type ServerOptions } from "../../mod.ts";
import { createMemoryPair } from "../../testing.ts";
import { captureLog, isRecord, request, resultOf } from "./helpers.ts";

export type Message = Record<string, unknown>;

/** A server named "features" with `extra` options and its diagnostics swallowed. */
export function testServer(extra: Partial<ServerOptions> = {}): Server {
  return createServer({ name: "features", version: "1.0.0", log: captureLog().log, ...extra });
}

/** The text of a tool-call reply's first content block; throws when there is none. */
export function textOf(reply: Message): string {
  const [block] = (resultOf(reply).content ?? []) as unknown[];
  if (!isRecord(block) || typeof block.text !== "string") {
    throw new Error(`Expected one text block, got ${JSON.stringify(reply)}`);
  }
  return block.text;
}

/** The input schema of a tool that takes no arguments. */
export const EMPTY = { type: "object", properties: {} } as const;

export interface Waiter {
  readonly matches: (message: Message) => boolean;
  readonly resolve: (message: Message) => void;
}

/** Options of {@linkcode connectPeer}. */
export interface PeerOptions {
  /** The client's declared capabilities. */
  capabilities?: Record<string, unknown>;
  /** The session's principal, passed to `server.connect()`. */
  principal?: string;
  /** Whether to run the initialize handshake first. @default {true} */
  initialize?: boolean;
}

/** Drives the client end: sends frames, and hands out what arrives, in order, once each. */
export class Peer {
  readonly #writer: WritableStreamDefaultWriter<string>;
  readonly #inbox: Message[] = [];
  readonly #waiters: Waiter[] = [];
  readonly #done: Promise<unknown>;
  #nextId = 1;
  /** The server's initialize result, once the handshake ran. */
  initialized: Message = {};

  constructor(server: Server, principal: string | undefined) {
    const [client, end] = createMemoryPair();
    this.#writer = client.writable.getWriter();
    const served = server.connect(end, principal === undefined ? {} : { principal });
    const reading = (async () => {
      for await (const frame of client.readable) {
        const message: unknown = JSON.parse(frame);
        if (!isRecord(message)) throw new Error(`Not a JSON-RPC object: ${frame}`);
        const index = this.#waiters.findIndex((waiter) => waiter.matches(message));
        if (index === -1) this.#inbox.push(message);
        else this.#waiters.splice(index, 1)[0]?.resolve(message);
      }
    })();
    this.#done = Promise.all([served, reading]);
  }

  /** Writes one message to the server. */
  send(message: unknown): Promise<void> {
    return this.#writer.write(JSON.stringify(message));
  }

  /** The first message (now or later) that `matches`, taken out of the inbox. */
  take(matches: (message: Message) => boolean, what: string, ms = 2000): Promise<Message> {
    const index = this.#inbox.findIndex(matches);
    if (index !== -1) return Promise.resolve(this.#inbox.splice(index, 1)[0] ?? {});
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        matches,
        resolve: (message) => {
          clearTimeout(timer);
          resolve(message);
        },
      };
      const timer = setTimeout(() => {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        reject(new Error(`Timed out waiting for ${what}; inbox: ${JSON.stringify(this.#inbox)}`));
      }, ms);
      this.#waiters.push(waiter);
    });
  }

  /** The next request or notification named `method`. */
  next(method: string): Promise<Message> {
    return this.take((message) => message.method === method, method);
  }

  /** Every message that has arrived and matches, left in the inbox. */
  peek(matches: (message: Message) => boolean = () => true): Message[] {
    return this.#inbox.filter(matches);
  }

  /** Takes every message named `method` that has arrived so far. */
  drain(method: string): Message[] {
    const taken = this.#inbox.filter((message) => message.method === method);
    for (const message of taken) this.#inbox.splice(this.#inbox.indexOf(message), 1);
    return taken;
  }

  /** Sends a request with a fresh id and resolves to the server's reply. */
  async request(method: string, params?: Record<string, unknown>): Promise<Message> {
    const id = this.#nextId++;
    await this.send(request(id, method, params));
    return this.take((message) => message.id === id && !("method" in message), `reply ${id}`);
  }

  /** Calls a tool; `meta` becomes the request's `_meta`. */
  call(name: string, args: Record<string, unknown> = {}, meta?: Message): Promise<Message> {
    return this.request(
      "tools/call",
      meta === undefined ? { name, arguments: args } : { name, arguments: args, _meta: meta },
    );
  }

  /** Answers a request the server made. */
  answer(request: Message, result: unknown): Promise<void> {
    return this.send({ jsonrpc: "2.0", id: request.id, result });
  }

  /** Refuses a request the server made. */
  refuse(
    request: Message,
    error: { code: number; message: string; data?: unknown },
  ): Promise<void> {
    return this.send({ jsonrpc: "2.0", id: request.id, error });
  }

  /** A ping round trip: everything the server sent before it has arrived after it. */
  async settle(): Promise<void> {
    resultOf(await this.request("ping"));
  }

  /** Ends the session (unless the server already did) and waits for the server to finish it. */
  async close(): Promise<void> {
    // A server that closed first (server.close()) has closed this side's writable too.
    await this.#writer.close().catch((error: unknown) => {
      if (!(error instanceof TypeError)) throw error;
    });
    await this.#done;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/** Connects a raw client to `server`, initialized unless told otherwise. */
export async function connectPeer(server: Server, options: PeerOptions = {}): Promise<Peer> {
  const peer = new Peer(server, options.principal);
  if (options.initialize !== false) {
    peer.initialized = resultOf(
      await peer.request("initialize", {
        protocolVersion: "2025-06-18",
        capabilities: options.capabilities ?? {},
        clientInfo: { name: "raw-client", version: "1.0.0" },
      }),
    );
    await peer.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  }
  return peer;
}
