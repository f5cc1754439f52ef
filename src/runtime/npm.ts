/**
 * The npm packages the library itself uses, named by full `npm:` specifier
 * with a version range in this one place, so that Warden's modules resolve
 * when imported by path, URL or JSR with no import map from the consumer.
 * Each is loaded only when a feature needs it, never at start-up.
 *
 * @module
 */

// The one place the library names npm packages inline (see the module doc).
// deno-lint-ignore-file no-import-prefix

// Types only: erased at run time, so naming them loads nothing.
import type * as JsoncParser from "npm:jsonc-parser@^3.3.1";
import type * as SmolToml from "npm:smol-toml@^1.4.2";

/** The JSONC parser's module type. */
export type JsoncParserModule = typeof JsoncParser;

/** A node of the JSONC parser's syntax tree. */
export type JsoncNode = JsoncParser.Node;

/** One syntax error the JSONC parser reports. */
export type JsoncParseError = JsoncParser.ParseError;

/**
 * Imports an npm package: by its `npm:` specifier on Deno (and in a bundle
 * Deno made, which inlines it), by its bare name on Bun, which resolves
 * bare names from the project's node_modules but cannot load `npm:`.
 */
function load<T>(onDeno: () => Promise<T>, bare: string): Promise<T> {
  // Bun's import.meta.require takes a bare name without Deno treating it as an import.
  const bunRequire = (import.meta as { require?: (id: string) => unknown }).require;
  if ("Bun" in globalThis && typeof bunRequire === "function") {
    return Promise.resolve().then(() => bunRequire(bare) as T);
  }
  return onDeno();
}

/** Loads `jsonc-parser` (the policy file's parser). */
export function loadJsoncParser(): Promise<JsoncParserModule> {
  return load(() => import("npm:jsonc-parser@^3.3.1"), "jsonc-parser");
}

/** The TOML parser's module type. */
export type TomlModule = typeof SmolToml;

/** Loads `smol-toml` (the parser of gitleaks rule files). */
export function loadToml(): Promise<TomlModule> {
  return load(() => import("npm:smol-toml@^1.4.2"), "smol-toml");
}

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
  /** The socket's reconnect policy and connect timeout. */
  socket: { reconnectStrategy: (retries: number) => number; connectTimeout: number };
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

// Types only, as above: naming them loads nothing.
import type * as OtelApi from "npm:@opentelemetry/api@^1.9.0";

/** The OpenTelemetry API's module type. */
export type OtelApiModule = typeof OtelApi;

/**
 * Loads `@opentelemetry/api`, the package Deno's built-in OpenTelemetry
 * registers its tracer and meter providers with (only when telemetry is on).
 */
export function loadOtelApi(): Promise<OtelApiModule> {
  return import("npm:@opentelemetry/api@^1.9.0");
}
