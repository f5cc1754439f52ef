/**
 * The modern front door (revision 2026-07-28): each request carries its own
 * version and capabilities in `_meta`, is served with no session, and gets
 * a result with `resultType`, the server's identity and, where the revision
 * asks for them, cache hints. The work itself is the request core's.
 *
 * @module
 */

import type { MethodHandler } from "../../dispatcher/dispatcher.ts";
import { ErrorCode, quote, RpcError } from "../../jsonrpc/errors.ts";
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

export type { ModernDeps } from "./modern_deps.ts";

/** The modern method table: one row per method, each a named function. */
const MODERN_METHODS: readonly (readonly [string, ModernMethod])[] = [
  ["server/discover", discover],
  ["tools/list", listTools],
  ["resources/list", listResources],
  ["prompts/list", listPrompts],
  ["resources/templates/list", listResourceTemplates],
  ["tools/call", callTool],
  ["resources/read", readResource],
  ["prompts/get", getPrompt],
  ["completion/complete", complete],
  ["subscriptions/listen", listen],
  // The tasks extension (there is no tasks/result or tasks/list).
  ["tasks/get", tasksGet],
  ["tasks/update", tasksUpdate],
  ["tasks/cancel", tasksCancel],
];

/** The names of the methods revision 2026-07-28 serves: any other is "not implemented". */
export const MODERN_METHOD_NAMES: ReadonlySet<string> = new Set(
  MODERN_METHODS.map(([name]) => name),
);

/**
 * Builds the modern method table for one server: each row's function,
 * given `deps` and the `_meta` read from the request.
 */
export function modernMethods(deps: ModernDeps): Map<string, MethodHandler<McpSession>> {
  const methods = new Map<string, MethodHandler<McpSession>>();
  for (const [name, method] of MODERN_METHODS) {
    methods.set(name, (params, request) => method(deps, params, request, readRequestMeta(params)));
  }
  return methods;
}

/** Methods of the legacy era that revision 2026-07-28 removed (404 over HTTP). */
export const REMOVED_METHODS: ReadonlySet<string> = new Set([
  "initialize",
  "ping",
  "logging/setLevel",
  "resources/subscribe",
  "resources/unsubscribe",
]);

/**
 * Notifications of the legacy era that revision 2026-07-28 removed: a
 * modern one is ignored (there is no session to initialize, and the
 * client's roots come with each request).
 */
export const REMOVED_NOTIFICATIONS: ReadonlySet<string> = new Set([
  "notifications/initialized",
  "notifications/roots/list_changed",
]);

/** The error for a method a modern request cannot use. */
export function methodNotFound(method: string): RpcError {
  return new RpcError(ErrorCode.MethodNotFound, `Method not found: ${quote(method)}`);
}
