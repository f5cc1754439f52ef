/**
 * The items a JSON-RPC message acts on, for scope checks before dispatch:
 * the tool of a `tools/call`, the prompt of a `prompts/get`, the resource
 * of a read or subscription (resources/subscribe, or the resources a
 * 2026-07-28 `subscriptions/listen` follows), the reference of a completion,
 * the skill of a `skills/get` or `resources/directory/read` (SEP-2640).
 *
 * @module
 */

import type { ScopedKind } from "./scopes.ts";

/** One item a message names. */
export interface NamedItem {
  /** The kind of item. */
  readonly kind: ScopedKind;
  /** Its name, or URI for a resource. */
  readonly name: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The item one message names, if any (an unnamed or malformed one is the dispatcher's to refuse). */
function itemOf(message: unknown, items: NamedItem[]): NamedItem | undefined {
  if (!isRecord(message) || !isRecord(message.params)) return undefined;
  const { method, params } = message;
  if (method === "subscriptions/listen") {
    listenedResources(params.notifications, items);
    return undefined;
  }
  switch (method) {
    case "tools/call":
      return typeof params.name === "string" ? { kind: "tool", name: params.name } : undefined;
    case "prompts/get":
      return typeof params.name === "string" ? { kind: "prompt", name: params.name } : undefined;
    case "resources/read":
    case "resources/subscribe":
    case "resources/unsubscribe":
    case "skills/get":
      return typeof params.uri === "string" ? { kind: "resource", name: params.uri } : undefined;
    case "resources/directory/read":
      return directoryItem(params.uri, items);
    case "completion/complete":
      return completionItem(params.ref);
  }
  return undefined;
}

/**
 * A skill directory read (SEP-2640) needs the scopes of the directory and of
 * the SKILL.md it would hold: a rule over `skill://acme/*` covers the skill's
 * root directory `skill://acme` that way. The SKILL.md is added to `items`.
 */
function directoryItem(uri: unknown, items: NamedItem[]): NamedItem | undefined {
  if (typeof uri !== "string") return undefined;
  items.push({ kind: "resource", name: `${uri}/SKILL.md` });
  return { kind: "resource", name: uri };
}

/** The resources a listen stream asks to follow, added to `items`. */
function listenedResources(notifications: unknown, items: NamedItem[]): void {
  if (!isRecord(notifications) || !Array.isArray(notifications.resourceSubscriptions)) return;
  for (const uri of notifications.resourceSubscriptions) {
    if (typeof uri === "string") items.push({ kind: "resource", name: uri });
  }
}

function completionItem(ref: unknown): NamedItem | undefined {
  if (!isRecord(ref)) return undefined;
  if (ref.type === "ref/prompt" && typeof ref.name === "string") {
    return { kind: "prompt", name: ref.name };
  }
  if (ref.type === "ref/resource" && typeof ref.uri === "string") {
    return { kind: "resource", name: ref.uri };
  }
  return undefined;
}

/** The items a message or batch names. */
export function itemsOf(value: unknown): readonly NamedItem[] {
  const items: NamedItem[] = [];
  for (const message of Array.isArray(value) ? value : [value]) {
    const item = itemOf(message, items);
    if (item !== undefined) items.push(item);
  }
  return items;
}
