/**
 * The official TypeScript SDK's client pieces that the interop tests use,
 * imported in one place with the type hints they need, plus the order-desk
 * example as a child process behind the SDK's stdio transport.
 *
 * The SDK is named here by full `npm:` specifier and locked in tests/deno.lock
 * (the test, bench and conformance tasks pass `--lock=tests/deno.lock`), never
 * in the root deno.json or deno.lock: Deno installs every npm package of the
 * lockfile in use as soon as a program needs any, so a test dependency there
 * would be downloaded by every `deno run examples/orders.ts`.
 */

// deno-lint-ignore-file no-import-prefix

// The SDK's "./*" export maps types to "./dist/esm/*.d.ts", so "client/index.js" would look for
// "index.js.d.ts" and come out untyped (`any`); the extensionless names find the real types.
// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/client/stdio"
import { StdioClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/stdio.js";
import { ROOT } from "./subprocess.ts";

// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/client/index"
export { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp"
export { StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/shared/transport"
export type { Transport as SdkTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/shared/transport.js";
// Every schema and message type, so a test can name whichever messages it handles.
// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/types"
export * from "npm:@modelcontextprotocol/sdk@1.32.2/types.js";

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
