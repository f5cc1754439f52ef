/**
 * State shared between instances of one server behind a load balancer
 * (rate-limit buckets, the `requestState` sealing key, the list-change and
 * resource-update bus): the `SharedStore` interface and its three
 * implementations (in memory, Redis, Deno KV), and how to open one from a
 * URL (`redis://host:port/db`, `kv:PATH`, `kv:`).
 *
 * @example Two instances sharing one Redis
 * ```ts ignore
 * import { createServer } from "@warden/mcp";
 * import { openStore } from "@warden/mcp/store";
 * const store = openStore("redis://127.0.0.1:6379/0");
 * const server = createServer({ name: "desk", version: "1.0.0", store });
 * ```
 *
 * @module
 */

export {
  type BucketTake,
  type SharedStore,
  StoreUnavailableError,
} from "./src/store/shared_store.ts";
export { MemoryStore } from "./src/store/memory_store.ts";
export { RedisStore } from "./src/store/redis_store.ts";
export { KvStore } from "./src/store/kv_store.ts";
export { openStore } from "./src/store/open_store.ts";
export { rotateStateKey } from "./src/store/sealing_keys.ts";
