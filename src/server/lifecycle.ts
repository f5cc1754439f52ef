/**
 * Protocol revisions, version negotiation and the session state the
 * `initialize` handshake fills in.
 *
 * @module
 */

/**
 * The MCP revisions Warden speaks, newest first.
 *
 * @example Offering the newest
 * ```ts
 * import { SUPPORTED_PROTOCOL_VERSIONS } from "@warden/mcp";
 * const newest = SUPPORTED_PROTOCOL_VERSIONS[0]; // "2025-06-18"
 * ```
 */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = Object.freeze([
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
]);

/** The newest revision: the answer to a client that offers one we don't speak. */
export const LATEST_PROTOCOL_VERSION = "2025-06-18";

/** An icon for a server, tool, resource, template or prompt (revision 2025-11-25). */
export interface Icon {
  /** An https: or data: URI of the image. */
  src: string;
  /** Its MIME type, e.g. `image/png`. */
  mimeType?: string;
  /** Sizes such as `48x48` or `any`. */
  sizes?: string[];
  /** The theme the icon is drawn for. */
  theme?: "light" | "dark";
}

/** Name and version of a client or server, as sent in `initialize`. */
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

/** The client's offer echoed when we speak it, else our newest; the client decides. */
export function negotiateVersion(offered: string): string {
  return SUPPORTED_PROTOCOL_VERSIONS.includes(offered) ? offered : LATEST_PROTOCOL_VERSION;
}
