/**
 * The order-desk example as a real child process: `deno run examples/orders.ts`
 * with no permission flags, spoken to over its stdin and stdout pipes.
 */

import assert from "node:assert/strict";

const ROOT = new URL("..", import.meta.url);
const encoder = new TextEncoder();

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Resolves as `promise` does, or rejects once `ms` have passed; the timer never outlives it. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`Timed out after ${ms} ms: ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Collects a text stream line by line, telling waiters about each new line. */
function collectLines(stream: ReadableStream<Uint8Array>): {
  lines: string[];
  done: Promise<void>;
  onLine: (listener: (line: string) => void) => void;
} {
  const lines: string[] = [];
  const listeners: ((line: string) => void)[] = [];
  const done = (async () => {
    let rest = "";
    for await (const text of stream.pipeThrough(new TextDecoderStream())) {
      const parts = (rest + text).split("\n");
      rest = parts.pop() ?? "";
      for (const line of parts) {
        lines.push(line);
        for (const listener of listeners) listener(line);
      }
    }
    if (rest !== "") lines.push(rest);
  })();
  return { lines, done, onLine: (listener) => void listeners.push(listener) };
}

/** The child plus a minimal JSON-RPC client over its pipes. */
function spawnExample() {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "examples/orders.ts"],
    cwd: ROOT,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout = collectLines(child.stdout);
  const stderr = collectLines(child.stderr);
  const writer = child.stdin.getWriter();
  const waiting = new Map<string | number, (reply: Record<string, unknown>) => void>();
  stdout.onLine((line) => {
    let reply: unknown;
    try {
      reply = JSON.parse(line);
    } catch {
      return; // reported by the framing check at the end
    }
    if (!isRecord(reply) || (typeof reply.id !== "string" && typeof reply.id !== "number")) return;
    waiting.get(reply.id)?.(reply);
    waiting.delete(reply.id);
  });
  let exited = false;
  const status = child.status.then((status) => {
    exited = true;
    return status;
  });

  let nextId = 1;
  const send = (message: unknown): Promise<void> =>
    writer.write(encoder.encode(`${JSON.stringify(message)}\n`));
  const call = async (
    method: string,
    params?: Record<string, unknown>,
  ): Promise<Record<string, unknown>> => {
    const id = nextId++;
    const reply = new Promise<Record<string, unknown>>((resolve) => waiting.set(id, resolve));
    await send(
      params === undefined ? { jsonrpc: "2.0", id, method } : {
        jsonrpc: "2.0",
        id,
        method,
        params,
      },
    );
    return await within(reply, 10_000, `the reply to ${method} (id ${id})`);
  };

  /** Kills the child if it still runs and waits for every pipe, so nothing leaks. */
  const cleanUp = async (): Promise<void> => {
    await writer.close().catch(() => {});
    if (!exited) {
      try {
        child.kill("SIGKILL");
      } catch {
        // It exited between the check and the kill.
      }
    }
    await status;
    await Promise.allSettled([stdout.done, stderr.done]);
  };

  return {
    send,
    call,
    closeInput: () => writer.close(),
    status,
    stdoutLines: stdout.lines,
    stderrLines: stderr.lines,
    stdoutDone: stdout.done,
    stderrDone: stderr.done,
    sent: () => nextId - 1,
    cleanUp,
  };
}

function resultOf(reply: Record<string, unknown>): Record<string, unknown> {
  assert.ok(isRecord(reply.result), `expected a result, got ${JSON.stringify(reply)}`);
  return reply.result;
}

function errorCodeOf(reply: Record<string, unknown>): unknown {
  assert.ok(isRecord(reply.error), `expected an error, got ${JSON.stringify(reply)}`);
  return reply.error.code;
}

function listOf(result: Record<string, unknown>, key: string): Record<string, unknown>[] {
  const list = result[key];
  assert.ok(Array.isArray(list), `result.${key} is not a list: ${JSON.stringify(result)}`);
  return list.filter(isRecord);
}

function onlyText(result: Record<string, unknown>): unknown {
  const content = listOf(result, "content");
  assert.equal(content.length, 1, JSON.stringify(result));
  assert.equal(content[0]?.type, "text");
  return content[0]?.text;
}

Deno.test("examples/orders.ts serves a client over real pipes with no permission flags", async () => {
  const example = spawnExample();
  try {
    const init = resultOf(
      await example.call("initialize", {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "subprocess-test", version: "1.0.0" },
      }),
    );
    assert.equal(init.protocolVersion, "2025-06-18");
    assert.deepEqual(init.serverInfo, {
      name: "order-desk",
      version: "0.1.0",
      title: "Order desk",
    });
    assert.deepEqual(init.capabilities, {
      logging: {},
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      completions: {},
    });
    await example.send({ jsonrpc: "2.0", method: "notifications/initialized" });

    const tools = listOf(resultOf(await example.call("tools/list")), "tools");
    assert.deepEqual(tools.map((tool) => tool.name).sort(), [
      "add",
      "cancel_order",
      "get_order",
      "report",
    ]);
    const cancel = tools.find((tool) => tool.name === "cancel_order");
    assert.ok(isRecord(cancel?.annotations));
    assert.equal(cancel.annotations.destructiveHint, true);

    const found = resultOf(
      await example.call("tools/call", { name: "get_order", arguments: { order_id: "ORD-1" } }),
    );
    assert.notEqual(found.isError, true);
    const order = onlyText(found);
    assert.equal(typeof order, "string");
    assert.deepEqual(JSON.parse(String(order)), {
      id: "ORD-1",
      customer: "Ada",
      items: [{ sku: "LAMP-2", quantity: 1 }],
      status: "open",
    });

    const missing = resultOf(
      await example.call("tools/call", { name: "get_order", arguments: { order_id: "ORD-9" } }),
    );
    assert.equal(missing.isError, true);
    assert.equal(onlyText(missing), "no order named 'ORD-9'");

    const bogus = await example.call("tools/call", {
      name: "get_order",
      arguments: { order_id: "bogus" },
    });
    assert.equal(errorCodeOf(bogus), -32602);

    const sum = resultOf(
      await example.call("tools/call", { name: "add", arguments: { a: 2, b: 3 } }),
    );
    assert.deepEqual(sum.structuredContent, { sum: 5 });
    assert.notEqual(sum.isError, true);

    const resources = listOf(resultOf(await example.call("resources/list")), "resources");
    assert.deepEqual(resources.map((resource) => resource.uri).sort(), [
      "orders://ORD-1",
      "orders://ORD-2",
      "orders://readme",
    ]);

    const read = resultOf(await example.call("resources/read", { uri: "orders://ORD-1" }));
    const [contents, ...more] = listOf(read, "contents");
    assert.deepEqual(more, []);
    assert.equal(contents?.uri, "orders://ORD-1");
    assert.equal(contents?.mimeType, "application/json");
    assert.equal(JSON.parse(String(contents?.text)).customer, "Ada");

    const noArgument = await example.call("prompts/get", { name: "summarize_order" });
    assert.equal(errorCodeOf(noArgument), -32602);
    const prompt = resultOf(
      await example.call("prompts/get", {
        name: "summarize_order",
        arguments: { order_id: "ORD-1" },
      }),
    );
    const messages = listOf(prompt, "messages");
    assert.equal(messages.length, 1);
    assert.equal(messages[0]?.role, "user");
    const content = messages[0]?.content;
    assert.ok(isRecord(content) && content.type === "text" && typeof content.text === "string");
    assert.match(content.text, /ORD-1/);

    // EOF on stdin is the end of the session: the process exits on its own, successfully.
    await example.closeInput();
    const status = await within(example.status, 5_000, "the example to exit after EOF");
    assert.equal(status.code, 0);
    await within(Promise.all([example.stdoutDone, example.stderrDone]), 5_000, "the pipes to end");

    assert.equal(example.stdoutLines.length, example.sent(), "one reply per request, no more");
    for (const line of example.stdoutLines) {
      const reply: unknown = JSON.parse(line);
      assert.ok(isRecord(reply), `not a JSON-RPC object: ${line}`);
      assert.equal(reply.jsonrpc, "2.0", line);
      assert.ok(typeof reply.id === "number", line);
      assert.ok(("result" in reply) !== ("error" in reply), line);
    }
    const stderr = example.stderrLines.filter((line) => line.trim() !== "");
    assert.equal(
      stderr.filter((line) => line.includes("ready")).length,
      1,
      `expected one "ready" line on stderr, got: ${JSON.stringify(stderr)}`,
    );
  } finally {
    await example.cleanUp();
  }
});
