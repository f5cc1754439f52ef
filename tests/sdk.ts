/**
 * The official TypeScript SDK's client pieces that the interop tests use,
 * imported in one place with the type hints they need, plus the order-desk
 * example as a child process behind the SDK's stdio transport.
 */

// The SDK's "./*" export maps types to "./dist/esm/*.d.ts", so "client/index.js" would look for
// "index.js.d.ts" and come out untyped (`any`); the extensionless names find the real types.
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ROOT } from "./subprocess.ts";

// @ts-types="@modelcontextprotocol/sdk/client/index"
export { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
export { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
export type { Transport as SdkTransport } from "@modelcontextprotocol/sdk/shared/transport.js";
// Every schema and message type, so a test can name whichever messages it handles.
// @ts-types="@modelcontextprotocol/sdk/types"
export * from "@modelcontextprotocol/sdk/types.js";

/**
 * An SDK stdio transport that will run `deno run examples/orders.ts` at the
 * repository root once a client connects, with the child's stderr collected
 * into `stderr` as it arrives.
 */
export function stdioOrderDesk(): { transport: StdioClientTransport; stderr: string[] } {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "examples/orders.ts"],
    cwd: ROOT,
    stderr: "pipe",
  });
  const stderr: string[] = [];
  const decoder = new TextDecoder();
  transport.stderr?.on("data", (chunk: unknown) => {
    stderr.push(chunk instanceof Uint8Array ? decoder.decode(chunk) : String(chunk));
  });
  return { transport, stderr };
}
