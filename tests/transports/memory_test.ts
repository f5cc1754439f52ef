import assert from "node:assert/strict";
import { createMemoryPair, MemoryTransport } from "../../src/transports/memory.ts";

/** Lets streams and promise chains run; no timer is waited on. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("MemoryTransport sends each message as JSON, strings verbatim, then EOF", async () => {
  const transport = new MemoryTransport([
    { jsonrpc: "2.0", id: 1, method: "ping" },
    [{ jsonrpc: "2.0", id: 2, method: "ping" }],
    "{not json",
    null,
  ]);
  assert.deepEqual(await Array.fromAsync(transport.readable), [
    '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    '[{"jsonrpc":"2.0","id":2,"method":"ping"}]',
    "{not json",
    "null",
  ]);
});

Deno.test("MemoryTransport collects each reply parsed and resolves closed on close", async () => {
  const transport = new MemoryTransport([]);
  let closed = false;
  transport.closed.then(() => void (closed = true));
  const writer = transport.writable.getWriter();
  await writer.write('{"jsonrpc":"2.0","id":1,"result":{}}');
  await writer.write('[{"id":2},{"id":3}]');
  assert.deepEqual(transport.replies, [
    { jsonrpc: "2.0", id: 1, result: {} },
    [{ id: 2 }, { id: 3 }],
  ]);
  await settle();
  assert.equal(closed, false);
  await writer.close();
  await transport.closed;
  assert.equal(closed, true);
});

Deno.test("MemoryTransport rejects closed when the writable is aborted", async () => {
  const transport = new MemoryTransport([]);
  await transport.writable.abort(new Error("Cannot continue: session failed"));
  await assert.rejects(transport.closed, { message: "Cannot continue: session failed" });
});

Deno.test("MemoryTransport errors its writable on a reply that is not JSON", async () => {
  const transport = new MemoryTransport([]);
  const writer = transport.writable.getWriter();
  await writer.write("{}");
  await assert.rejects(writer.write("{oops"), {
    name: "SyntaxError",
    message: /^Cannot parse reply 2: /,
  });
  await assert.rejects(transport.closed, { name: "SyntaxError" });
  assert.deepEqual(transport.replies, [{}]);
});

Deno.test("MemoryTransport refuses a message that cannot be serialised", () => {
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  const table: [message: unknown, message: RegExp][] = [
    [undefined, /^Cannot create memory transport: message 1 is not JSON$/],
    [() => {}, /^Cannot create memory transport: message 1 is not JSON$/],
    [10n, /^Cannot create memory transport: message 1 is not JSON: /],
    [cyclic, /^Cannot create memory transport: message 1 is not JSON: /],
  ];
  for (const [message, error] of table) {
    assert.throws(() => new MemoryTransport([{}, message]), { name: "TypeError", message: error });
  }
});

Deno.test("createMemoryPair() delivers what each end writes to the other, in order", async () => {
  const [client, server] = createMemoryPair();
  const clientWriter = client.writable.getWriter();
  const serverWriter = server.writable.getWriter();
  const serverReads = Array.fromAsync(server.readable);
  const clientReads = Array.fromAsync(client.readable);
  for (let id = 1; id <= 3; id++) {
    await clientWriter.write(`{"id":${id}}`);
    await serverWriter.write(`{"reply":${id}}`);
  }
  await clientWriter.close();
  assert.deepEqual(await serverReads, ['{"id":1}', '{"id":2}', '{"id":3}']);
  await serverWriter.close();
  assert.deepEqual(await clientReads, ['{"reply":1}', '{"reply":2}', '{"reply":3}']);
});

Deno.test("createMemoryPair() holds writers back until the other end reads", async () => {
  const [client, server] = createMemoryPair();
  const writer = client.writable.getWriter();
  const writes = [writer.write("1"), writer.write("2"), writer.write("3")];
  let settled = 0;
  for (const write of writes) write.then(() => settled++);
  await settle();
  assert.equal(settled, 0, "nobody reads yet");
  assert.ok((writer.desiredSize ?? 0) <= 0);
  const reader = server.readable.getReader();
  assert.deepEqual(await reader.read(), { done: false, value: "1" });
  await settle();
  assert.ok(settled >= 1);
});

Deno.test("createMemoryPair() refuses a frame that is not a string", async () => {
  const [client, server] = createMemoryPair();
  const writer: WritableStreamDefaultWriter<unknown> = client.writable.getWriter();
  const reading = Array.fromAsync(server.readable);
  const error = { name: "TypeError", message: "Cannot send frame: expected a string, got object" };
  await assert.rejects(writer.write({ id: 1 }), error);
  await assert.rejects(reading, error);
});
