/**
 * Resource templates: parameterised resources such as `orders://{id}`,
 * matched against the URI a client reads when no concrete resource has it.
 *
 * @module
 */

import { checkItemCache, type ItemCache } from "./cache.ts";
import type { CallOutcome } from "../call/outcome.ts";
import type { ContentAnnotations } from "./content.ts";
import type { Completer } from "./completion.ts";
import { checkIcons, type Icon } from "./lifecycle.ts";
import { checkCanonical, type ResourceContext, toContents } from "./resources.ts";
import { thrownOutcome } from "./outcome.ts";
import { compileUriTemplate, type UriTemplate } from "./uri_template.ts";

/**
 * A resource template. `read` receives the variables extracted from the URI.
 *
 * @example
 * ```ts
 * import { createServer } from "@warden/mcp";
 * const server = createServer({ name: "desk", version: "1.0.0" });
 * server.resourceTemplate({
 *   uriTemplate: "orders://{id}",
 *   name: "order",
 *   mimeType: "application/json",
 *   complete: { id: (prefix) => ["ORD-1", "ORD-2"].filter((id) => id.startsWith(prefix)) },
 *   read: ({ id }) => ({ id, status: "open" }),
 * });
 * ```
 */
export interface ResourceTemplateDefinition {
  /** An RFC 6570 URI template (levels 1 to 3; every variable must be present to match), e.g. `orders://{id}` or `files://{+path}`. */
  uriTemplate: string;
  /** Programmatic name. */
  name: string;
  /** Human-readable name. */
  title?: string;
  /** Icons a client may show for it (revision 2025-11-25), published in resources/templates/list. */
  icons?: readonly Icon[];
  /** Cache hints for the results that include it (revision 2026-07-28). */
  cache?: ItemCache;
  /** What the resources hold. */
  description?: string;
  /** MIME type of every matching resource. */
  mimeType?: string;
  /** Hints for the client. */
  annotations?: ContentAnnotations;
  /** Extension metadata. */
  _meta?: Record<string, unknown>;
  /** Completers for the template's variables, by variable name. */
  complete?: Readonly<Record<string, Completer>>;
  /** Produces the contents for one URI: a string, a `Uint8Array`, or a JSON value. */
  read(variables: Readonly<Record<string, string>>, context: ResourceContext): unknown;
}

/** A template after registration. */
export interface RegisteredTemplate {
  /** The definition as given. */
  readonly definition: ResourceTemplateDefinition;
  /** The compiled template. */
  readonly template: UriTemplate;
  /** The resources/templates/list entry. */
  readonly listing: Readonly<Record<string, unknown>>;
}

/** The optional fields resources/templates/list carries, in the order they are listed. */
const PUBLISHED = ["title", "description", "mimeType", "annotations", "icons", "_meta"] as const;

/** Checks a definition and compiles its template; throws `TypeError` naming it. */
export function registerTemplate(definition: ResourceTemplateDefinition): RegisteredTemplate {
  if (typeof definition !== "object" || definition === null) {
    throw new TypeError("Cannot register resource template: expected a definition object");
  }
  if (typeof definition.uriTemplate !== "string") {
    throw new TypeError("Cannot register resource template: uriTemplate must be a string");
  }
  const label = `Cannot register resource template '${definition.uriTemplate}'`;
  if (typeof definition.name !== "string" || definition.name.length === 0) {
    throw new TypeError(`${label}: name must be a non-empty string`);
  }
  if (typeof definition.read !== "function") {
    throw new TypeError(`${label}: read must be a function`);
  }
  checkCanonical(definition.uriTemplate, true, label);
  checkIcons(definition.icons, label);
  checkItemCache(definition.cache, label);
  let template: UriTemplate;
  try {
    template = compileUriTemplate(definition.uriTemplate);
  } catch (error) {
    throw new TypeError(`${label}: ${error instanceof Error ? error.message : String(error)}`);
  }
  for (const [variable, completer] of Object.entries(definition.complete ?? {})) {
    if (!template.variables.includes(variable)) {
      throw new TypeError(`${label}: a completer is given for unknown variable '${variable}'`);
    }
    if (typeof completer !== "function") {
      throw new TypeError(`${label}: the completer for '${variable}' must be a function`);
    }
  }
  const listing: Record<string, unknown> = {
    uriTemplate: definition.uriTemplate,
    name: definition.name,
  };
  for (const key of PUBLISHED) {
    if (definition[key] !== undefined) listing[key] = definition[key];
  }
  return { definition, template, listing: Object.freeze(listing) };
}

/** Reads a templated resource with the variables already matched. */
export async function readTemplate(
  registered: RegisteredTemplate,
  variables: Readonly<Record<string, string>>,
  context: ResourceContext,
  log: (message: string) => void,
): Promise<CallOutcome> {
  const { definition } = registered;
  try {
    const value = await definition.read(variables, context);
    return {
      status: "ok",
      result: { contents: [toContents(context.uri, definition.mimeType, value)] },
    };
  } catch (error) {
    return thrownOutcome(error, context.signal, `reading '${context.uri}'`, log);
  }
}
