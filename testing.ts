/**
 * Transports for tests and embedding: an in-memory pair that makes every
 * test an end-to-end one without processes.
 *
 * @example A client and a server in one process
 * ```ts
 * import { createServer } from "@warden/mcp";
 * import { createMemoryPair } from "@warden/mcp/testing";
 * const server = createServer({ name: "desk", version: "1.0.0" });
 * const [client, end] = createMemoryPair();
 * const serving = server.connect(end);
 * await client.writable.close();
 * await serving;
 * ```
 *
 * @module
 */

export { createMemoryPair, MemoryTransport } from "./src/transports/memory.ts";
