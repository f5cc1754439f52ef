/**
 * The modern front door (revision 2026-07-28): each request carries its own
 * version and capabilities in `_meta`, is served with no session, and gets
 * a result with `resultType`, the server's identity and, where the revision
 * asks for them, cache hints. The work itself is the request core's.
 *
 * @module
 */

import type { MethodHandler } from "../../dispatcher/dispatcher.ts";
import type { McpSession } from "../../core/session.ts";
import { readRequestMeta } from "../modern/meta.ts";
import { tasksCancel, tasksGet, tasksUpdate } from "../tasks/methods.ts";
import { callTool, complete, getPrompt, readResource } from "./modern_calls.ts";
import type { ModernDeps, ModernMethod } from "./modern_deps.ts";
import { listen } from "./modern_listen.ts";
import {
  discover,
  listPrompts,
  listResources,
  listResourceTemplates,
  listTools,
} from "./modern_reads.ts";
import { MODERN_METHOD_LIST, type ModernMethodName } from "./modern_names.ts";

export type { ModernDeps } from "./modern_deps.ts";
export {
  methodNotFound,
  MODERN_METHOD_NAMES,
  REMOVED_METHODS,
  REMOVED_NOTIFICATIONS,
} from "./modern_names.ts";

/** The modern method table: one function per method, each named (the names have their own file). */
const MODERN_METHODS: Readonly<Record<ModernMethodName, ModernMethod>> = {
  "server/discover": discover,
  "tools/list": listTools,
  "resources/list": listResources,
  "prompts/list": listPrompts,
  "resources/templates/list": listResourceTemplates,
  "tools/call": callTool,
  "resources/read": readResource,
  "prompts/get": getPrompt,
  "completion/complete": complete,
  "subscriptions/listen": listen,
  "tasks/get": tasksGet,
  "tasks/update": tasksUpdate,
  "tasks/cancel": tasksCancel,
};

/**
 * Builds the modern method table for one server: each row's function,
 * given `deps` and the `_meta` read from the request.
 */
export function modernMethods(deps: ModernDeps): Map<string, MethodHandler<McpSession>> {
  const methods = new Map<string, MethodHandler<McpSession>>();
  for (const name of MODERN_METHOD_LIST) {
    const method = MODERN_METHODS[name];
    methods.set(name, (params, request) => method(deps, params, request, readRequestMeta(params)));
  }
  return methods;
}
