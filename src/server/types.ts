/**
 * The server's public shapes: its options, and the object createServer()
 * returns.
 *
 * @module
 */

import type { TaskOptions } from "../eras/tasks/options.ts";
import type { SharedStore } from "../store/shared_store.ts";
import type { Guardrail } from "../call/guardrail.ts";
import type { JsonRpcResponse } from "../jsonrpc/messages.ts";
import type { ObjectSchema } from "../schema/types.ts";
import type { HttpOptions } from "../http/options.ts";
import type { Transport } from "../transports/transport.ts";
import type { Root } from "../core/client_asks.ts";
import type { ItemHandle } from "../core/registry.ts";
import type { CacheOptions } from "../eras/modern/caching.ts";
import type { ClientDescription, ClientRequestOptions } from "../core/context.ts";
import type { Implementation } from "../core/lifecycle.ts";
import type { PromptArgument, PromptDefinition } from "../core/prompts.ts";
import type { ResourceContext, ResourceDefinition } from "../core/resources.ts";
import type { ResourceTemplateDefinition } from "../core/templates.ts";
import type { ToolDefinition } from "../core/tools.ts";
import type { ToolList } from "./tool_list.ts";

/**
 * Options of {@linkcode createServer}. The `Implementation` fields (`name`,
 * `version`, `title`, `description`, `icons`, `websiteUrl`) are sent as
 * `serverInfo`.
 *
 * `T` is the list of the tools' input schemas, `O` of their output schemas
 * and `P` of the prompts' argument lists, one entry per item:
 * `createServer()` infers all three from the literals, so a tool or prompt
 * written inline gets the same argument and return types as one built with
 * `defineTool()` or `definePrompt()`.
 *
 * @typeParam T The input schema of each tool, in order.
 * @typeParam P The argument list of each prompt, in order (`unknown` for a
 *   prompt that declares none).
 * @typeParam O The output schema of each tool, in order (anything but an
 *   object schema for a tool that declares none).
 *
 * @example Options kept apart from the call, e.g. shared by a script and its tests
 * ```ts
 * import { createServer, type ServerOptions } from "@warden/mcp";
 * const options: ServerOptions = {
 *   name: "desk",
 *   version: "1.4.0",
 *   title: "Order desk",
 *   instructions: "Look orders up by id before changing them.",
 *   pageSize: 50,
 *   requestTimeoutMs: 30_000,
 *   log: (message) => console.error(`[desk] ${message}`),
 * };
 * const server = createServer(options);
 * ```
 */
export interface ServerOptions<
  T extends readonly ObjectSchema[] = readonly ObjectSchema[],
  P extends readonly unknown[] = readonly (readonly PromptArgument[])[],
  O extends readonly unknown[] = readonly unknown[],
> extends Implementation {
  /** Guidance for the model on how to use this server, sent at `initialize` and `server/discover`. */
  instructions?: string;
  /**
   * Tools to register now (more can be added with `server.tool()`). Each
   * handler's arguments are typed from its own `inputSchema` and, when it
   * declares an `outputSchema`, its result's `structuredContent` from that,
   * whether it is written inline or built with `defineTool()`.
   */
  tools?: ToolList<T, O>;
  /** Resources to register now. */
  resources?: readonly ResourceDefinition[];
  /** Resource templates to register now. */
  resourceTemplates?: readonly ResourceTemplateDefinition[];
  /**
   * Prompts to register now. Each `get` receives its declared arguments:
   * required ones as `string`, the others as `string | undefined`. An
   * argument's `complete` needs its parameter annotated (`(prefix: string)`)
   * for the list to be inferred; without it, or without `arguments`, `get`
   * takes any name as `string | undefined`.
   */
  prompts?: {
    readonly [K in keyof P]: PromptDefinition<
      P[K] extends readonly PromptArgument[] ? P[K] : readonly PromptArgument[]
    >;
  };
  /** The Streamable HTTP endpoint's options, for `server.fetch()` and `serveHttp()`. */
  http?: HttpOptions;
  /** Guardrails, run in the fixed pipeline order whatever their order here. */
  guardrails?: readonly Guardrail[];
  /**
   * The principal guardrails decide about, for sessions that don't name one
   * in `connect()`. The client's `clientInfo` is never used for this: a client
   * could claim any name.
   */
  principal?: string;
  /**
   * Items per page of tools/list, resources/list, resources/templates/list
   * and prompts/list; undefined sends every item at once.
   */
  pageSize?: number;
  /**
   * How long requests to the client (sampling, elicitation, roots) wait for
   * an answer.
   * @default {60000}
   */
  requestTimeoutMs?: number;
  /**
   * Where diagnostics go: skipped lines, internal errors with their stacks.
   * @default {console.error}, i.e. stderr
   */
  log?: (message: string) => void;
  /**
   * How long in-flight requests may finish after the client closes the
   * stream, before they are aborted.
   * @default {5000}
   */
  shutdownGraceMs?: number;
  /**
   * Which protocol eras are served. Both by default; `["legacy"]` answers
   * like a server that predates revision 2026-07-28 (no `server/discover`,
   * per-request `_meta` ignored), e.g. to test a client's fallback.
   * @default {["legacy", "modern"]}
   */
  eras?: readonly ("legacy" | "modern")[];
  /** Cache hints of revision 2026-07-28's discover, list and read results. */
  cache?: CacheOptions;
  /**
   * The key(s) that seal multi round-trip `requestState` (revision
   * 2026-07-28): a secret of at least 32 bytes, or a list whose first entry
   * seals and all of which open (key rotation). Instances behind one load
   * balancer must share it. Unset, each process makes a random key, which
   * suits a single instance only.
   */
  requestStateKey?: string | Uint8Array | readonly (string | Uint8Array)[];
  /**
   * How long a sealed `requestState` is accepted, in ms.
   * @default {600000} (10 minutes)
   */
  requestStateTtlMs?: number;
  /**
   * The most rounds of input one call may ask the client for (revision 2026-07-28).
   * @default {10}
   */
  maxInputRounds?: number;
  /**
   * Tasks (revision 2026-07-28, tasks extension): where they are kept, how
   * long, and the polling interval clients are told. Tools opt in with
   * their `task` field.
   */
  tasks?: TaskOptions;
  /**
   * Whether a diagnostic about a thrown error (a tool, resource, prompt or
   * completion handler that threw, an internal error) carries the error's
   * stack after its message; off, only the message line is logged.
   * @default {true}
   */
  logStacks?: boolean;
  /**
   * Quotas per principal, so that one caller cannot exhaust what the
   * others need (docs/guardrails.md, "Quotas").
   * Anonymous callers share one principal. A refusal is -32002 (-31002 in
   * revision 2026-07-28) with `data.quota` and `data.limit`, audited as
   * `quota_exceeded`.
   */
  quotas?: {
    /**
     * Tasks kept (working, or finished until their TTL) per principal;
     * enforced by the default task stores (a custom `tasks.store` keeps its own).
     * @default {100}
     */
    tasks?: number;
    /**
     * `subscriptions/listen` streams open at once per principal (revision 2026-07-28).
     * @default {16}
     */
    listenStreams?: number;
    /**
     * Guarded calls (tools/call, resources/read, prompts/get, completion,
     * subscriptions) in flight at once per principal, both eras, every transport.
     * @default {64}
     */
    inflightCalls?: number;
    /**
     * Multi round-trip `requestState`s this process remembers (until they
     * expire, to tell a replay from the same call continuing) per principal.
     * @default {1000}
     */
    requestStates?: number;
  };
  /**
   * The server's clock, in ms since the epoch: sealed `requestState`
   * expiries and task times are measured by it; tests pass a fake one.
   * @default {Date.now}
   */
  now?: () => number;
  /**
   * State shared with the other instances that open the same store: the `requestState` sealing key (unless `requestStateKey` is set)
   * and the list-change/resource-update bus. Rate limits take theirs through
   * the guardrails (`serverSetup()` passes the same store to both). The
   * server closes it on `close()`.
   * @default {undefined} (everything per process)
   */
  store?: SharedStore;
}

/**
 * A connected client, as `onRootsListChanged` listeners see it.
 *
 * @example Re-reading a client's roots when it says they changed
 * ```ts
 * import { type ClientSession, createServer } from "@warden/mcp";
 * const server = createServer({ name: "files", version: "1.0.0" });
 * async function reindex(session: ClientSession): Promise<void> {
 *   const roots = await session.roots({ timeoutMs: 5_000 });
 *   const who = session.client.info?.name ?? "a client";
 *   console.error(`${who} now exposes ${roots.map((root) => root.uri).join(", ")}`);
 * }
 * server.onRootsListChanged((session) => void reindex(session).catch(console.error));
 * ```
 */
export interface ClientSession {
  /** What the client said about itself. */
  readonly client: ClientDescription;
  /** The session's principal. */
  readonly principal: string | undefined;
  /** Asks the client for its current roots. */
  roots(options?: ClientRequestOptions): Promise<Root[]>;
}

export type { ItemHandle, ToolList };

/**
 * An MCP server: register tools, resources and prompts, then `connect()` it
 * to a transport, or call `handle()` directly.
 *
 * @example Registering a tool after start-up and answering a message in process
 * ```ts
 * import { createServer, type Server } from "@warden/mcp";
 * const server: Server = createServer({ name: "desk", version: "1.0.0" });
 * server.tool({
 *   name: "open_orders",
 *   description: "How many orders are open",
 *   inputSchema: { type: "object", properties: {} },
 *   handler: () => "12 open orders",
 * });
 * const reply = await server.handle({ jsonrpc: "2.0", id: 1, method: "tools/list" });
 * await server.close();
 * ```
 */
export interface Server {
  /**
   * Registers a tool; its handler's argument type comes from the schema
   * literal. Returns the handle to update, disable or remove it.
   */
  tool<const S extends ObjectSchema, const O extends ObjectSchema | undefined = undefined>(
    definition: ToolDefinition<S, O>,
  ): ItemHandle<ToolDefinition>;
  /** Registers a resource; returns its handle. */
  resource(definition: ResourceDefinition): ItemHandle<ResourceDefinition>;
  /** Registers a resource template such as `orders://{id}`; returns its handle. */
  resourceTemplate(
    definition: ResourceTemplateDefinition,
  ): ItemHandle<ResourceTemplateDefinition>;
  /**
   * Registers a prompt; its `get` argument type comes from the argument
   * list. Returns its handle.
   */
  prompt<const A extends readonly PromptArgument[] = readonly []>(
    definition: PromptDefinition<A>,
  ): ItemHandle<PromptDefinition>;
  /**
   * Publishes an Agent Skill (the skills extension, SEP-2640) that
   * `loadSkill()` from `@warden/mcp/skills` read from a directory or from
   * memory (a separate entry, so that a server publishing no skill never
   * loads its YAML parser). Each file is served as a resource,
   * `skill://<path>/<file>`, with its SHA-256 digest and size in the
   * `skills/list` and `skills/get` entries; the access policy, the audit
   * and the redactor treat them as any resource. The extension is declared
   * while a skill is registered. Load and publish again after `remove()`
   * to serve a changed skill. See docs/skills.md.
   *
   * @throws {TypeError} A value `loadSkill()` did not return; a skill whose
   *   SKILL.md or a file URI is already registered.
   */
  skill(
    loaded: {
      /** The skill path. */
      readonly path: string;
      /** The URI of its SKILL.md. */
      readonly uri: string;
    },
  ): {
    /** The URI of the skill's SKILL.md. */
    readonly uri: string;
    /** Withdraws the skill and its files; false when already withdrawn. */
    remove(): boolean;
  };
  /**
   * Declares an MCP App (the apps extension, SEP-1865) in one call: a view,
   * the `ui://` resource of type `text/html;profile=mcp-app` whose
   * `_meta.ui` carries its CSP and permissions, and the tools linked to it
   * by `_meta.ui.resourceUri`: `tools` are visible to the model and the
   * app, `appTools` to the app only (listed and callable only for clients
   * that declare the extension). Returns the view's handle. See
   * docs/apps.md.
   *
   * @throws {TypeError} A URI that is not a plain `ui://` URI, a CSP entry
   *   that is not an origin, an unknown permission, a name already taken.
   */
  app(definition: {
    /** The view's URI, `ui://…`. */
    readonly uri: string;
    /** Its programmatic name. */
    readonly name: string;
    /** Its human-readable name. */
    readonly title?: string;
    /** What it shows. */
    readonly description?: string;
    /** The HTML document, or a function that produces it on each read. */
    readonly html: string | ((context: ResourceContext) => string | Promise<string>);
    /** The external origins it needs (`https://api.example.com`); none by default. */
    readonly csp?: {
      readonly connectDomains?: readonly string[];
      readonly resourceDomains?: readonly string[];
      readonly frameDomains?: readonly string[];
      readonly baseUriDomains?: readonly string[];
    };
    /** The browser permissions it asks for, each as `{}`. */
    readonly permissions?: {
      readonly camera?: Record<string, never>;
      readonly microphone?: Record<string, never>;
      readonly geolocation?: Record<string, never>;
      readonly clipboardWrite?: Record<string, never>;
    };
    /** A dedicated sandbox origin, in the host's format. */
    readonly domain?: string;
    /** Whether the host should draw a border around it. */
    readonly prefersBorder?: boolean;
    /** Tools that open the view: visible to the model and to the app. */
    readonly tools?: readonly ToolDefinition[];
    /** Tools only the view calls: hidden from the model. */
    readonly appTools?: readonly ToolDefinition[];
  }): ItemHandle<ResourceDefinition>;
  /**
   * Removes a tool or prompt (by name), a resource (by URI) or a template (by
   * its template string); false when there was none. Live sessions are told
   * the list changed.
   */
  remove(type: "tool" | "resource" | "resourceTemplate" | "prompt", key: string): boolean;
  /**
   * Tells the clients subscribed to `uri` (legacy `resources/subscribe` and
   * `subscriptions/listen` alike, if allowed to see it) that it changed.
   */
  notifyResourceUpdated(uri: string): void;
  /** Calls `listener` whenever a client says its roots changed; returns the unsubscribe function. */
  onRootsListChanged(listener: (session: ClientSession) => void): () => void;
  /**
   * Handles one parsed JSON-RPC message (or batch) on the server's embedded
   * session and resolves to the reply, or undefined when none is due. The
   * embedded session has no way back to the client, so handlers there cannot
   * log, report progress or make requests of the client.
   */
  handle(message: unknown): Promise<JsonRpcResponse | JsonRpcResponse[] | undefined>;
  /**
   * Answers one Streamable HTTP request for the endpoint (`options.http`):
   * a web-standard fetch handler, so the server runs under `Deno.serve`,
   * Deno Deploy, Hono, Bun or any fetch-style host.
   */
  fetch(request: Request): Promise<Response>;
  /** Serves one session over `transport`; resolves when the session has ended. */
  connect(transport: Transport, options?: {
    /** The principal of this session; overrides the server's `principal`. */
    principal?: string;
  }): Promise<void>;
  /** Aborts in-flight handlers, ends every session, and flushes guardrails (the audit log). */
  close(): Promise<void>;
  /** How long in-flight calls may finish once a session or listener shuts down (`shutdownGraceMs`). */
  readonly shutdownGraceMs: number;
}

/** Options of `server.connect()`. */
export type ConnectOptions = NonNullable<Parameters<Server["connect"]>[1]>;
