/**
 * The server's registries: tools, resources, resource templates and prompts,
 * each keyed by its name or URI, with the handle registration returns
 * (update, disable, enable, remove) and one change signal per list.
 *
 * @module
 */

import type { ListName } from "../store/change_bus.ts";
import { type PromptDefinition, type RegisteredPrompt, registerPrompt } from "./prompts.ts";
import { type RegisteredResource, registerResource, type ResourceDefinition } from "./resources.ts";
import {
  type RegisteredTemplate,
  registerTemplate,
  type ResourceTemplateDefinition,
} from "./templates.ts";
import { type RegisteredTool, registerTool, type ToolDefinition } from "./tools.ts";

/** Which registry an item lives in. */
export type ItemType = "tool" | "resource" | "resourceTemplate" | "prompt";

/** The list a change shows up in (`notifications/<list>/list_changed`). */

/**
 * What registering an item returns: a way to change it later. Every change
 * sends the list-changed notification to the clients that asked for it.
 *
 * @example Taking a tool offline for maintenance
 * ```ts
 * import { createServer } from "@warden/mcp";
 * const server = createServer({ name: "desk", version: "1.0.0" });
 * const ping = server.tool({
 *   name: "ping",
 *   description: "Answers pong",
 *   inputSchema: { type: "object" },
 *   handler: () => "pong",
 * });
 * ping.disable();
 * ping.enable();
 * ping.update({ description: "Answers pong, quickly" });
 * ping.remove();
 * ```
 */
export interface ItemHandle<D> {
  /** The item's name (tools, prompts), URI (resources) or URI template. */
  readonly key: string;
  /** Whether clients can see and use it. */
  readonly enabled: boolean;
  /** Whether it is still registered. */
  readonly registered: boolean;
  /**
   * Replaces fields of the definition; the result is validated like a new
   * registration and the key cannot change.
   *
   * @throws {TypeError} When the item was removed, the key changes or the result is invalid.
   */
  update(changes: Partial<D>): void;
  /** Hides the item from lists and refuses calls to it, as if it did not exist. */
  disable(): void;
  /** Undoes {@linkcode ItemHandle.disable}. */
  enable(): void;
  /** Removes the item; returns false when it was already gone. */
  remove(): boolean;
}

interface Entry<R> {
  registered: R;
  enabled: boolean;
}

/** One registry: definitions in, validated registrations out. */
export class ItemTable<D, R> {
  readonly #entries = new Map<string, Entry<R>>();
  readonly #kind: string;
  readonly #keyOf: (definition: D) => unknown;
  readonly #register: (definition: D) => R;
  readonly #definitionOf: (registered: R) => D;
  readonly #changed: () => void;

  constructor(
    kind: string,
    keyOf: (definition: D) => unknown,
    register: (definition: D) => R,
    definitionOf: (registered: R) => D,
    changed: () => void,
  ) {
    this.#kind = kind;
    this.#keyOf = keyOf;
    this.#register = register;
    this.#definitionOf = definitionOf;
    this.#changed = changed;
  }

  /** How many items are enabled. */
  get size(): number {
    let count = 0;
    for (const entry of this.#entries.values()) if (entry.enabled) count++;
    return count;
  }

  /** The enabled item under `key`. */
  get(key: string): R | undefined {
    const entry = this.#entries.get(key);
    return entry?.enabled === true ? entry.registered : undefined;
  }

  /** Whether an enabled item is registered under `key`. */
  has(key: string): boolean {
    return this.#entries.get(key)?.enabled === true;
  }

  /** Every enabled item, with its key, in registration order. */
  *entries(): IterableIterator<[string, R]> {
    for (const [key, entry] of this.#entries) if (entry.enabled) yield [key, entry.registered];
  }

  /** Every enabled item, in registration order. */
  *values(): IterableIterator<R> {
    for (const entry of this.#entries.values()) if (entry.enabled) yield entry.registered;
  }

  /**
   * Registers `definition` and returns its handle.
   *
   * @throws {TypeError} When it is invalid or its key is taken.
   */
  add(definition: D): ItemHandle<D> {
    const registered = this.#register(definition);
    const key = this.#keyOf(definition) as string;
    if (this.#entries.has(key)) {
      throw new TypeError(`Cannot register ${this.#kind} '${key}': already registered`);
    }
    const entry: Entry<R> = { registered, enabled: true };
    this.#entries.set(key, entry);
    this.#changed();
    return this.#handle(key, entry);
  }

  /** Removes the item under `key`; false when there is none. */
  remove(key: string): boolean {
    const removed = this.#entries.delete(key);
    if (removed) this.#changed();
    return removed;
  }

  #handle(key: string, entry: Entry<R>): ItemHandle<D> {
    const live = (): boolean => this.#entries.get(key) === entry;
    const setEnabled = (enabled: boolean): void => {
      if (!live()) throw new TypeError(`Cannot change ${this.#kind} '${key}': it was removed`);
      if (entry.enabled === enabled) return;
      entry.enabled = enabled;
      this.#changed();
    };
    return {
      key,
      get enabled() {
        return entry.enabled && live();
      },
      get registered() {
        return live();
      },
      update: (changes) => {
        if (!live()) throw new TypeError(`Cannot update ${this.#kind} '${key}': it was removed`);
        const next = { ...this.#definitionOf(entry.registered), ...changes };
        if (this.#keyOf(next) !== key) {
          throw new TypeError(`Cannot update ${this.#kind} '${key}': its key cannot change`);
        }
        entry.registered = this.#register(next);
        this.#changed();
      },
      disable: () => setEnabled(false),
      enable: () => setEnabled(true),
      remove: () => live() && this.remove(key),
    };
  }
}

/** The four registries of one server. */
export interface Registry {
  /** Tools by name. */
  readonly tools: ItemTable<ToolDefinition, RegisteredTool>;
  /** Resources by URI. */
  readonly resources: ItemTable<ResourceDefinition, RegisteredResource>;
  /** Resource templates by URI template. */
  readonly templates: ItemTable<ResourceTemplateDefinition, RegisteredTemplate>;
  /** Prompts by name. */
  readonly prompts: ItemTable<PromptDefinition, RegisteredPrompt>;
}

/** Builds empty registries; `changed` hears which list changed. */
export function createRegistry(changed: (list: ListName) => void): Registry {
  return {
    tools: new ItemTable<ToolDefinition, RegisteredTool>(
      "tool",
      (d) => d?.name,
      registerTool,
      (r) => r.definition,
      () => changed("tools"),
    ),
    resources: new ItemTable<ResourceDefinition, RegisteredResource>(
      "resource",
      (d) => d?.uri,
      registerResource,
      (r) => r.definition,
      () => changed("resources"),
    ),
    templates: new ItemTable<ResourceTemplateDefinition, RegisteredTemplate>(
      "resource template",
      (d) => d?.uriTemplate,
      registerTemplate,
      (r) => r.definition,
      () => changed("resources"),
    ),
    prompts: new ItemTable<PromptDefinition, RegisteredPrompt>(
      "prompt",
      (d) => d?.name,
      registerPrompt,
      (r) => r.definition,
      () => changed("prompts"),
    ),
  };
}
