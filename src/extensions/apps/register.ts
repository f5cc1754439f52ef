/**
 * `server.app()`: registers an MCP Apps view and its linked tools as one
 * unit (all or nothing), then declares the extension.
 *
 * @module
 */

import type { ItemHandle } from "../../core/registry.ts";
import type { RequestCore } from "../../core/request_core.ts";
import type { ResourceDefinition } from "../../core/resources.ts";
import { type AppDefinition, appParts, appsInUse } from "./app.ts";

/**
 * Registers the view and its tools; on any failure nothing stays registered.
 *
 * @throws {TypeError} A bad definition, or a URI or tool name already taken.
 */
export function registerApp(core: RequestCore, app: AppDefinition): ItemHandle<ResourceDefinition> {
  const { resource, tools } = appParts(app);
  const { registry } = core;
  const handle = registry.resources.add(resource);
  const added: string[] = [];
  try {
    for (const tool of tools) {
      registry.tools.add(tool);
      added.push(tool.name);
    }
  } catch (error) {
    for (const name of added) registry.tools.remove(name);
    handle.remove();
    throw error;
  }
  appsInUse(core);
  return handle;
}
