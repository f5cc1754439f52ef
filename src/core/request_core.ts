/**
 * The era-neutral request core: the registries, the guardrail pipeline and
 * what each feature does once a front door has parsed a request. Both eras
 * call into it; it knows neither sessions nor per-request `_meta`.
 *
 * @module
 */

import { ErrorCode, invalidParamsError, quote, RpcError } from "../jsonrpc/errors.ts";
import type { JsonRpcParams } from "../jsonrpc/messages.ts";
import type { CallContext, CallKind, GuardedCall } from "../call/context.ts";
import { type CallNext, type CallOutcome, isPending, type MaybeOutcome } from "../call/outcome.ts";
import type { Guardrail } from "../call/guardrail.ts";
import type { Pipeline } from "../call/compose.ts";
import type { Mask } from "../call/mask.ts";
import { type ParsedCall, withCanonicalUri } from "./parse_call.ts";
import { parseCompletionRequest } from "./completion.ts";
import { completionStep } from "./completion_step.ts";
import type { ItemCache } from "./cache.ts";
import type { RequestContext } from "./context.ts";
import { paginate } from "./pagination.ts";
import { PrincipalCounts, quotaOutcome } from "./quotas.ts";
import { getPrompt } from "./prompts.ts";
import type { Registry } from "./registry.ts";
import type { ListName } from "../store/change_bus.ts";
import { notFound } from "./outcome.ts";
import { readResource, type ResourceContext } from "./resources.ts";
import { readTemplate } from "./templates.ts";
import { type RegisteredTool, runTool } from "./tools.ts";

/** A handler context that can also serve a resource read of the same request. */
export interface ServingContext extends RequestContext {
  /** The same request's context for reading `uri`. */
  forResource(uri: string): ResourceContext;
}

export { notFound } from "./outcome.ts";

/** What the core is built from. */
export interface RequestCoreOptions {
  /** The registries. */
  readonly registry: Registry;
  /** The guardrails, in pipeline order. */
  readonly guardrails: readonly Guardrail[];
  /** The composed pipeline. */
  readonly pipeline: Pipeline;
  /** Items per page of the list methods; undefined for no paging. */
  readonly pageSize: number | undefined;
  /** Diagnostics. */
  readonly log: (message: string) => void;
  /**
   * The most guarded calls one principal may have in flight.
   * @default {64}
   */
  readonly inflightQuota?: number;
  /** The server's masker, which every listing passes; absent when nothing masks. */
  readonly mask?: Mask | undefined;
  /**
   * Whether a caller granted `scopes` (by an OAuth access token) may see an
   * item; absent when the server checks no scopes.
   */
  readonly scopeVisible?:
    | ((kind: CallKind, name: string, scopes: readonly string[]) => boolean)
    | undefined;
}

/** The request core of one server. */
export class RequestCore {
  /** The registries. */
  readonly registry: Registry;
  /** The guardrails, in pipeline order. */
  readonly guardrails: readonly Guardrail[];
  /**
   * The extensions the server offers now, by identifier, with their
   * settings: declared in `capabilities.extensions` in both eras. The
   * extension rooms above fill it while they are in use (skills, apps).
   */
  readonly extensions: Map<string, Record<string, unknown>> = new Map();
  /**
   * Which tools a client may see and call, by the capabilities it declared;
   * undefined lets every client see every tool. The apps extension sets it
   * while app-only tools are registered: a client that cannot host an app
   * has no use for them, and would hand them to its model.
   */
  toolGate:
    | ((tool: RegisteredTool, capabilities: Readonly<Record<string, unknown>>) => boolean)
    | undefined;
  readonly #pipeline: Pipeline;
  readonly #pageSize: number | undefined;
  readonly #log: (message: string) => void;
  /** Guarded calls in flight, by principal. */
  readonly #inflight: PrincipalCounts;
  /** The last step of a call refused for its principal's calls in flight (made once). */
  readonly #busy: CallNext;
  readonly #scopeVisible: RequestCoreOptions["scopeVisible"];
  readonly #mask: Mask | undefined;

  constructor(options: RequestCoreOptions) {
    this.#scopeVisible = options.scopeVisible;
    this.#mask = options.mask;
    this.registry = options.registry;
    this.guardrails = options.guardrails;
    this.#pipeline = options.pipeline;
    this.#pageSize = options.pageSize;
    this.#log = options.log;
    this.#inflight = new PrincipalCounts(options.inflightQuota ?? 64);
    const busy = quotaOutcome("inflightCalls", this.#inflight.limit);
    this.#busy = () => busy;
  }

  /** How many guarded calls `principal` has in flight. */
  inflight(principal: string | undefined): number {
    return this.#inflight.held(principal);
  }

  /** Whether every guardrail lets `principal` see an item. */
  visible(kind: CallKind, name: string, principal: string | undefined): boolean {
    for (const guardrail of this.guardrails) {
      if (guardrail.visible !== undefined && !guardrail.visible({ kind, name }, principal)) {
        return false;
      }
    }
    return true;
  }

  /** Whether `principal` may see an item: every guardrail lets it, and its token's `scopes` cover it. */
  shown(kind: CallKind, name: string, principal?: string, scopes?: readonly string[]): boolean {
    return this.visible(kind, name, principal) && this.scopesAllow(kind, name, scopes);
  }

  /** Whether a caller granted `scopes` may use the item (no token: not scope-checked here). */
  scopesAllow(kind: CallKind, name: string, scopes: readonly string[] | undefined): boolean {
    return scopes === undefined || this.#scopeVisible?.(kind, name, scopes) !== false;
  }

  /** Whether what a list shows can differ from one caller to the next. */
  get listsVaryByCaller(): boolean {
    return this.#scopeVisible !== undefined || this.toolGate !== undefined ||
      this.guardrails.some((guardrail) => guardrail.visible !== undefined);
  }

  /** The tool `name`, if a client with `capabilities` may use it. */
  usableTool(
    name: string,
    capabilities: Readonly<Record<string, unknown>>,
  ): RegisteredTool | undefined {
    const tool = this.registry.tools.get(name);
    if (tool === undefined) return undefined;
    const gate = this.toolGate;
    return gate === undefined || gate(tool, capabilities) ? tool : undefined;
  }

  /**
   * One page of a list method's result, filtered by visibility, and the
   * cache hints of the items on it. `byName` sorts the items, so that every
   * instance and every registration order gives the same list (revision
   * 2026-07-28 asks for a deterministic order).
   */
  list(
    list: ListName | "resourceTemplates",
    params: JsonRpcParams,
    principal: string | undefined,
    byName: boolean,
    capabilities: Readonly<Record<string, unknown>> = {},
    scopes?: readonly string[],
  ): { result: Record<string, unknown>; caches: (ItemCache | undefined)[] } {
    const { registry } = this;
    type Listed = { listing: Record<string, unknown>; definition: { cache?: ItemCache } };
    const [kind, items]: [CallKind, Iterable<[string, Listed]>] = list === "tools"
      ? ["tool", registry.tools.entries()]
      : list === "prompts"
      ? ["prompt", registry.prompts.entries()]
      : list === "resources"
      ? ["resource", registry.resources.entries()]
      : ["resource", registry.templates.entries()];
    const gate = list === "tools" ? this.toolGate : undefined;
    const shown: [string, Listed][] = [];
    for (const [name, item] of items) {
      if (gate !== undefined && !gate(item as RegisteredTool, capabilities)) continue;
      if (!this.shown(kind, name, principal, scopes)) continue;
      shown.push([name, item]);
    }
    if (byName) shown.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const { page, nextCursor } = paginate(list, shown, params.cursor, this.#pageSize);
    const listings = this.#maskListings(page.map(([, item]) => item.listing));
    return {
      result: nextCursor === undefined ? { [list]: listings } : { [list]: listings, nextCursor },
      caches: page.map(([, item]) => item.definition.cache),
    };
  }

  /**
   * Listings through the server's masker: a description or title is sent as
   * written, so a secret in one (a skill's frontmatter, a view's text) would
   * leave unmasked. A mask hands back what needs no masking, so this copies nothing then.
   */
  #maskListings(listings: Record<string, unknown>[]): unknown[] {
    const mask = this.#mask;
    if (mask === undefined) return listings;
    const masked = mask(listings);
    return Array.isArray(masked) ? masked : listings;
  }

  /** The capabilities to advertise: only what is registered, plus logging and the extensions in use. */
  capabilities(): Record<string, unknown> {
    const { tools, resources, templates, prompts } = this.registry;
    const caps: Record<string, unknown> = { logging: {} };
    if (tools.size > 0) caps.tools = { listChanged: true };
    if (resources.size > 0 || templates.size > 0) {
      caps.resources = { subscribe: true, listChanged: true };
    }
    if (prompts.size > 0) caps.prompts = { listChanged: true };
    const hasCompleter =
      [...prompts.values()].some((p) =>
        (p.definition.arguments ?? []).some((a) => a.complete !== undefined)
      ) || [...templates.values()].some((t) => t.definition.complete !== undefined);
    if (hasCompleter) caps.completions = {};
    if (this.extensions.size > 0) caps.extensions = Object.fromEntries(this.extensions);
    return caps;
  }

  /**
   * Runs a parsed call through the pipeline with `step` as its last step.
   * A malformed call still crosses the pipeline (the audit records it) and
   * is refused where the work would be done; so is a call whose principal
   * has its quota of calls in flight. Returns the outcome itself when every
   * step answered synchronously, else a promise of it. Never throws, never
   * rejects; the call's place in its principal's quota is given back exactly
   * once, when the outcome is known.
   */
  guard(parsed: ParsedCall, step: CallNext): MaybeOutcome {
    const { problem } = parsed;
    const principal = parsed.call.context.principal;
    // Taken before the pipeline, so a refusal still crosses it (access, audit) like any other.
    const counted = this.#inflight.take(principal);
    const core: CallNext = !counted
      ? this.#busy
      : problem === undefined
      ? step
      : () => ({ status: "invalid", error: problem });
    let outcome: MaybeOutcome;
    try {
      outcome = this.#pipeline(parsed.call, core);
    } catch (error) {
      if (counted) this.#inflight.release(principal);
      return this.#pipelineFailed(parsed, error);
    }
    if (!isPending(outcome)) {
      if (counted) this.#inflight.release(principal);
      return outcome;
    }
    return outcome.then(
      (settled) => {
        if (counted) this.#inflight.release(principal);
        return settled;
      },
      (error: unknown) => {
        if (counted) this.#inflight.release(principal);
        return this.#pipelineFailed(parsed, error);
      },
    );
  }

  /** A guardrail that throws is a bug in it; the client gets -32603, stderr the stack. */
  #pipelineFailed(parsed: ParsedCall, error: unknown): CallOutcome {
    const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
    this.#log(
      `warden: the call pipeline failed on ${parsed.call.method} ${
        quote(parsed.call.name, 80, parsed.call.context.mask)
      }: ${detail}`,
    );
    return {
      status: "internal_error",
      error: new RpcError(ErrorCode.InternalError, "Internal error"),
    };
  }

  /** The last step of a tools/call: find the tool (after the guardrails) and run it. */
  callTool(context: RequestContext): CallNext {
    return (call) => {
      const tool = this.usableTool(call.name, context.client.capabilities);
      if (tool === undefined) return notFound("tool", call.name, call.context.mask);
      return runTool(tool, call.arguments, context, this.#log);
    };
  }

  /** The last step of a resources/read: a resource by URI, else the first matching template. */
  readResource(context: ServingContext): CallNext {
    return (call) => {
      const uri = call.name;
      const resourceContext = context.forResource(uri);
      const resource = this.registry.resources.get(uri);
      if (resource !== undefined) return readResource(resource, resourceContext, this.#log);
      for (const template of this.registry.templates.values()) {
        const variables = template.template.match(uri);
        if (variables !== undefined) {
          return readTemplate(template, variables, resourceContext, this.#log);
        }
      }
      return Promise.resolve(notFound("resource", uri, call.context.mask));
    };
  }

  /** The last step of a prompts/get. */
  getPrompt(context: RequestContext): CallNext {
    return (call) => {
      const prompt = this.registry.prompts.get(call.name);
      if (prompt === undefined) {
        return Promise.resolve(notFound("prompt", call.name, call.context.mask));
      }
      return getPrompt(prompt, call.arguments, context, this.#log);
    };
  }

  /** The cache hints of what `uri` reads: its resource's, else its first matching template's. */
  readCache(uri: string): ItemCache | undefined {
    const resource = this.registry.resources.get(uri);
    if (resource !== undefined) return resource.definition.cache;
    for (const template of this.registry.templates.values()) {
      if (template.template.match(uri) !== undefined) return template.definition.cache;
    }
    return undefined;
  }

  /** Whether a resource or a template matching `uri` exists. */
  resourceExists(uri: string): boolean {
    if (this.registry.resources.has(uri)) return true;
    for (const template of this.registry.templates.values()) {
      if (template.template.match(uri) !== undefined) return true;
    }
    return false;
  }

  /** The last step of a subscription to a resource: it must exist. */
  subscribe(): CallNext {
    return (call) =>
      Promise.resolve(
        this.resourceExists(call.name)
          ? { status: "ok", result: {} }
          : notFound("resource", call.name, call.context.mask),
      );
  }

  /**
   * Parses a completion/complete request into a guarded call on the prompt
   * or resource template it names (so access rules, limits and the audit
   * apply to it as to any use of that item).
   */
  parseCompletion(
    params: JsonRpcParams,
    context: CallContext,
  ): ParsedCall & { readonly step: CallNext } {
    let request: ReturnType<typeof parseCompletionRequest>;
    try {
      request = parseCompletionRequest(params);
    } catch (error) {
      const problem = error instanceof RpcError ? error : invalidParamsError(String(error));
      const call: GuardedCall = {
        kind: "prompt",
        method: "completion/complete",
        name: "",
        arguments: {},
        context,
      };
      return { call, problem, step: () => Promise.resolve({ status: "invalid", error: problem }) };
    }
    const isPrompt = request.ref.type === "ref/prompt";
    const given: GuardedCall = {
      kind: isPrompt ? "prompt" : "resource",
      method: "completion/complete",
      name: request.ref.type === "ref/prompt" ? request.ref.name : request.ref.uri,
      arguments: { [request.argument.name]: request.argument.value },
      context,
    };
    // A template is named by its URI template, canonical like any resource URI.
    const { call, problem } = isPrompt
      ? { call: given, problem: undefined }
      : withCanonicalUri(given, given.name, true);
    if (problem !== undefined) {
      return { call, problem, step: () => Promise.resolve({ status: "invalid", error: problem }) };
    }
    const step = completionStep(
      this.registry,
      request,
      isPrompt,
      call.name,
      context.mask,
      this.#log,
    );
    return { call, problem: undefined, step };
  }
}
