/**
 * The order desk's unknown order, in either era and over either transport:
 * its template reader returns `undefined` for it, which is -32601 on a
 * legacy session and -32602 `Resource not found` with `data.uri` in
 * revision 2026-07-28, answered over HTTP with status 200, never 404.
 */

import assert from "node:assert/strict";
import { createOrderDesk } from "../../examples/orders.ts";
import { errorOf, modernRequest, request } from "../_helpers/helpers.ts";
import { jsonOf, modernPost, openSession } from "../_helpers/http_helpers.ts";

const UNKNOWN = "orders://ORD-999";

Deno.test("the order desk answers an unknown order as its era says, on stdio and HTTP", async () => {
  const desk = createOrderDesk();
  const legacy = request(1, "resources/read", { uri: UNKNOWN });
  assert.equal(errorOf(await desk.handle(legacy)).code, -32601);
  const session = await openSession(desk);
  const overHttp = await session.post(legacy);
  assert.equal(overHttp.status, 200);
  assert.equal(errorOf(await jsonOf(overHttp)).code, -32601);
  const modern = modernRequest(2, "resources/read", { uri: UNKNOWN });
  const expected = { code: -32602, message: "Resource not found", data: { uri: UNKNOWN } };
  assert.deepEqual(errorOf(await desk.handle(modern)), expected);
  const response = await modernPost(desk, modern);
  assert.equal(response.status, 200);
  assert.deepEqual(errorOf(await jsonOf(response)), expected);
  await desk.close();
});
