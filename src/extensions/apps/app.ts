/**
 * MCP Apps (SEP-1865, extension `io.modelcontextprotocol/ui`): one call
 * declares a view, a `ui://` resource of type `text/html;profile=mcp-app`
 * whose `_meta.ui` carries its CSP and permissions, and the tools that open
 * it or that it calls, each linked by `_meta.ui.resourceUri` with its
 * visibility. Tools only the app may call are listed, and callable, only
 * for clients that declared they host apps.
 *
 * @module
 */

import type { RequestCore } from "../../core/request_core.ts";
import type { ResourceContext, ResourceDefinition } from "../../core/resources.ts";
import type { RegisteredTool, ToolDefinition } from "../../core/tools.ts";
import { isRecord } from "../../jsonrpc/messages.ts";

/** The extension's identifier. */
export const APPS_EXTENSION = "io.modelcontextprotocol/ui";

/** The MIME type of an HTML view. */
export const APP_MIME_TYPE = "text/html;profile=mcp-app";

/** The CSP origins a view may declare, by what they open. */
const CSP_KEYS = ["connectDomains", "resourceDomains", "frameDomains", "baseUriDomains"] as const;

/** The browser permissions a view may ask for. */
const PERMISSIONS = ["camera", "microphone", "geolocation", "clipboardWrite"] as const;

/**
 * An origin as a CSP source: a scheme, an optional `*.` wildcard and a host,
 * an optional port. Nothing else, so that no declared domain can smuggle a
 * directive (`;`) or a keyword (`'unsafe-eval'`) into the host's policy.
 */
const ORIGIN =
  /^(?:https?|wss?):\/\/(?:\*\.)?[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::\d{1,5})?$/;

/** A view's `ui://` URI: plain path characters, no dot or empty segment, no percent sign. */
const UI_URI = /^ui:\/\/(?!.*\/\/)(?!(?:.*\/)?\.{1,2}(?:\/|$))[A-Za-z0-9._~!$&'()*+,;=@/-]+$/;

/** What `server.app()` takes. */
export interface AppDefinition {
  /** The view's URI, `ui://…`. */
  readonly uri: string;
  /** Its programmatic name. */
  readonly name: string;
  /** Its human-readable name. */
  readonly title?: string;
  /** What it shows. */
  readonly description?: string;
  /** The HTML document, or a function that produces it on each read. */
  readonly html: string | ((context: ResourceContext) => string | Promise<string>);
  /** The external origins it needs, by kind; none by default. */
  readonly csp?: {
    readonly connectDomains?: readonly string[];
    readonly resourceDomains?: readonly string[];
    readonly frameDomains?: readonly string[];
    readonly baseUriDomains?: readonly string[];
  };
  /** The browser permissions it asks for. */
  readonly permissions?: {
    readonly camera?: Record<string, never>;
    readonly microphone?: Record<string, never>;
    readonly geolocation?: Record<string, never>;
    readonly clipboardWrite?: Record<string, never>;
  };
  /** A dedicated sandbox origin, in the host's format. */
  readonly domain?: string;
  /** Whether the host should draw a border around it. */
  readonly prefersBorder?: boolean;
  /** Tools that open the view; visible to the model and to the app. */
  readonly tools?: readonly ToolDefinition[];
  /** Tools only the view calls: hidden from the model. */
  readonly appTools?: readonly ToolDefinition[];
}

/** The view's `_meta.ui`: its CSP, permissions, domain and border preference, checked. */
function viewMeta(app: AppDefinition, label: string): Record<string, unknown> {
  const ui: Record<string, unknown> = {};
  if (app.csp !== undefined) {
    if (!isRecord(app.csp)) throw new TypeError(`${label}: csp must be an object`);
    const csp: Record<string, string[]> = {};
    for (const [key, origins] of Object.entries(app.csp)) {
      if (!(CSP_KEYS as readonly string[]).includes(key)) {
        throw new TypeError(`${label}: csp.${key} is not one of ${CSP_KEYS.join(", ")}`);
      }
      if (!Array.isArray(origins)) throw new TypeError(`${label}: csp.${key} must be a list`);
      for (const origin of origins) {
        if (typeof origin !== "string" || !ORIGIN.test(origin)) {
          throw new TypeError(
            `${label}: csp.${key} has ${
              JSON.stringify(origin)
            }, not an origin such as https://api.example.com`,
          );
        }
      }
      csp[key] = [...origins];
    }
    ui.csp = csp;
  }
  if (app.permissions !== undefined) {
    if (!isRecord(app.permissions)) throw new TypeError(`${label}: permissions must be an object`);
    for (const key of Object.keys(app.permissions)) {
      if (!(PERMISSIONS as readonly string[]).includes(key)) {
        throw new TypeError(`${label}: permissions.${key} is not one of ${PERMISSIONS.join(", ")}`);
      }
    }
    ui.permissions = Object.fromEntries(Object.keys(app.permissions).map((key) => [key, {}]));
  }
  if (app.domain !== undefined) {
    if (typeof app.domain !== "string" || app.domain.length === 0) {
      throw new TypeError(`${label}: domain must be a non-empty string`);
    }
    ui.domain = app.domain;
  }
  if (app.prefersBorder !== undefined) {
    if (typeof app.prefersBorder !== "boolean") {
      throw new TypeError(`${label}: prefersBorder must be a boolean`);
    }
    ui.prefersBorder = app.prefersBorder;
  }
  return ui;
}

/**
 * The view's resource and its linked tools, checked.
 *
 * @throws {TypeError} A URI that is not a plain `ui://` URI, a CSP entry
 *   that is not an origin, an unknown permission, bad HTML.
 */
export function appParts(app: AppDefinition): {
  resource: ResourceDefinition;
  tools: ToolDefinition[];
} {
  if (!isRecord(app)) throw new TypeError("Cannot register app: expected an app definition object");
  if (typeof app.uri !== "string" || !UI_URI.test(app.uri)) {
    throw new TypeError("Cannot register app: uri must be a plain ui:// URI");
  }
  const label = `Cannot register app '${app.uri}'`;
  const { html } = app;
  if (typeof html !== "string" && typeof html !== "function") {
    throw new TypeError(`${label}: html must be a string or a function`);
  }
  const ui = viewMeta(app, label);
  const resource: ResourceDefinition = {
    uri: app.uri,
    name: app.name,
    mimeType: APP_MIME_TYPE,
    _meta: { ui },
    read: typeof html === "string" ? () => html : html,
  };
  if (app.title !== undefined) resource.title = app.title;
  if (app.description !== undefined) resource.description = app.description;
  const link = (tool: ToolDefinition, visibility: string[]): ToolDefinition => {
    if (!isRecord(tool)) throw new TypeError(`${label}: every tool must be a tool definition`);
    const meta = isRecord(tool._meta) ? tool._meta : {};
    const own = isRecord(meta.ui) ? meta.ui : {};
    return {
      ...tool,
      _meta: { ...meta, ui: { ...own, resourceUri: app.uri, visibility } },
    };
  };
  const tools = [
    ...(app.tools ?? []).map((tool) => link(tool, ["model", "app"])),
    ...(app.appTools ?? []).map((tool) => link(tool, ["app"])),
  ];
  return { resource, tools };
}

/** Whether a tool's `_meta.ui.visibility` leaves the model out. */
export function isAppOnly(tool: RegisteredTool): boolean {
  const ui = tool.definition._meta?.ui;
  if (!isRecord(ui)) return false;
  // A single name written without its list still says who may see the tool.
  const visibility = typeof ui.visibility === "string" ? [ui.visibility] : ui.visibility;
  if (!Array.isArray(visibility)) return false;
  return !visibility.includes("model");
}

/** Whether a client declared it hosts apps (with the HTML profile). */
export function hostsApps(capabilities: Readonly<Record<string, unknown>>): boolean {
  const extensions = capabilities.extensions;
  if (!isRecord(extensions)) return false;
  const settings = extensions[APPS_EXTENSION];
  if (!isRecord(settings)) return false;
  // SEP-1865 makes mimeTypes required; a host that lists none is taken to mean the HTML profile,
  // one that sends something else than a list hosts nothing we can tell.
  const { mimeTypes } = settings;
  if (mimeTypes === undefined) return true;
  return Array.isArray(mimeTypes) && mimeTypes.includes(APP_MIME_TYPE);
}

/** An app-only tool is for app hosts; every other tool for everyone. */
function appToolGate(
  tool: RegisteredTool,
  capabilities: Readonly<Record<string, unknown>>,
): boolean {
  return !isAppOnly(tool) || hostsApps(capabilities);
}

/**
 * Declares the extension and gates app-only tools; called after each
 * `server.app()`. The gate is on from the first app, whether or not an
 * app-only tool exists yet: one linked by hand with `server.tool()` later
 * must be hidden from model-only clients too. A server with no app pays
 * nothing per request.
 */
export function appsInUse(core: RequestCore): void {
  core.extensions.set(APPS_EXTENSION, {});
  core.toolGate = appToolGate;
}
