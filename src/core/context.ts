/**
 * The context every handler receives next to its arguments.
 *
 * @module
 */

import type { Root, SamplingRequest, SamplingResult, UrlElicitation } from "./client_asks.ts";
import type { ElicitResult, ElicitSchema } from "./elicitation_forms.ts";
import type { Implementation } from "./lifecycle.ts";
import type { LoggingLevel } from "./logging.ts";

/**
 * What the server knows about the client: from `initialize` on a legacy
 * session, from the request's own `_meta` in revision 2026-07-28.
 *
 * @example Deciding by what the client declared; naming it only in diagnostics
 * ```ts
 * import type { ClientDescription } from "@warden/mcp";
 * // Whether a handler may ask the client's model, or should answer with an excerpt.
 * function canSample(client: ClientDescription): boolean {
 *   return client.capabilities.sampling !== undefined;
 * }
 * // `info` is what the client says it is: fit for a log line, never for a decision.
 * function describe(client: ClientDescription): string {
 *   const name = client.info ? `${client.info.name} ${client.info.version}` : "an unnamed client";
 *   return `${name} speaking ${client.protocolVersion}`;
 * }
 * ```
 */
export interface ClientDescription {
  /** The client's `clientInfo`, when it sent one. */
  readonly info: Implementation | undefined;
  /** The client's declared capabilities. */
  readonly capabilities: Readonly<Record<string, unknown>>;
  /**
   * The revision the request is served under: the negotiated one on a
   * legacy session ("2025-06-18" before a client has negotiated one), or the
   * request's own `io.modelcontextprotocol/protocolVersion`.
   */
  readonly protocolVersion: string;
}

/**
 * Options of a request to the client.
 *
 * @example Giving the user two minutes to confirm, and stopping with the call
 * ```ts
 * import { type ClientRequestOptions, defineTool } from "@warden/mcp";
 * const cancelOrder = defineTool({
 *   name: "cancel_order",
 *   description: "Cancels an order once the user confirms",
 *   inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
 *   handler: async ({ id }, ctx) => {
 *     const options: ClientRequestOptions = {
 *       timeoutMs: 120_000,
 *       signal: ctx.signal,
 *       inputKey: "confirm-cancel",
 *     };
 *     const answer = await ctx.elicit(
 *       `Cancel order ${id}?`,
 *       { type: "object", properties: { confirm: { type: "boolean" } }, required: ["confirm"] },
 *       options,
 *     );
 *     return answer.action === "accept" && answer.content.confirm ? `Cancelled ${id}` : "Kept";
 *   },
 * });
 * ```
 */
export interface ClientRequestOptions {
  /**
   * How long to wait for the client.
   * @default {60000}, or the server's `requestTimeoutMs`
   */
  timeoutMs?: number;
  /**
   * Aborts the request; the handler's own signal always does too.
   */
  signal?: AbortSignal;
  /**
   * The key this ask has in an `InputRequiredResult` (revision 2026-07-28);
   * unique within the request. Ignored on legacy sessions.
   * @default {the method's short name and the ask's position, e.g. "elicitation-1"}
   */
  inputKey?: string;
  /**
   * For a tool that runs as a task (revision 2026-07-28, tasks extension):
   * ask on the `tools/call` itself, as a multi round-trip request, before
   * the task is created. Such asks must come before the handler awaits
   * anything else; made later, they become ordinary task input requests.
   * @default {false}
   */
  beforeTask?: boolean;
}

/**
 * Options of a URL elicitation (`ctx.elicitUrl()`).
 *
 * @example Usage
 * ```ts
 * import type { ElicitUrlOptions } from "@warden/mcp";
 * const options: ElicitUrlOptions = { elicitationId: "payment-7f3a", timeoutMs: 120_000 };
 * ```
 */
export interface ElicitUrlOptions extends ClientRequestOptions {
  /**
   * The id to send, when the server made one already (e.g. stored with the
   * pending flow).
   * @default {crypto.randomUUID()}
   */
  elicitationId?: string;
}

/**
 * The context of one request, given to tool handlers, resource readers and
 * prompt getters.
 *
 * @example Stopping work when the client cancels, and reporting progress
 * ```ts
 * import type { RequestContext } from "@warden/mcp";
 * async function slow(ctx: RequestContext): Promise<string> {
 *   for (let i = 1; i <= 10; i++) {
 *     ctx.signal.throwIfAborted();
 *     await new Promise((r) => setTimeout(r, 10));
 *     ctx.progress(i, 10);
 *   }
 *   ctx.log("info", "slow work done");
 *   return "done";
 * }
 * ```
 */
export interface RequestContext {
  /** Aborted on `notifications/cancelled` for this request and on shutdown. */
  readonly signal: AbortSignal;
  /** Whether `signal` has fired; reading this does not create the signal (cheaper on hot paths). */
  readonly aborted: boolean;
  /** The JSON-RPC id of the request. */
  readonly requestId: string | number;
  /** The client on the other end. */
  readonly client: ClientDescription;
  /** The configured principal of this session, if any. */
  readonly principal: string | undefined;
  /**
   * What the request's OAuth access token grants: its scopes and the claims
   * named in `oauthResourceServer({ claims })`; never the token. Undefined
   * without OAuth.
   */
  readonly auth?: {
    /** The token's scopes. */
    readonly scopes: readonly string[];
    /** The claims named in `oauthResourceServer({ claims })`, as the token carries them. */
    readonly claims: Readonly<Record<string, unknown>>;
  } | undefined;
  /** The request's `_meta`, as sent. */
  readonly _meta: Readonly<Record<string, unknown>> | undefined;
  /** `_meta.progressToken`, when the client asked for progress. */
  readonly progressToken: string | number | undefined;
  /**
   * Sends `notifications/message` when `level` is at or above the level the
   * client set (`info` until it sets one). `data` passes through the redactor.
   */
  log(level: LoggingLevel, data: unknown, logger?: string): void;
  /**
   * Sends `notifications/progress` when the client asked for progress (does
   * nothing otherwise). `progress` must increase with every call.
   *
   * @throws {RangeError} when `progress` does not increase
   */
  progress(progress: number, total?: number, message?: string): void;
  /*
   * Asking the client (sample, elicit, elicitUrl, roots) works in both eras.
   * On a legacy session the ask is a request to the client and the promise
   * settles with its answer. In revision 2026-07-28 the first call ends the
   * request with an `InputRequiredResult`; the client answers in a retry, on
   * which the handler runs again from the start and the same ask, made in
   * the same order, resolves at once with the answer. Work done before an
   * ask is therefore repeated on every round: ask first, act after.
   */
  /**
   * Asks the client's model for a completion (`sampling/createMessage`).
   *
   * @throws {MissingCapabilityError} when the client cannot sample; nothing is sent
   */
  sample(request: SamplingRequest, options?: ClientRequestOptions): Promise<SamplingResult>;
  /**
   * Asks the user to fill a flat form (`elicitation/create`); an accepted
   * answer is validated against the form.
   *
   * @throws {MissingCapabilityError} when the client cannot elicit; nothing is sent
   * @throws {TypeError} when the form is not a flat object of primitive fields
   */
  elicit<const S extends ElicitSchema>(
    message: string,
    requestedSchema: S,
    options?: ClientRequestOptions,
  ): Promise<ElicitResult<S>>;
  /**
   * Asks the user to open `url` for an interaction that must not pass
   * through the client, such as entering a credential or a payment
   * (URL-mode `elicitation/create`, revision 2025-11-25). `url` may be a
   * function of the elicitation id, to carry it. "accept" means only that
   * the user agreed to go; call `complete()` on the answer when the flow has
   * finished, to send `notifications/elicitation/complete`.
   *
   * @throws {MissingCapabilityError} when the client did not declare
   * `elicitation.url` under revision 2025-11-25 or later; nothing is sent
   * @throws {TypeError} when `url` is not an absolute URL
   */
  elicitUrl(
    message: string,
    url: string | ((elicitationId: string) => string),
    options?: ElicitUrlOptions,
  ): Promise<UrlElicitation>;
  /**
   * Ends this request's response stream now, when the transport streams
   * (Streamable HTTP with SSE): the client reconnects with `Last-Event-ID`
   * and receives what is sent afterwards, the result included. Lets a
   * long call release its connection (SSE polling). Elsewhere it does
   * nothing.
   */
  closeStream(): void;
  /**
   * Lists the client's roots (`roots/list`).
   *
   * @throws {MissingCapabilityError} when the client exposes no roots; nothing is sent
   */
  roots(options?: ClientRequestOptions): Promise<Root[]>;
}
