/**
 * `@redis/client`, for a `redis://` shared store.
 *
 * @module
 */

// The files of this folder are the one place the library names npm packages (see load.ts).
// deno-lint-ignore-file no-import-prefix

/**
 * The few calls Warden makes on a Redis connection (`@redis/client`, the
 * official node-redis core without its module packages).
 */
export interface RedisConnection {
  /** Whether commands can be sent now. */
  readonly isReady: boolean;
  /** Opens the connection; rejects only when it will not retry. */
  connect(): Promise<unknown>;
  /** Sends one command, e.g. `["SET", "k", "v"]`. */
  sendCommand(args: string[]): Promise<unknown>;
  /** Listens to connection events (`error`, `ready`, `end`). */
  on(event: string, listener: (value: unknown) => void): unknown;
  /** Subscribes to a pub/sub channel (on a dedicated connection). */
  subscribe(channel: string, listener: (message: string) => void): Promise<unknown>;
  /** Ends a subscription. */
  unsubscribe(channel: string): Promise<unknown>;
  /** Closes the connection without waiting for replies. */
  destroy(): unknown;
}

/** Options Warden passes when it creates a Redis connection. */
export interface RedisConnectionOptions {
  /** `redis://[user:password@]host:port/db`. */
  url: string;
  /** Reject commands while reconnecting instead of queueing them. */
  disableOfflineQueue: boolean;
  /**
   * The socket's reconnect policy (the wait in ms, or an Error to stop
   * retrying, given the error that broke the connection) and connect timeout.
   */
  socket: {
    reconnectStrategy: (retries: number, cause: unknown) => number | Error;
    connectTimeout: number;
  };
}

/**
 * Loads `@redis/client` (only for a `redis://` shared store) and returns its
 * connection factory.
 */
export async function loadRedisClient(): Promise<
  (options: RedisConnectionOptions) => RedisConnection
> {
  const { createClient } = await import("npm:@redis/client@^6.3.1");
  return (options) => createClient(options);
}
