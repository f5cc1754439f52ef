/**
 * The modern methods that only read what the server offers:
 * `server/discover` and the four lists. Each result carries the cache
 * hints the revision asks for.
 *
 * @module
 */

import type { MethodContext } from "../../dispatcher/dispatcher.ts";
import type { JsonRpcParams } from "../../jsonrpc/messages.ts";
import type { ListName } from "../../store/change_bus.ts";
import type { McpSession } from "../../core/session.ts";
import { listHints } from "../modern/caching.ts";
import { discoverResult } from "../modern/discover.ts";
import { modernResult } from "../modern/exchange.ts";
import type { RequestMeta } from "../modern/meta.ts";
import { TASKS_EXTENSION } from "../tasks/methods.ts";
import { type ModernDeps, variesByCaller } from "./modern_deps.ts";

/** `server/discover`: revisions, capabilities (the tasks extension included), instructions. */
export function discover(deps: ModernDeps): Record<string, unknown> {
  return modernResult(
    deps.serverInfo,
    discoverResult({ ...deps, extensions: { [TASKS_EXTENSION]: {} } }),
    { ttlMs: deps.listTtlMs, cacheScope: "public" },
  );
}

/** `tools/list`. */
export function listTools(
  deps: ModernDeps,
  params: JsonRpcParams,
  request: MethodContext<McpSession>,
  meta: RequestMeta,
): Record<string, unknown> {
  return listed(deps, "tools", params, request, meta.clientCapabilities);
}

/** `resources/list`. */
export function listResources(
  deps: ModernDeps,
  params: JsonRpcParams,
  request: MethodContext<McpSession>,
): Record<string, unknown> {
  return listed(deps, "resources", params, request);
}

/** `prompts/list`. */
export function listPrompts(
  deps: ModernDeps,
  params: JsonRpcParams,
  request: MethodContext<McpSession>,
): Record<string, unknown> {
  return listed(deps, "prompts", params, request);
}

/** `resources/templates/list`. */
export function listResourceTemplates(
  deps: ModernDeps,
  params: JsonRpcParams,
  request: MethodContext<McpSession>,
): Record<string, unknown> {
  return listed(deps, "resourceTemplates", params, request);
}

/** One page of a list as the caller may see it, with its cache hints. */
function listed(
  deps: ModernDeps,
  list: ListName | "resourceTemplates",
  params: JsonRpcParams,
  request: MethodContext<McpSession>,
  capabilities?: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const { principal } = request.session;
  const auth = request.session.grantOf(request.request);
  const { result, caches } = deps.core.list(
    list,
    params,
    principal,
    true,
    capabilities,
    auth?.scopes,
  );
  return modernResult(
    deps.serverInfo,
    result,
    listHints(deps.listTtlMs, caches, variesByCaller(deps)),
  );
}
