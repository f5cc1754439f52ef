/**
 * Protocol revisions, version negotiation and the session state the
 * `initialize` handshake fills in.
 *
 * @module
 */

import { isRecord } from "../jsonrpc/messages.ts";

/**
 * The revisions served per request, with no handshake (revision 2026-07-28
 * on), newest first.
 *
 * @example Usage
 * ```ts
 * import { MODERN_PROTOCOL_VERSIONS } from "./lifecycle.ts";
 * console.assert(MODERN_PROTOCOL_VERSIONS[0] === "2026-07-28");
 * ```
 */
export const MODERN_PROTOCOL_VERSIONS: readonly string[] = Object.freeze(["2026-07-28"]);

/**
 * The revisions served through `initialize` and a session, newest first.
 *
 * @example Usage
 * ```ts
 * import { LEGACY_PROTOCOL_VERSIONS } from "./lifecycle.ts";
 * console.assert(LEGACY_PROTOCOL_VERSIONS.includes("2024-11-05"));
 * ```
 */
export const LEGACY_PROTOCOL_VERSIONS: readonly string[] = Object.freeze([
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
]);

/**
 * Every MCP revision Warden speaks, newest first: the modern ones per
 * request, the legacy ones after `initialize`.
 *
 * @example Offering the newest
 * ```ts
 * import { SUPPORTED_PROTOCOL_VERSIONS } from "./lifecycle.ts";
 * const newest = SUPPORTED_PROTOCOL_VERSIONS[0]; // "2026-07-28"
 * ```
 */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = Object.freeze([
  ...MODERN_PROTOCOL_VERSIONS,
  ...LEGACY_PROTOCOL_VERSIONS,
]);

/**
 * The newest revision `initialize` negotiates: the answer to a client that
 * offers one the handshake does not speak (2026-07-28 has no handshake).
 *
 * @example Usage
 * ```ts
 * import { LATEST_PROTOCOL_VERSION } from "./lifecycle.ts";
 * console.assert(LATEST_PROTOCOL_VERSION === "2025-11-25");
 * ```
 */
export const LATEST_PROTOCOL_VERSION = "2025-11-25";

/**
 * The revision a session behaves as before it has negotiated one (a client
 * that skipped `initialize`, or the server's embedded `handle()` session).
 * Features a revision adds stay off until a client asks for that revision,
 * so a message sent without a handshake keeps its long-standing answer.
 */
export const UNNEGOTIATED_PROTOCOL_VERSION = "2025-06-18";

/**
 * An icon for a server, tool, resource, template or prompt (revision 2025-11-25).
 *
 * @example Light and dark icons for the server
 * ```ts
 * import { createServer, type Icon } from "@warden/mcp";
 * const icons: Icon[] = [
 *   { src: "https://desk.example.com/icon.svg", mimeType: "image/svg+xml", sizes: ["any"] },
 *   { src: "https://desk.example.com/icon-dark.png", mimeType: "image/png", theme: "dark" },
 * ];
 * const server = createServer({ name: "desk", version: "1.0.0", icons });
 * ```
 */
export interface Icon {
  /** An https: or data: URI of the image. */
  src: string;
  /** Its MIME type, e.g. `image/png`. */
  mimeType?: string;
  /** Sizes such as `48x48` or `any`. */
  sizes?: readonly string[];
  /** The theme the icon is drawn for. */
  theme?: "light" | "dark";
}

/**
 * Name and version of a client or server, as sent in `initialize`.
 *
 * @example The server's identity, kept in one place
 * ```ts
 * import { createServer, type Implementation } from "@warden/mcp";
 * const info: Implementation = {
 *   name: "order-desk",
 *   version: "2.3.1",
 *   title: "Order desk",
 *   description: "Look up, change and cancel customer orders",
 *   websiteUrl: "https://desk.example.com",
 * };
 * const server = createServer({ ...info, instructions: "Find an order before changing it." });
 * ```
 */
export interface Implementation {
  /** Programmatic name. */
  name: string;
  /** Version string. */
  version: string;
  /** Human-readable name. */
  title?: string;
  /** What it does (revision 2025-11-25). */
  description?: string;
  /** Icons (revision 2025-11-25). */
  icons?: readonly Icon[];
  /** Home page (revision 2025-11-25). */
  websiteUrl?: string;
}

/**
 * The client's offer echoed when we speak it, else our newest; the client
 * decides whether to go on with that.
 */
export function negotiateVersion(offered: string): string {
  return LEGACY_PROTOCOL_VERSIONS.includes(offered) ? offered : LATEST_PROTOCOL_VERSION;
}

/**
 * Whether `version` is `minimum` or newer. Revisions are ISO dates, so they
 * order as strings; gating on "this or newer" keeps a feature on when a
 * later revision is added.
 */
export function revisionAtLeast(version: string, minimum: string): boolean {
  return version >= minimum;
}

/**
 * Checks an item's `icons` at registration; throws `TypeError` opening with
 * `label` when it is not a list of icons with a string `src`.
 */
export function checkIcons(icons: unknown, label: string): void {
  if (icons === undefined) return;
  if (!Array.isArray(icons)) throw new TypeError(`${label}: icons must be a list`);
  icons.forEach((icon: unknown, index) => {
    if (!isRecord(icon)) throw new TypeError(`${label}: icon ${index} must be an object`);
    const { src, mimeType, sizes, theme } = icon;
    if (typeof src !== "string" || src.length === 0) {
      throw new TypeError(`${label}: icon ${index} needs a src URI`);
    }
    if (mimeType !== undefined && typeof mimeType !== "string") {
      throw new TypeError(`${label}: icon ${index} has a mimeType that is not a string`);
    }
    if (
      sizes !== undefined && (!Array.isArray(sizes) || !sizes.every((s) => typeof s === "string"))
    ) {
      throw new TypeError(`${label}: icon ${index} has sizes that are not a list of strings`);
    }
    if (theme !== undefined && theme !== "light" && theme !== "dark") {
      throw new TypeError(`${label}: icon ${index} has a theme other than "light" or "dark"`);
    }
  });
}
