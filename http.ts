/**
 * The parts of Warden's Streamable HTTP endpoint a deployment may tune:
 * CORS, the event store that lets legacy clients resume their streams, and
 * OAuth 2.1 authorization (`oauthResourceServer()`, which loads `jose`).
 * `server.fetch()` and `serveHttp()` (in the root entry) serve it.
 *
 * @example A bigger event store for clients that reconnect slowly
 * ```ts
 * import { createServer } from "@warden/mcp";
 * import { MemoryEventStore } from "@warden/mcp/http";
 * const server = createServer({
 *   name: "desk",
 *   version: "1.0.0",
 *   http: { eventStore: new MemoryEventStore({ maxEventsPerStream: 50_000 }) },
 * });
 * ```
 *
 * @module
 */

export type { CorsOptions } from "./src/http/security.ts";
export { type EventStore, MemoryEventStore } from "./src/http/event_store.ts";
export { oauthResourceServer } from "./src/http/oauth.ts";
