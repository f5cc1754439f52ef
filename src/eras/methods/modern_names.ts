/**
 * The names revision 2026-07-28 knows, apart from the handlers that serve
 * them: routing and the HTTP endpoint need the names at start, while the
 * modern front door itself loads on the first modern request.
 *
 * @module
 */

import { ErrorCode, quote, RpcError } from "../../jsonrpc/errors.ts";

/** The methods revision 2026-07-28 serves, the tasks extension's last. */
export const MODERN_METHOD_LIST = [
  "server/discover",
  "tools/list",
  "resources/list",
  "prompts/list",
  "resources/templates/list",
  "tools/call",
  "resources/read",
  "prompts/get",
  "completion/complete",
  "subscriptions/listen",
  // The tasks extension (there is no tasks/result or tasks/list).
  "tasks/get",
  "tasks/update",
  "tasks/cancel",
] as const;

/** One of the methods revision 2026-07-28 serves. */
export type ModernMethodName = typeof MODERN_METHOD_LIST[number];

/** The names of the methods revision 2026-07-28 serves: any other is "not implemented". */
export const MODERN_METHOD_NAMES: ReadonlySet<string> = new Set(MODERN_METHOD_LIST);

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
