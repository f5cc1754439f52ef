/**
 * The official TypeScript SDK v2 client (`@modelcontextprotocol/client`), the
 * one place the tests name its npm specifier, plus the SDK v2 desk fixture as
 * a child process behind the SDK's stdio transport.
 */

// The v2 client is a test-only dependency: naming it inline here keeps it out of the import map
// that consumers of the library would see.
// deno-lint-ignore-file no-import-prefix

import { StdioClientTransport } from "npm:@modelcontextprotocol/client@2.4.0/stdio";
import { ROOT } from "./subprocess.ts";

export {
  Client,
  type ClientOptions,
  type ElicitRequest,
  type ElicitResult,
  type McpSubscription,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ResourceNotFoundError,
  SdkError,
  SdkErrorCode,
  StreamableHTTPClientTransport,
} from "npm:@modelcontextprotocol/client@2.4.0";
export { StdioClientTransport };

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
