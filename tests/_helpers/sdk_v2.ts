/**
 * The official TypeScript SDK v2 client (`@modelcontextprotocol/client`), the
 * one place the tests name its npm specifier, and the SDK v2 desk fixture
 * served to it: as a child process behind the SDK's stdio transport, or
 * in-process behind `Deno.serve` on a free loopback port.
 */

// The v2 client is a test-only dependency: naming it inline here keeps it out of the import map
// that consumers of the library would see.
// deno-lint-ignore-file no-import-prefix

import { StdioClientTransport } from "npm:@modelcontextprotocol/client@2.4.0/stdio";
import {
  Client,
  type ClientOptions,
  type ElicitRequest,
  type ElicitResult,
} from "npm:@modelcontextprotocol/client@2.4.0";
import { createDesk, type Desk } from "../fixtures/sdk_v2_desk.ts";
import { isRecord } from "./helpers.ts";
import { ROOT } from "./subprocess.ts";

export {
  ClientCredentialsProvider,
  DpopSession,
  type McpSubscription,
  MissingRequiredClientCapabilityError,
  type OAuthClientProvider,
  ProtocolError,
  ResourceNotFoundError,
  SdkError,
  SdkErrorCode,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  withDpop,
} from "npm:@modelcontextprotocol/client@2.4.0";
export { Client, type ClientOptions, type ElicitRequest, type ElicitResult, StdioClientTransport };

/** The protocol revision the pinned tests ask for. */
export const MODERN_REVISION = "2026-07-28";

/** A stdio transport for the desk fixture, and what every desk process it started received. */
export interface StdioDesk {
  /** The SDK transport; the client spawns the child when it connects. */
  readonly transport: StdioClientTransport;
  /** Every stderr line of the session child so far. */
  readonly stderr: readonly string[];
  /**
   * The methods each desk process received, one list per process in the order
   * they started: in the probing modes the SDK's disposable probe sibling
   * comes first, then the session child.
   */
  received(): string[][];
  /**
   * Closes `client` (which ends the child), then returns {@linkcode StdioDesk.received}
   * and removes the method log.
   */
  finish(client: { close(): Promise<void> }): Promise<string[][]>;
}

/**
 * An SDK stdio transport that runs `deno run tests/fixtures/sdk_v2_desk.ts`
 * at the repository root once a client connects. In the probing modes the SDK
 * first runs a disposable sibling with the same command for `server/discover`
 * (its stderr discarded), so the processes report through a shared log file.
 */
export function stdioDesk(options: { legacyOnly?: boolean } = {}): StdioDesk {
  const log = Deno.makeTempFileSync({ prefix: "sdk-v2-desk-", suffix: ".log" });
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: [
      "run",
      `--allow-write=${log}`,
      "tests/fixtures/sdk_v2_desk.ts",
      `--method-log=${log}`,
      ...(options.legacyOnly === true ? ["--legacy-only"] : []),
    ],
    cwd: ROOT,
    stderr: "pipe",
  });
  const stderr: string[] = [];
  const decoder = new TextDecoder();
  let rest = "";
  transport.stderr?.on("data", (chunk: unknown) => {
    const text = rest + (chunk instanceof Uint8Array ? decoder.decode(chunk) : String(chunk));
    const lines = text.split("\n");
    rest = lines.pop() ?? "";
    stderr.push(...lines);
  });
  const received = (): string[][] => {
    const byPid = new Map<string, string[]>();
    for (const line of Deno.readTextFileSync(log).split("\n")) {
      const [pid, method] = line.split(" ");
      if (pid === undefined || method === undefined) continue;
      const methods = byPid.get(pid) ?? [];
      methods.push(method);
      byPid.set(pid, methods);
    }
    return [...byPid.values()];
  };
  return {
    transport,
    stderr,
    received,
    async finish(client) {
      try {
        await client.close();
        return received();
      } finally {
        Deno.removeSync(log);
      }
    },
  };
}

/** The client identity every interop test sends. */
export const CLIENT_INFO = { name: "warden-sdk-v2-interop", version: "1.0.0" };
/** Client options pinned to revision 2026-07-28, able to answer form elicitations. */
export const PINNED: ClientOptions = {
  capabilities: { elicitation: { form: {} } },
  versionNegotiation: { mode: { pin: MODERN_REVISION } },
};
/** Client options in automatic era negotiation, able to answer form elicitations. */
export const AUTO: ClientOptions = {
  capabilities: { elicitation: { form: {} } },
  versionNegotiation: { mode: "auto" },
};

/** A client whose elicitation handler answers `answer` and records every request it saw. */
export function clientWith(options: ClientOptions, answer: ElicitResult): {
  client: Client;
  asked: ElicitRequest["params"][];
} {
  const client = new Client(CLIENT_INFO, options);
  const asked: ElicitRequest["params"][] = [];
  client.setRequestHandler("elicitation/create", (request) => {
    asked.push(request.params);
    return answer;
  });
  return { client, asked };
}

/** The user confirms the desk's cancellation form. */
export const CONFIRM: ElicitResult = {
  action: "accept",
  content: { confirm: true, reason: "duplicate" },
};

/** One POST the HTTP desk received: the JSON-RPC method and the MCP headers that came with it. */
export interface SeenPost {
  /** The body's `method`. */
  method: string;
  /** The `MCP-Protocol-Version` header, if any. */
  protocolVersion: string | null;
  /** The `Mcp-Method` header, if any. */
  mcpMethod: string | null;
  /** The `Mcp-Session-Id` header, if any (legacy sessions only). */
  sessionId: string | null;
  /** Which of the MRTR retry fields (`inputResponses`, `requestState`) the params carried. */
  retryFields: string[];
}

/** The desk served over HTTP by {@linkcode httpDesk}. */
export interface HttpDesk {
  /** The MCP endpoint. */
  readonly url: URL;
  /** The desk itself, for changing it while a client is connected. */
  readonly desk: Desk;
  /** Every POST so far, in arrival order. */
  readonly posts: readonly SeenPost[];
  /** Closes the server and stops listening. */
  stop(): Promise<void>;
}

/**
 * The desk behind `server.fetch` on a free 127.0.0.1 port, recording every
 * POST's method and MCP headers before Warden sees it.
 */
export function httpDesk(options: { legacyOnly?: boolean } = {}): HttpDesk {
  const desk = createDesk(options);
  const posts: SeenPost[] = [];
  const controller = new AbortController();
  const listener = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: controller.signal, onListen: () => {} },
    async (request) => {
      if (request.method === "POST") {
        const body: unknown = await request.clone().json().catch(() => undefined);
        const method = isRecord(body) ? String(body.method) : "(not an object)";
        const params = isRecord(body) && isRecord(body.params) ? body.params : {};
        posts.push({
          method,
          protocolVersion: request.headers.get("mcp-protocol-version"),
          mcpMethod: request.headers.get("mcp-method"),
          sessionId: request.headers.get("mcp-session-id"),
          retryFields: ["inputResponses", "requestState"].filter((key) => key in params),
        });
      }
      return desk.server.fetch(request);
    },
  );
  return {
    url: new URL(`http://127.0.0.1:${listener.addr.port}/mcp`),
    desk,
    posts,
    async stop() {
      await desk.server.close();
      controller.abort();
      await listener.finished;
    },
  };
}
