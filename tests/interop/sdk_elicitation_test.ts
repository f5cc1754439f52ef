/**
 * The official TypeScript SDK client against Warden's elicitations: the
 * SEP-1034 and SEP-1330 forms and a URL elicitation, as the conformance
 * suite sends them, over the in-memory pair.
 */

import assert from "node:assert/strict";
import type { Transport } from "../../mod.ts";
import { createMemoryPair } from "../../testing.ts";
import { isRecord } from "../_helpers/helpers.ts";
import {
  Client,
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  type JSONRPCMessage,
  type SdkTransport,
} from "../_helpers/sdk.ts";
import { elicitingServer, SEP1034_ANSWER, SEP1330_ANSWER } from "../_helpers/eliciting_server.ts";

/** Runs the SDK's client over the client end of a memory pair. */
function sdkTransport(end: Transport): SdkTransport {
  const writer = end.writable.getWriter();
  const transport: SdkTransport = {
    start: () => {
      (async () => {
        for await (const frame of end.readable) transport.onmessage?.(JSON.parse(frame));
        transport.onclose?.();
      })();
      return Promise.resolve();
    },
    send: (message: JSONRPCMessage) => writer.write(JSON.stringify(message)),
    close: () => writer.close().catch(() => {}),
  };
  return transport;
}

Deno.test("the official SDK client accepts the SEP-1034, SEP-1330 and URL elicitations", async () => {
  const server = elicitingServer();
  const [clientEnd, serverEnd] = createMemoryPair();
  const serving = server.connect(serverEnd);
  const client = new Client(
    { name: "conformance-like", version: "1.0.0" },
    { capabilities: { elicitation: { form: {}, url: {} } } },
  );
  const asked: unknown[] = [];
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push(request.params);
    if (request.params.mode === "url") return { action: "accept" };
    return {
      action: "accept",
      content: request.params.message === "Please pick" ? SEP1330_ANSWER : SEP1034_ANSWER,
    };
  });
  const completed: string[] = [];
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, (notification) => {
    completed.push(notification.params.elicitationId);
  });
  try {
    await client.connect(sdkTransport(clientEnd));
    const defaults = await client.callTool({ name: "test_elicitation_sep1034_defaults" });
    assert.notEqual(defaults.isError, true, JSON.stringify(defaults));
    const enums = await client.callTool({ name: "test_elicitation_sep1330_enums" });
    assert.notEqual(enums.isError, true, JSON.stringify(enums));
    const url = await client.callTool({ name: "sign_in" });
    assert.notEqual(url.isError, true, JSON.stringify(url));
    assert.equal(asked.length, 3);
    const [, , urlRequest] = asked;
    assert.ok(isRecord(urlRequest) && typeof urlRequest.elicitationId === "string");
    // Let the notification arrive.
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.deepEqual(completed, [urlRequest.elicitationId]);
  } finally {
    await client.close();
    await serving;
  }
});
