/**
 * The resources rows of PROTOCOL.md through `server.handle()`:
 * `resources/list` and `resources/read` of text, bytes and JSON, unknown
 * URIs and failing readers.
 */

import assert from "node:assert/strict";
import { createServer, ErrorCode } from "../../mod.ts";
import { captureLog, errorOf, fixtureServer, request, resultOf } from "../_helpers/helpers.ts";

Deno.test("resources/list and resources/read encode text, bytes and JSON", async () => {
  const server = createServer({
    name: "s",
    version: "1",
    resources: [
      { uri: "test://text", name: "text", description: "Some text", read: () => "hello" },
      {
        uri: "test://bytes",
        name: "bytes",
        mimeType: "image/png",
        read: () => new Uint8Array([1, 2, 255]),
      },
      { uri: "test://json", name: "json", read: () => ({ a: [1, null] }) },
    ],
  });
  const list = await server.handle(request(1, "resources/list"));
  assert.deepEqual(resultOf(list), {
    resources: [
      { uri: "test://text", name: "text", description: "Some text" },
      { uri: "test://bytes", name: "bytes", mimeType: "image/png" },
      { uri: "test://json", name: "json" },
    ],
  });
  const read = async (uri: string) =>
    resultOf(await server.handle(request(2, "resources/read", { uri })));
  assert.deepEqual(await read("test://text"), {
    contents: [{ uri: "test://text", mimeType: "text/plain", text: "hello" }],
  });
  assert.deepEqual(await read("test://bytes"), {
    contents: [{ uri: "test://bytes", mimeType: "image/png", blob: "AQL/" }],
  });
  assert.deepEqual(await read("test://json"), {
    contents: [{ uri: "test://json", mimeType: "application/json", text: '{"a":[1,null]}' }],
  });
});

Deno.test("resources/read of an unknown URI is -32601", async () => {
  const { server } = fixtureServer();
  const reply = await server.handle(request(1, "resources/read", { uri: "test://missing" }));
  assert.equal(errorOf(reply).code, ErrorCode.MethodNotFound);
});

Deno.test("a failing resource reader is -32603 with the stack on the log only", async () => {
  const { lines, log } = captureLog();
  const server = createServer({
    name: "s",
    version: "1",
    log,
    resources: [{
      uri: "test://broken",
      name: "broken",
      read: () => {
        throw new Error("secret path /etc/shadow");
      },
    }],
  });
  const reply = await server.handle(request(1, "resources/read", { uri: "test://broken" }));
  assert.deepEqual(errorOf(reply), {
    code: ErrorCode.InternalError,
    message: "Internal error",
  });
  assert.match(lines.join("\n"), /secret path \/etc\/shadow/);
});
