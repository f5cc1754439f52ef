/**
 * One method table for both eras: each request goes to the modern front
 * door when its `_meta` names a protocol version, and to the legacy one
 * otherwise. Decided per request, so both eras share a stdio process or an
 * HTTP endpoint without either learning anything from the other.
 *
 * @module
 */

import type { MethodHandler, NotificationHandler } from "../dispatcher/dispatcher.ts";
import type { McpSession } from "../core/session.ts";
import { isModernRequest } from "../eras/modern/meta.ts";
import { methodNotFound, REMOVED_NOTIFICATIONS } from "../eras/methods/modern_names.ts";

/** The tables of one era. */
export interface EraTables {
  /** Requests by method. */
  readonly methods: ReadonlyMap<string, MethodHandler<McpSession>>;
  /** Notifications by method. */
  readonly notifications: ReadonlyMap<string, NotificationHandler<McpSession>>;
}

/** Merges the two eras' tables into the dispatcher's, routing each message by its `_meta`. */
export function routeEras(legacy: EraTables, modern: EraTables): {
  methods: Map<string, MethodHandler<McpSession>>;
  notifications: Map<string, NotificationHandler<McpSession>>;
} {
  const methods = new Map<string, MethodHandler<McpSession>>();
  for (const name of new Set([...legacy.methods.keys(), ...modern.methods.keys()])) {
    const old = legacy.methods.get(name);
    const current = modern.methods.get(name);
    methods.set(name, (params, context) => {
      const handler = isModernRequest(params) ? current : old;
      if (handler === undefined) throw methodNotFound(name);
      return handler(params, context);
    });
  }
  const notifications = new Map<string, NotificationHandler<McpSession>>();
  for (const name of new Set([...legacy.notifications.keys(), ...modern.notifications.keys()])) {
    const old = legacy.notifications.get(name);
    const current = REMOVED_NOTIFICATIONS.has(name) ? undefined : modern.notifications.get(name);
    notifications.set(name, (params, session) => {
      (isModernRequest(params) ? current : old)?.(params, session);
    });
  }
  return { methods, notifications };
}
