/**
 * A POST's intake: its media type and Accept header checked, its body read
 * within limits and parsed, then handed to the era it belongs to.
 *
 * @module
 */

import type { AuthGrant } from "../call/context.ts";
import { itemsOf } from "../auth/items.ts";
import { ErrorCode } from "../jsonrpc/errors.ts";
import { auditAuthRefusal } from "./auth_refusals.ts";
import type { Endpoint } from "./endpoint.ts";
import { legacyPost } from "./legacy_post.ts";
import { isModernPost } from "./modern_headers.ts";
import { modernPost } from "./modern_post.ts";
import type { HttpProtocolSession } from "./options.ts";
import { acceptedOf } from "./requests.ts";
import { rpcError } from "./responses.ts";

/** Answers a POST: 415, 406, 413, 408 or 400 before dispatch, else what its era answers. */
export function post<S extends HttpProtocolSession>(
  endpoint: Endpoint<S>,
  request: Request,
  principal: string | undefined,
  version: string | null,
  grant: AuthGrant | undefined,
): Promise<Response> {
  if (mediaTypeOf(request) !== "application/json") {
    return Promise.resolve(rpcError(
      415,
      ErrorCode.InvalidRequest,
      "Unsupported media type: send application/json",
    ));
  }
  const { json: jsonOk, sse: sseOk } = acceptedOf(request.headers.get("accept"));
  if (!jsonOk && !sseOk) {
    return Promise.resolve(rpcError(
      406,
      ErrorCode.InvalidRequest,
      "Not acceptable: accept application/json and text/event-stream",
    ));
  }
  return endpoint.body.read(request).then((text) =>
    text instanceof Response
      ? text
      : parsed(endpoint, request, principal, version, grant, sseOk, text)
  );
}

/** The POST once its body arrived: parsed, authorized, then handed to its era. */
function parsed<S extends HttpProtocolSession>(
  endpoint: Endpoint<S>,
  request: Request,
  principal: string | undefined,
  version: string | null,
  grant: AuthGrant | undefined,
  sseOk: boolean,
  text: string,
): Response | Promise<Response> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return rpcError(400, ErrorCode.ParseError, "Parse error: the body is not valid JSON");
  }
  const auth = endpoint.options.auth;
  if (auth !== undefined && grant !== undefined) {
    // Before dispatch, so a client can step up (403 insufficient_scope) with nothing done.
    const refused = auth.authorize(itemsOf(value), grant.scopes);
    if (refused !== undefined) {
      return auditAuthRefusal(endpoint, request, refused, principal, value).then(() => refused);
    }
  }
  if (endpoint.host.modern && isModernPost(request, value, endpoint.host.legacyVersions, version)) {
    return modernPost(endpoint, request, principal, value, sseOk, grant, version);
  }
  return legacyPost(endpoint, request, principal, version, value, sseOk, grant);
}

/** The Content-Type without its parameters, lower case. */
function mediaTypeOf(request: Request): string | undefined {
  const type = request.headers.get("content-type");
  // The usual spelling needs no splitting.
  if (type === "application/json") return type;
  return type?.split(";")[0]?.trim().toLowerCase();
}
