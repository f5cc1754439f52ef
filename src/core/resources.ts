/**
 * Resources: definitions, registration and reading.
 *
 * @module
 */

import { checkItemCache, type ItemCache } from "./cache.ts";
import { canonicalUri } from "./canonical_uri.ts";
import type { CallOutcome } from "../call/outcome.ts";
import type { RequestContext } from "./context.ts";
import { type ContentAnnotations, type ResourceContents, toBase64 } from "./content.ts";
import { checkIcons, type Icon } from "./lifecycle.ts";
import { notFound, thrownOutcome } from "./outcome.ts";

/**
 * The context of a read: the request's, plus the URI read.
 *
 * @example One reader behind a template, answering with the URI it was asked for
 * ```ts
 * import { createServer, type ResourceContext } from "@warden/mcp";
 * function readLog(variables: Readonly<Record<string, string>>, ctx: ResourceContext): string {
 *   ctx.log("debug", `reading ${ctx.uri}`);
 *   return `${ctx.uri}: 3 entries for ${variables.day}`;
 * }
 * const server = createServer({ name: "logs", version: "1.0.0" });
 * server.resourceTemplate({ uriTemplate: "logs://{day}", name: "day-log", read: readLog });
 * ```
 */
export interface ResourceContext extends RequestContext {
  /** The URI the client asked for, in canonical form (the form the access policy decided on). */
  readonly uri: string;
}

/**
 * A resource. `read` may return a string (sent as text), bytes (sent as a
 * base64 blob) or any other JSON value (sent as JSON text, `application/json`).
 *
 * @example
 * ```ts
 * import { createServer } from "@warden/mcp";
 * const server = createServer({ name: "docs", version: "1.0.0" });
 * server.resource({
 *   uri: "docs://readme",
 *   name: "readme",
 *   mimeType: "text/markdown",
 *   read: () => "# Read me",
 * });
 * ```
 */
export interface ResourceDefinition {
  /** The resource's URI; unique within the server. */
  uri: string;
  /** Programmatic name. */
  name: string;
  /** Human-readable name. */
  title?: string;
  /** Icons a client may show for it (revision 2025-11-25), published in resources/list. */
  icons?: readonly Icon[];
  /** Cache hints for the results that include it (revision 2026-07-28). */
  cache?: ItemCache;
  /** What it holds. */
  description?: string;
  /** MIME type; defaults by what `read` returns. */
  mimeType?: string;
  /** Size in bytes, when known. */
  size?: number;
  /** Hints for the client. */
  annotations?: ContentAnnotations;
  /**
   * Extension metadata, published in resources/list and on the contents a
   * read returns (where MCP Apps hosts look for a view's `_meta.ui`).
   */
  _meta?: Record<string, unknown>;
  /**
   * Produces the contents: a string, a `Uint8Array`, or a JSON value;
   * `undefined` or `null` when it is gone (the client gets "not found" in
   * the code of its era).
   */
  read(context: ResourceContext): unknown;
}

/** A resource after registration. */
export interface RegisteredResource {
  /** The definition as given. */
  readonly definition: ResourceDefinition;
  /** The resources/list entry. */
  readonly listing: Readonly<Record<string, unknown>>;
}

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** The optional fields resources/list carries, in the order they are listed. */
const PUBLISHED = [
  "title",
  "description",
  "mimeType",
  "size",
  "annotations",
  "icons",
  "_meta",
] as const;

/** Checks a definition; throws `TypeError` naming the resource. */
export function registerResource(resource: ResourceDefinition): RegisteredResource {
  if (typeof resource !== "object" || resource === null) {
    throw new TypeError("Cannot register resource: expected a resource definition object");
  }
  if (typeof resource.uri !== "string" || !SCHEME.test(resource.uri)) {
    throw new TypeError("Cannot register resource: uri must be a URI with a scheme");
  }
  const label = `Cannot register resource '${resource.uri}'`;
  if (typeof resource.name !== "string" || resource.name.length === 0) {
    throw new TypeError(`${label}: name must be a non-empty string`);
  }
  if (typeof resource.read !== "function") {
    throw new TypeError(`${label}: read must be a function`);
  }
  checkCanonical(resource.uri, false, label);
  checkIcons(resource.icons, label);
  checkItemCache(resource.cache, label);
  const listing: Record<string, unknown> = { uri: resource.uri, name: resource.name };
  for (const key of PUBLISHED) {
    if (resource[key] !== undefined) listing[key] = resource[key];
  }
  return { definition: resource, listing: Object.freeze(listing) };
}

/**
 * Refuses a registered URI or URI template that is not in canonical form:
 * requests are matched in canonical form, so such an item could never be read.
 */
export function checkCanonical(uri: string, template: boolean, label: string): void {
  const canonical = canonicalUri(uri, template);
  if (typeof canonical !== "string") throw new TypeError(`${label}: the URI ${canonical.refused}`);
  if (canonical !== uri) {
    throw new TypeError(
      `${label}: the URI is not in canonical form (RFC 3986 §6.2.2), write it as ${
        JSON.stringify(canonical)
      }`,
    );
  }
}

/** Encodes what a reader returned as resource contents. */
export function toContents(
  uri: string,
  mimeType: string | undefined,
  value: unknown,
): ResourceContents {
  if (typeof value === "string") return { uri, mimeType: mimeType ?? "text/plain", text: value };
  if (value instanceof Uint8Array) {
    return { uri, mimeType: mimeType ?? "application/octet-stream", blob: toBase64(value) };
  }
  const json = JSON.stringify(value);
  if (json === undefined) throw new TypeError(`cannot encode a ${typeof value} as JSON`);
  return { uri, mimeType: mimeType ?? "application/json", text: json };
}

/**
 * The outcome of a read that returned `value`: its contents, or "not found"
 * when a reader returned `undefined` or `null` (the era-neutral way to say
 * there is no such resource: -32601 in the legacy era, -32602 with
 * `data.uri` in revision 2026-07-28).
 */
export function readOutcome(
  uri: string,
  mimeType: string | undefined,
  value: unknown,
  meta?: Record<string, unknown>,
): CallOutcome {
  if (value === undefined || value === null) return notFound("resource", uri);
  const contents = toContents(uri, mimeType, value);
  // Apps hosts look for a view's `_meta.ui` on what a read returns, not only on the listing.
  if (meta !== undefined) contents._meta = meta;
  return { status: "ok", result: { contents: [contents] } };
}

/** Reads a resource into a resources/read result. */
export async function readResource(
  resource: RegisteredResource,
  context: ResourceContext,
  log: (message: string) => void,
): Promise<CallOutcome> {
  const { definition } = resource;
  try {
    const value = await definition.read(context);
    return readOutcome(context.uri, definition.mimeType, value, definition._meta);
  } catch (error) {
    return thrownOutcome(error, context.signal, `reading resource '${definition.uri}'`, log);
  }
}
