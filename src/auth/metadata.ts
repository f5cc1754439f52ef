/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728): the document a resource
 * server publishes so clients find its authorization servers, and the
 * well-known paths it is served at. Pure: no network, no npm package.
 *
 * @module
 */

/** The well-known prefix RFC 9728 registers. */
const WELL_KNOWN = "/.well-known/oauth-protected-resource";

/** What the metadata document is built from. */
export interface MetadataInput {
  /** The canonical resource URI (RFC 8707): the audience tokens must name. */
  readonly resource: string;
  /** The issuers of the authorization servers clients may use. */
  readonly authorizationServers: readonly string[];
  /** The scopes clients should ask for first. */
  readonly scopesSupported?: readonly string[] | undefined;
  /** A human-readable name of the resource. */
  readonly resourceName?: string | undefined;
  /** A page documenting the resource. */
  readonly resourceDocumentation?: string | undefined;
  /** Whether DPoP-bound tokens are required. */
  readonly dpopRequired?: boolean | undefined;
  /** The DPoP signing algorithms accepted; none means DPoP is not offered. */
  readonly dpopAlgorithms?: readonly string[] | undefined;
}

/**
 * Checks a canonical resource URI as RFC 8707 and the MCP specification
 * describe it: absolute, https (or http on a loopback host), no fragment.
 *
 * @throws {TypeError} When `value` is not such a URI.
 */
export function checkResourceUri(value: unknown, what: string): URL {
  if (typeof value !== "string" || !URL.canParse(value)) {
    throw new TypeError(`Invalid auth options: ${what} must be an absolute URI`);
  }
  const url = new URL(value);
  if (!isSecureUrl(url)) {
    throw new TypeError(`Invalid auth options: ${what} must use https (http only on loopback)`);
  }
  if (url.hash !== "" || value.includes("#")) {
    throw new TypeError(`Invalid auth options: ${what} must not have a fragment`);
  }
  // RFC 8414 §2 gives an issuer no query, RFC 8707 §2 a resource none either (SHOULD NOT), and the
  // path-suffixed metadata URL (RFC 9728 §3.1) has no place for one.
  if (url.search !== "" || value.includes("?")) {
    throw new TypeError(`Invalid auth options: ${what} must not have a query`);
  }
  return url;
}

/**
 * Whether `url` may be trusted with tokens and credentials: https, or http
 * on a loopback host (the MCP specification serves every authorization
 * endpoint over https). Also applied to the URLs an issuer's metadata names
 * (`jwks_uri`, `introspection_endpoint`), which would otherwise be fetched
 * whatever their scheme (`http:` to another host, `data:`, `file:`).
 */
export function isSecureUrl(url: URL): boolean {
  const loopback = url.hostname === "localhost" || url.hostname === "127.0.0.1" ||
    url.hostname === "[::1]";
  return url.protocol === "https:" || (url.protocol === "http:" && loopback);
}

/** The metadata document (RFC 9728 section 2) as JSON-ready data. */
export function metadataDocument(input: MetadataInput): Readonly<Record<string, unknown>> {
  const document: Record<string, unknown> = {
    resource: input.resource,
    authorization_servers: [...input.authorizationServers],
    bearer_methods_supported: ["header"],
  };
  if (input.scopesSupported !== undefined) document.scopes_supported = [...input.scopesSupported];
  if (input.resourceName !== undefined) document.resource_name = input.resourceName;
  if (input.resourceDocumentation !== undefined) {
    document.resource_documentation = input.resourceDocumentation;
  }
  if (input.dpopAlgorithms !== undefined && input.dpopAlgorithms.length > 0) {
    document.dpop_signing_alg_values_supported = [...input.dpopAlgorithms];
    if (input.dpopRequired === true) document.dpop_bound_access_tokens_required = true;
  }
  return Object.freeze(document);
}

/**
 * The paths the metadata of `resource` is served at: the path-suffixed form
 * RFC 9728 section 3.1 defines (`/.well-known/oauth-protected-resource/mcp`
 * for `https://host/mcp`), and the root form the MCP specification lets
 * clients fall back to.
 */
export function metadataPaths(resource: string): readonly string[] {
  const path = new URL(resource).pathname;
  const suffixed = path === "/" || path === "" ? WELL_KNOWN : `${WELL_KNOWN}${path}`;
  return suffixed === WELL_KNOWN ? [WELL_KNOWN] : [suffixed, WELL_KNOWN];
}

/** The URL of the metadata document, for `resource_metadata` in challenges. */
export function metadataUrl(resource: string): string {
  const url = new URL(resource);
  const first = metadataPaths(resource)[0] ?? WELL_KNOWN;
  return `${url.origin}${first}`;
}

/** Whether a request path asks for protected-resource metadata at all. */
export function isMetadataPath(path: string): boolean {
  return path === WELL_KNOWN || path.startsWith(`${WELL_KNOWN}/`);
}
