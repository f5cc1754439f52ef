/**
 * `Mcp-Method` on revision 2026-07-28 POSTs: required on requests, optional
 * on notifications (the revision sets no header rules for them), and never
 * allowed to contradict the body.
 */

import assert from "node:assert/strict";
import { checkModernHeaders } from "../../src/http/modern_headers.ts";

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

function post(headers: Record<string, string>): Request {
  return new Request("http://127.0.0.1/mcp", {
    method: "POST",
    headers: { "mcp-protocol-version": "2026-07-28", ...headers },
  });
}

const noHeaderParams = () => undefined;

Deno.test("a modern notification POST without Mcp-Method is accepted", () => {
  const cancelled = {
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: "listen:1", _meta: META },
  };
  assert.equal(checkModernHeaders(post({}), cancelled, noHeaderParams), undefined);
  assert.equal(
    checkModernHeaders(
      post({ "mcp-method": "notifications/cancelled" }),
      cancelled,
      noHeaderParams,
    ),
    undefined,
  );
});

Deno.test("a modern notification's Mcp-Method must still match its body", () => {
  const cancelled = { jsonrpc: "2.0", method: "notifications/cancelled", params: { _meta: META } };
  const problem = checkModernHeaders(
    post({ "mcp-method": "tools/list" }),
    cancelled,
    noHeaderParams,
  );
  assert.equal(problem?.status, 400);
  assert.equal(problem?.code, -32020);
});

Deno.test("a modern request without Mcp-Method is still refused with -32020", () => {
  const list = { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: META } };
  const problem = checkModernHeaders(post({}), list, noHeaderParams);
  assert.deepEqual(problem, {
    status: 400,
    code: -32020,
    message: "Header mismatch: the Mcp-Method header is missing",
  });
});

Deno.test("the MCP-Protocol-Version the router read is the one checked against _meta", () => {
  const list = { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: META } };
  const request = post({ "mcp-method": "tools/list" });
  assert.equal(
    checkModernHeaders(request, list, noHeaderParams, undefined, "2026-07-28"),
    undefined,
  );
  assert.deepEqual(checkModernHeaders(request, list, noHeaderParams, undefined, null), {
    status: 400,
    code: -32020,
    message: "Header mismatch: the MCP-Protocol-Version header is missing",
  });
  // Read from the request when the caller has not.
  assert.equal(checkModernHeaders(request, list, noHeaderParams), undefined);
});
