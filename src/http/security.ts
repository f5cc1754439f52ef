/**
 * Host and Origin checks (DNS-rebinding protection) and CORS headers.
 *
 * @module
 */

/**
 * Which browser origins may call the endpoint, and what CORS headers say.
 *
 * @example A web app on its own origin calling the endpoint
 * ```ts
 * import { createServer } from "@warden/mcp";
 * import type { CorsOptions } from "@warden/mcp/http";
 * const cors: CorsOptions = { origins: ["https://app.example.com"], maxAgeSeconds: 3600 };
 * const server = createServer({ name: "desk", version: "1.0.0", http: { cors } });
 * ```
 */
export interface CorsOptions {
  /** Origins allowed to read responses; `"*"` for any. */
  origins: readonly string[] | "*";
  /**
   * How long a browser may cache a preflight answer, in seconds.
   * @default {600}
   */
  maxAgeSeconds?: number;
}

const LOCAL_HOSTS: readonly string[] = ["localhost", "127.0.0.1", "[::1]"];

/** The host name of a Host header value, without its port; lower case. */
export function hostName(host: string): string {
  const value = host.trim().toLowerCase();
  if (value.startsWith("[")) {
    const end = value.indexOf("]");
    if (end === -1) return value;
    const rest = value.slice(end + 1);
    // After an IPv6 literal only a port may follow: "[::1].evil.example" is not [::1].
    return rest === "" || /^:[0-9]*$/.test(rest) ? value.slice(0, end + 1) : value;
  }
  const colon = value.lastIndexOf(":");
  return colon === -1 ? value : value.slice(0, colon);
}

/** Whether a Host header names an allowed host (any port). */
export function isAllowedHost(
  host: string | null,
  allowed: readonly string[] | undefined,
): boolean {
  if (host === null) return false;
  const name = hostName(host);
  return (allowed ?? LOCAL_HOSTS).some((entry) => entry.toLowerCase() === name);
}

/**
 * Whether an Origin header is acceptable. No Origin (a non-browser client) is
 * fine; a browser origin must be allowed by name (`allowedOrigins`) or, by
 * default, be a local host on any port, or be allowed by CORS.
 */
export function isAllowedOrigin(
  origin: string | null,
  allowed: readonly string[] | undefined,
  cors: CorsOptions | undefined,
): boolean {
  if (origin === null) return true;
  if (cors !== undefined && (cors.origins === "*" || cors.origins.includes(origin))) return true;
  if (allowed !== undefined) return allowed.includes(origin);
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return (url.protocol === "http:" || url.protocol === "https:") &&
    LOCAL_HOSTS.includes(url.hostname.toLowerCase());
}

/** CORS headers for a response to `origin`, or none when CORS is off or the origin is not allowed. */
export function corsHeaders(origin: string | null, cors: CorsOptions | undefined): Headers {
  const headers = new Headers();
  if (cors === undefined || origin === null) return headers;
  const allowed = cors.origins === "*" || cors.origins.includes(origin);
  if (!allowed) return headers;
  headers.set("access-control-allow-origin", cors.origins === "*" ? "*" : origin);
  if (cors.origins !== "*") headers.set("vary", "Origin");
  headers.set(
    "access-control-expose-headers",
    "mcp-session-id, mcp-protocol-version, www-authenticate",
  );
  return headers;
}

/** The extra headers of a preflight answer. */
export function preflightHeaders(origin: string | null, cors: CorsOptions | undefined): Headers {
  const headers = corsHeaders(origin, cors);
  if (!headers.has("access-control-allow-origin")) return headers;
  headers.set("access-control-allow-methods", "GET, POST, DELETE, OPTIONS");
  headers.set(
    "access-control-allow-headers",
    "content-type, accept, authorization, mcp-session-id, mcp-protocol-version, last-event-id",
  );
  headers.set("access-control-max-age", String(cors?.maxAgeSeconds ?? 600));
  return headers;
}
