/**
 * The handler context in revision 2026-07-28: everything comes from the
 * request itself. Asking the client cannot send a request; an ask that the
 * retry has answered resolves at once, and one that it has not becomes an
 * input request of the `InputRequiredResult` the call ends with.
 *
 * @module
 */

import type { AuthGrant } from "../../call/context.ts";
import type { InflightRequest } from "../../dispatcher/inflight.ts";
import { isRecord, type JsonRpcId } from "../../jsonrpc/messages.ts";
import {
  type ClientAsk,
  elicitAsk,
  type Root,
  rootsAsk,
  samplingAsk,
  type SamplingRequest,
  type SamplingResult,
  urlElicitAsk,
  type UrlElicitation,
} from "../../core/client_asks.ts";
import { InputRequiredError, MissingCapabilityError } from "../../core/ask_errors.ts";
import type {
  ClientDescription,
  ClientRequestOptions,
  ElicitUrlOptions,
  RequestContext,
} from "../../core/context.ts";
import {
  ContextBase,
  type ContextServices,
  type RequestNotifier,
} from "../../core/context_base.ts";
import type { ElicitResult, ElicitSchema } from "../../core/elicitation_forms.ts";
import type { LoggingLevel } from "../../core/logging.ts";
import type { RequestMeta } from "./meta.ts";

/** An input request as the `InputRequiredResult` lists it. */
export interface InputRequest {
  /** `elicitation/create`, `sampling/createMessage` or `roots/list`. */
  readonly method: string;
  /** Its params. */
  readonly params: Record<string, unknown>;
}

/** The empty collections an untouched ledger shows: most runs ask nothing. */
const NO_ENTRIES: ReadonlyMap<string, never> = new Map<string, never>();
const NO_CAPABILITIES: ReadonlySet<string> = new Set();

/**
 * What one run of a handler asked and was given. Its collections are made
 * on the first ask, so a run that asks nothing (most calls) costs none.
 */
export class InputLedger {
  /** Answers known to this run: from the sealed state and the retry, by key. */
  readonly answers: ReadonlyMap<string, unknown>;
  /** An answer that did not have the shape its ask expects. */
  malformed: { key: string; reason: string } | undefined;
  /**
   * Set while a task runs the handler: an unanswered ask then waits for
   * `tasks/update` instead of ending the run (see src/eras/tasks/runner.ts).
   */
  suspend:
    | ((
      key: string,
      request: InputRequest,
      parse: (answer: unknown) => unknown,
    ) => Promise<unknown>)
    | undefined;
  /** Whether the task handle was returned: asks marked `beforeTask` then wait like any other. */
  detached = false;
  #asks = 0;
  #keys: Set<string> | undefined;
  #used: Map<string, unknown> | undefined;
  #pending: Map<string, InputRequest> | undefined;
  #missing: Set<string> | undefined;

  constructor(answers: ReadonlyMap<string, unknown>) {
    this.answers = answers;
  }

  /** Answers this run actually used (what the next state carries). */
  get used(): ReadonlyMap<string, unknown> {
    return this.#used ?? NO_ENTRIES;
  }

  /** Asks not answered yet, in the order made. */
  get pending(): ReadonlyMap<string, InputRequest> {
    return this.#pending ?? NO_ENTRIES;
  }

  /** Capabilities asks needed that the request did not declare, in the order asked. */
  get missing(): ReadonlySet<string> {
    return this.#missing ?? NO_CAPABILITIES;
  }

  /** Records that an ask used the answer given under `key`. */
  use(key: string, answer: unknown): void {
    (this.#used ??= new Map()).set(key, answer);
  }

  /** Records an ask the client has not answered yet. */
  ask(key: string, request: InputRequest): void {
    (this.#pending ??= new Map()).set(key, request);
  }

  /** Records a capability an ask needed that the request did not declare. */
  lack(capability: string): void {
    (this.#missing ??= new Set()).add(capability);
  }

  /**
   * The key of the next ask: the one given, or the method's short name and
   * position. Keys are unique per request: a second ask under a key would
   * get the first one's answer.
   */
  nextKey(method: string, given: string | undefined): string {
    this.#asks++;
    if (given !== undefined) {
      if (typeof given !== "string" || given.length === 0 || given.length > 128) {
        throw new TypeError("Invalid input key: must be a string of 1 to 128 characters");
      }
    }
    const key = given ?? `${method.split("/")[0]}-${this.#asks}`;
    const keys = this.#keys ??= new Set();
    if (keys.has(key)) {
      throw new TypeError(`Invalid input key: ${JSON.stringify(key)} is used by two asks`);
    }
    keys.add(key);
    return key;
  }
}

/** A client's answer to an ask, parsed by the ask; an answer that is not an object is refused. */
function parseAnswer<T>(ask: ClientAsk<T>, answer: unknown): T {
  if (!isRecord(answer)) throw new TypeError("the answer must be an object");
  return ask.parse(answer);
}

/** The context of one request in revision 2026-07-28. */
export class ModernContext extends ContextBase implements RequestContext {
  readonly client: ClientDescription;
  readonly ledger: InputLedger;
  readonly auth: AuthGrant | undefined;
  readonly #meta: RequestMeta;

  constructor(
    id: JsonRpcId,
    principal: string | undefined,
    meta: RequestMeta,
    request: InflightRequest,
    services: ContextServices,
    notify: RequestNotifier,
    ledger: InputLedger,
    auth: AuthGrant | undefined,
  ) {
    super(id, principal, meta.raw, request, services, notify);
    this.auth = auth;
    this.#meta = meta;
    this.ledger = ledger;
    this.client = meta.client;
  }

  protected minimumLevel(): LoggingLevel | undefined {
    // No `logLevel` on the request means no log messages at all.
    return this.#meta.logLevel;
  }

  protected copy(): ModernContext {
    return new ModernContext(
      this.requestId,
      this.principal,
      this.#meta,
      this.request,
      this.services,
      this.notifier,
      this.ledger,
      this.auth,
    );
  }

  #ask<T>(build: () => ClientAsk<T>, method: string, options?: ClientRequestOptions): Promise<T> {
    const ledger = this.ledger;
    let key: string;
    let ask: ClientAsk<T>;
    try {
      key = ledger.nextKey(method, options?.inputKey);
      ask = build();
    } catch (error) {
      if (error instanceof MissingCapabilityError) ledger.lack(error.capability);
      return Promise.reject(error);
    }
    if (ledger.answers.has(key)) {
      const answer = ledger.answers.get(key);
      ledger.use(key, answer);
      try {
        return Promise.resolve(parseAnswer(ask, answer));
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        ledger.malformed ??= { key, reason };
        return Promise.reject(new InputRequiredError(key));
      }
    }
    // Everything the client's model or user reads passes the redactor.
    const request = { method: ask.method, params: this.services.mask(ask.params) };
    if (ledger.suspend !== undefined && (options?.beforeTask !== true || ledger.detached)) {
      return ledger.suspend(key, request, (answer) => parseAnswer(ask, answer)) as Promise<T>;
    }
    ledger.ask(key, request);
    const stop = Promise.reject(new InputRequiredError(key));
    // Marked handled: a handler that never awaits the ask must not crash the process.
    stop.catch(() => {});
    return stop;
  }

  sample(request: SamplingRequest, options?: ClientRequestOptions): Promise<SamplingResult> {
    return this.#ask(
      () => samplingAsk(this.client.capabilities, request),
      "sampling/createMessage",
      options,
    );
  }

  elicit<const S extends ElicitSchema>(
    message: string,
    requestedSchema: S,
    options?: ClientRequestOptions,
  ): Promise<ElicitResult<S>> {
    return this.#ask(
      () =>
        elicitAsk(this.client.capabilities, this.client.protocolVersion, message, requestedSchema),
      "elicitation/create",
      options,
    );
  }

  async elicitUrl(
    message: string,
    url: string | ((elicitationId: string) => string),
    options: ElicitUrlOptions = {},
  ): Promise<UrlElicitation> {
    const { elicitationId, ...rest } = options;
    const request = elicitationId === undefined ? { url } : { url, elicitationId };
    let id = "";
    const action = await this.#ask(
      () => {
        // 2026-07-28 sends no elicitationId; the URL still carries it if built from one.
        const ask = urlElicitAsk(
          this.client.capabilities,
          this.client.protocolVersion,
          message,
          request,
          false,
        );
        id = ask.elicitationId;
        return ask;
      },
      "elicitation/create",
      rest,
    );
    // The client learns the outcome by retrying; there is nothing to complete.
    return { action, elicitationId: id, complete() {} };
  }

  roots(options?: ClientRequestOptions): Promise<Root[]> {
    return this.#ask(() => rootsAsk(this.client.capabilities), "roots/list", options);
  }

  closeStream(): void {
    // Revision 2026-07-28 has no resumable streams to hand a request over to.
  }
}
