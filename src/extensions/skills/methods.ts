/**
 * The skills extension's methods in both eras: `skills/list`, `skills/get`
 * and `resources/directory/read`. A server with no skill answers them as
 * unknown methods (the extension is off). `skills/get` and directory reads
 * name one resource, so they cross the guardrail pipeline as a use of it
 * (the access policy can refuse, the audit records); the list shows only
 * the skills whose SKILL.md the caller may see.
 *
 * @module
 */

import type { MethodContext, MethodHandler } from "../../dispatcher/dispatcher.ts";
import { ErrorCode, quote, RpcError } from "../../jsonrpc/errors.ts";
import { isRecord, type JsonRpcParams } from "../../jsonrpc/messages.ts";
import type { CallNext, CallOutcome } from "../../call/outcome.ts";
import type { CallFacts } from "../../core/call_facts.ts";
import type { ContextServices } from "../../core/context_base.ts";
import type { Implementation } from "../../core/lifecycle.ts";
import { parseCall } from "../../core/parse_call.ts";
import type { RequestCore } from "../../core/request_core.ts";
import type { McpSession } from "../../core/session.ts";
import { createRequestContext, legacyFacts } from "../../eras/legacy/context.ts";
import { listHints, readHints } from "../../eras/modern/caching.ts";
import { modernError, modernFacts, modernResult } from "../../eras/modern/exchange.ts";
import { readRequestMeta } from "../../eras/modern/meta.ts";
import type { SkillCatalog } from "./catalog.ts";
import { SKILLS_METHOD_LIST, type SkillsMethodName } from "./method_names.ts";
import { SKILL_FILE, skillUriPath } from "./names.ts";

/** What the skills methods need from the server. */
export interface SkillsDeps {
  /** The request core (guardrails, visibility). */
  readonly core: RequestCore;
  /** The published skills. */
  readonly catalog: SkillCatalog;
  /** The server's masker. */
  readonly services: ContextServices;
  /** The server's identity, in modern results. */
  readonly serverInfo: Readonly<Implementation>;
  /** Freshness of list results (modern), in ms. */
  readonly listTtlMs: number;
  /** Freshness of read results (modern), in ms. */
  readonly readTtlMs: number;
  /** Whether results differ by authenticated caller. */
  readonly callerScoped: boolean;
}

type Handler = MethodHandler<McpSession>;
type Era = "legacy" | "modern";

type SkillsMethod = (
  deps: SkillsDeps,
  era: Era,
  params: JsonRpcParams,
  request: MethodContext<McpSession>,
) => Record<string, unknown> | Promise<Record<string, unknown>>;

/** The extension's methods, one function each, served in both eras. */
const SKILLS_METHODS: Readonly<Record<SkillsMethodName, SkillsMethod>> = {
  "skills/list": listSkills,
  "skills/get": getSkill,
  "resources/directory/read": readDirectory,
};

export { SKILLS_METHOD_NAMES } from "./method_names.ts";

/** The methods, one table per era. */
export function skillsMethods(deps: SkillsDeps): Record<Era, Map<string, Handler>> {
  const tables: Record<Era, Map<string, Handler>> = { legacy: new Map(), modern: new Map() };
  for (const era of ["legacy", "modern"] as const) {
    for (const name of SKILLS_METHOD_LIST) {
      const method = SKILLS_METHODS[name];
      tables[era].set(name, (params, request) => method(deps, era, params, request));
    }
  }
  return tables;
}

/** The extension is off while no skill is registered: its methods do not exist. */
function requireSkills(deps: SkillsDeps, method: string): void {
  if (deps.catalog.size === 0) {
    throw new RpcError(ErrorCode.MethodNotFound, `Method not found: ${quote(method)}`);
  }
}

function variesByCaller(deps: SkillsDeps): boolean {
  return deps.callerScoped || deps.core.listsVaryByCaller;
}

/** `skills/list`: one page of the skills the caller may see. */
function listSkills(
  deps: SkillsDeps,
  era: Era,
  params: JsonRpcParams,
  request: MethodContext<McpSession>,
): Record<string, unknown> {
  requireSkills(deps, "skills/list");
  if (era === "modern") readRequestMeta(params);
  // The entries quote each SKILL.md's frontmatter, which the masker hides when the file is read.
  const { session } = request;
  const scopes = session.grantOf(request.request)?.scopes;
  const result = maskedEntries(deps, deps.catalog.list(params, session.principal, scopes));
  if (era === "legacy") return result;
  return modernResult(deps.serverInfo, result, listHints(deps.listTtlMs, [], variesByCaller(deps)));
}

/** The facts guardrails see, in either era. */
function factsOf(
  deps: SkillsDeps,
  era: Era,
  params: JsonRpcParams,
  request: MethodContext<McpSession>,
): CallFacts {
  if (era === "modern") {
    return modernFacts(request, readRequestMeta(params), deps.services.callMask, false);
  }
  const context = createRequestContext(
    request.id,
    params,
    request.session,
    request.request,
    deps.services,
  );
  return legacyFacts(context, request, deps.services.callMask);
}

/** Runs a use of the resource `params.uri` through the pipeline with `step` last. */
async function guarded(
  deps: SkillsDeps,
  era: Era,
  method: string,
  params: JsonRpcParams,
  request: MethodContext<McpSession>,
  step: (uri: string) => CallOutcome,
): Promise<Record<string, unknown>> {
  requireSkills(deps, method);
  const parsed = parseCall("resource", method, params, factsOf(deps, era, params, request));
  // The URI as the client sent it, not as any lower layer may have normalised it: a traversal
  // spelling is refused here whatever it would resolve to.
  const sent = typeof params.uri === "string" ? params.uri : "";
  const last: CallNext = () => {
    try {
      return Promise.resolve(step(sent));
    } catch (error) {
      // A bad cursor: the same -32602 as any list's.
      if (!(error instanceof RpcError)) throw error;
      return Promise.resolve({ status: "invalid", error });
    }
  };
  const outcome = await deps.core.guard(parsed, last);
  if ("result" in outcome) return outcome.result;
  // "Not found" here is the extension's -32602 in both eras, with its own message.
  if (outcome.status === "not_found" || era === "legacy") throw outcome.error;
  throw modernError(outcome, "resource", parsed.call.name);
}

/** `result` through the server's masker: entries quote each SKILL.md's frontmatter, the file's own text. */
function maskedEntries(deps: SkillsDeps, result: Record<string, unknown>): Record<string, unknown> {
  const masked = deps.services.mask(result);
  return isRecord(masked) ? masked : result;
}

function invalid(message: string): CallOutcome {
  return { status: "not_found", error: new RpcError(ErrorCode.InvalidParams, message) };
}

/** `skills/get`: the entry of the skill whose SKILL.md is `params.uri`. */
async function getSkill(
  deps: SkillsDeps,
  era: Era,
  params: JsonRpcParams,
  request: MethodContext<McpSession>,
): Promise<Record<string, unknown>> {
  const { principal } = request.session;
  const scopes = request.session.grantOf(request.request)?.scopes;
  const result = await guarded(deps, era, "skills/get", params, request, (uri) => {
    const skill = skillUriPath(uri) === undefined || !uri.endsWith(`/${SKILL_FILE}`)
      ? undefined
      : deps.catalog.get(uri);
    // A skill the token's scopes do not cover is hidden as skills/list hides it (over HTTP the
    // endpoint has already answered 403 insufficient_scope).
    if (skill === undefined || !deps.core.shown("resource", uri, principal, scopes)) {
      return invalid(`No skill is served at ${quote(uri, 80, deps.services.mask)}`);
    }
    return {
      status: "ok",
      result: maskedEntries(deps, { skill: deps.catalog.entry(uri, principal, scopes) }),
    };
  });
  if (era === "legacy") return result;
  return modernResult(
    deps.serverInfo,
    result,
    readHints(deps.readTtlMs, undefined, variesByCaller(deps)),
  );
}

/** `resources/directory/read`: the direct children of a skill directory. */
async function readDirectory(
  deps: SkillsDeps,
  era: Era,
  params: JsonRpcParams,
  request: MethodContext<McpSession>,
): Promise<Record<string, unknown>> {
  const principal = request.session.principal;
  const scopes = request.session.grantOf(request.request)?.scopes;
  const result = await guarded(deps, era, "resources/directory/read", params, request, (uri) => {
    const listing = skillUriPath(uri) === undefined
      ? undefined
      : deps.catalog.directory(uri, params, principal, scopes);
    if (listing === undefined) {
      return invalid(`${quote(uri, 80, deps.services.mask)} is not a directory resource`);
    }
    return { status: "ok", result: maskedEntries(deps, listing) };
  });
  return era === "legacy" ? result : modernResult(deps.serverInfo, result);
}
