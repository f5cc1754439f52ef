/**
 * Legacy `resources/subscribe`: a session remembers a bounded number of
 * subscriptions, as a 2026-07-28 listen stream follows a bounded number of
 * URIs; a template matches endless URIs, so the client must not be able to
 * grow the server's memory without end.
 */

import assert from "node:assert/strict";
import { createServer } from "../../mod.ts";
import { MAX_SUBSCRIBED_URIS } from "../../src/eras/modern/subscriptions.ts";
import { errorOf, request, resultOf } from "../_helpers/helpers.ts";

Deno.test("legacy: a session's subscriptions are bounded; a URI held already and freed places still work", async () => {
  const server = createServer({
    name: "notes",
    version: "1.0.0",
    resourceTemplates: [{
      uriTemplate: "notes://{id}",
      name: "note",
      read: ({ id }) => `note ${id}`,
    }],
  });
  await server.handle(request(0, "initialize", {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "c", version: "1" },
  }));
  const subscribe = (id: number, uri: string) =>
    server.handle(request(id, "resources/subscribe", { uri }));
  for (let i = 0; i < MAX_SUBSCRIBED_URIS; i++) {
    assert.deepEqual(resultOf(await subscribe(i + 1, `notes://n${i}`)), {});
  }
  const over = errorOf(await subscribe(5000, "notes://one-more"));
  assert.equal(over.code, -32602);
  assert.match(over.message, /subscriptions/);
  assert.deepEqual(resultOf(await subscribe(5001, "notes://n0")), {});
  await server.handle(request(5002, "resources/unsubscribe", { uri: "notes://n0" }));
  assert.deepEqual(resultOf(await subscribe(5003, "notes://one-more")), {});
  await server.close();
});
