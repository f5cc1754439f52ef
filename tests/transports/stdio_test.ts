import assert from "node:assert/strict";
import { StdioTransport } from "../../src/transports/stdio.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Lets streams and promise chains run; no timer is waited on. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

function input(...chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  return ReadableStream.from(
    chunks.map((chunk) => typeof chunk === "string" ? encoder.encode(chunk) : chunk),
  );
}

/** An output whose writes complete only when the test says so (or never). */
function gatedOutput(): {
  stream: WritableStream<Uint8Array>;
  writes: string[];
  closed: () => boolean;
  finishWrite: () => void;
} {
  const writes: string[] = [];
  const gates: (() => void)[] = [];
  let closed = false;
  const stream = new WritableStream<Uint8Array>({
    write: (chunk) => {
      writes.push(decoder.decode(chunk));
      return new Promise<void>((resolve) => gates.push(resolve));
    },
    close: () => {
      closed = true;
    },
  });
  return { stream, writes, closed: () => closed, finishWrite: () => gates.shift()?.() };
}

function memoryOutput(): {
  stream: WritableStream<Uint8Array>;
  writes: Uint8Array[];
  closed: () => boolean;
} {
  const writes: Uint8Array[] = [];
  let closed = false;
  const stream = new WritableStream<Uint8Array>({
    write: (chunk) => void writes.push(chunk),
    close: () => void (closed = true),
  });
  return { stream, writes, closed: () => closed };
}

Deno.test("StdioTransport reads one frame per line from its input", async () => {
  const smile = encoder.encode('{"b":"😀"}\n');
  const transport = new StdioTransport({
    input: input('{"a":1}\r\n\n{"a', '":2}\n', smile.subarray(0, 8), smile.subarray(8), '{"c":3}'),
    output: memoryOutput().stream,
    redirectConsole: false,
  });
  const frames = await Array.fromAsync(transport.readable);
  assert.deepEqual(frames, ['{"a":1}', '{"a":2}', '{"b":"😀"}', '{"c":3}']);
});

Deno.test("StdioTransport notes dropped lines by number and size, never their content", async () => {
  const notes: string[] = [];
  const transport = new StdioTransport({
    input: input(
      '{"id":1}\n\n',
      `{"password":"hunter2${"x".repeat(40)}"}\n`,
      new Uint8Array([0x7b, 0xff, 0x7d, 0x0a]),
      '{"id":2}\n',
    ),
    output: memoryOutput().stream,
    maxLineBytes: 32,
    log: (message) => notes.push(message),
    redirectConsole: false,
  });
  const frames = await Array.fromAsync(transport.readable);
  assert.deepEqual(frames, ['{"id":1}', '{"id":2}']);
  assert.deepEqual(notes, [
    "warden: dropped line 3 (62 bytes): longer than the 32-byte limit",
    "warden: dropped line 4 (3 bytes): not valid UTF-8",
  ]);
  assert.ok(notes.every((note) => !note.includes("hunter2") && !note.includes("{")));
});

Deno.test("StdioTransport frames each write as its UTF-8 text and exactly one newline", async () => {
  const output = memoryOutput();
  const transport = new StdioTransport({
    input: input(),
    output: output.stream,
    redirectConsole: false,
  });
  const frames = ['{"id":1,"result":{}}', '{"text":"€ and 😀"}', '"multi\\nline"'];
  const writer = transport.writable.getWriter();
  for (const frame of frames) await writer.write(frame);
  await writer.close();
  const text = output.writes.map((chunk) => decoder.decode(chunk)).join("");
  assert.equal(text, frames.map((frame) => `${frame}\n`).join(""));
  assert.ok(output.closed(), "a given output is closed with the transport");
});

Deno.test("StdioTransport batches frames written while the output is busy", async () => {
  const output = gatedOutput();
  const transport = new StdioTransport({
    input: input(),
    output: output.stream,
    redirectConsole: false,
  });
  const writer = transport.writable.getWriter();
  for (let id = 1; id <= 10; id++) await writer.write(`{"id":${id}}`);
  await settle();
  assert.deepEqual(output.writes, ['{"id":1}\n'], "frames 2-10 wait for the first write");
  output.finishWrite();
  await settle();
  assert.equal(output.writes.length, 2);
  assert.equal(output.writes[1], Array.from({ length: 9 }, (_, i) => `{"id":${i + 2}}\n`).join(""));
  const closing = writer.close();
  await settle();
  assert.ok(!output.closed(), "close() waits for the write in flight");
  output.finishWrite();
  await closing;
  assert.ok(output.closed());
});

Deno.test("StdioTransport makes the producer wait once 1 MiB is pending", async () => {
  const output = gatedOutput(); // its first write never completes
  const transport = new StdioTransport({
    input: input(),
    output: output.stream,
    redirectConsole: false,
  });
  const writer = transport.writable.getWriter();
  const frame = `"${"x".repeat(64 * 1024 - 3)}"`; // 64 KiB with its newline
  let accepted = 0;
  let blocked: Promise<void> | undefined;
  while (accepted < 100 && blocked === undefined) {
    let settled = false;
    const write = writer.write(frame).then(() => void (settled = true));
    await settle();
    if (settled) accepted++;
    else blocked = write;
  }
  // One frame in flight, then 16 fill the 1 MiB; the 18th goes over it and waits.
  assert.equal(accepted, 17);
  assert.equal(output.writes.length, 1);
  assert.ok(blocked !== undefined);
  writer.abort(new Error("Cannot write: client gone")).catch(() => undefined);
  await assert.rejects(blocked, { message: "Cannot write: client gone" });
});

Deno.test("StdioTransport errors its writable when the output fails, without unhandled rejections", async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (event: PromiseRejectionEvent): void => {
    unhandled.push(event.reason);
    event.preventDefault();
  };
  globalThis.addEventListener("unhandledrejection", onUnhandled);
  try {
    const transport = new StdioTransport({
      input: input(),
      output: new WritableStream({
        write: () => Promise.reject(new Error("Broken pipe (os error 32)")),
      }),
      redirectConsole: false,
    });
    const writer = transport.writable.getWriter();
    await writer.write('{"id":1}'); // accepted before the output fails
    await settle();
    await assert.rejects(writer.write('{"id":2}'), { message: "Broken pipe (os error 32)" });
    await assert.rejects(writer.closed, { message: "Broken pipe (os error 32)" });
    await settle();
    assert.deepEqual(unhandled, []);
  } finally {
    globalThis.removeEventListener("unhandledrejection", onUnhandled);
  }
});

Deno.test("StdioTransport refuses a frame that is not a string", async () => {
  const transport = new StdioTransport({
    input: input(),
    output: memoryOutput().stream,
    redirectConsole: false,
  });
  const writer: WritableStreamDefaultWriter<unknown> = transport.writable.getWriter();
  await assert.rejects(writer.write({ id: 1 }), {
    name: "TypeError",
    message: "Cannot write frame: expected a string, got object",
  });
});

/** Console methods the transport redirects, plus `error`, the stderr path they are sent to. */
const SPIED = [
  "log",
  "info",
  "debug",
  "dir",
  "dirxml",
  "table",
  "count",
  "timeLog",
  "timeEnd",
  "error",
] as const;

/** Replaces each spied console method with a recorder for the test's duration. */
async function withConsoleSpies(
  test: (calls: Map<string, unknown[][]>) => Promise<void>,
): Promise<void> {
  const originals = SPIED.map((name) => [name, console[name]] as const);
  const calls = new Map<string, unknown[][]>(SPIED.map((name) => [name, []]));
  for (const name of SPIED) {
    console[name] = (...data: unknown[]) => void calls.get(name)?.push(data);
  }
  try {
    await test(calls);
  } finally {
    for (const [name, original] of originals) Object.assign(console, { [name]: original });
  }
}

function quietTransport(options: { redirectConsole?: boolean } = {}): StdioTransport {
  return new StdioTransport({ input: input(), output: memoryOutput().stream, ...options });
}

Deno.test("StdioTransport sends console output to stderr until its writable closes", async () => {
  await withConsoleSpies(async (calls) => {
    const spiedLog = console.log;
    const transport = quietTransport();
    assert.notEqual(console.log, spiedLog);
    console.log("stray", 1);
    console.info("info");
    console.debug("debug");
    console.dir({ dir: true }, { depth: 0 });
    console.dirxml("xml");
    console.table([{ a: 1 }]);
    console.count("calls");
    console.count("calls");
    console.time("step");
    console.timeLog("step", "half");
    console.timeEnd("step");
    for (const name of SPIED.filter((name) => name !== "error")) {
      assert.deepEqual(calls.get(name), [], `console.${name} reached stdout`);
    }
    const errors = calls.get("error") ?? [];
    assert.deepEqual(errors.slice(0, 8), [
      ["stray", 1],
      ["info"],
      ["debug"],
      [{ dir: true }],
      ["xml"],
      [[{ a: 1 }]],
      ["calls: 1"],
      ["calls: 2"],
    ]);
    assert.match(String(errors[8]?.[0]), /^step: \d+\.\d{3}ms$/);
    assert.equal(errors[8]?.[1], "half");
    assert.match(String(errors[9]?.[0]), /^step: \d+\.\d{3}ms$/);

    await transport.writable.close();
    assert.equal(console.log, spiedLog);
    console.log("after");
    assert.deepEqual(calls.get("log"), [["after"]]);
  });
});

Deno.test("StdioTransport leaves the console alone when redirectConsole is false", async () => {
  await withConsoleSpies(async (calls) => {
    const spiedLog = console.log;
    const transport = quietTransport({ redirectConsole: false });
    assert.equal(console.log, spiedLog);
    console.log("to stdout");
    assert.deepEqual(calls.get("log"), [["to stdout"]]);
    assert.deepEqual(calls.get("error"), []);
    await transport.writable.close();
  });
});

Deno.test("StdioTransport restores the console when the last live transport ends", async () => {
  await withConsoleSpies(async (calls) => {
    const spiedLog = console.log;
    const first = quietTransport();
    const second = quietTransport();
    await first.writable.close();
    console.log("still redirected");
    assert.deepEqual(calls.get("log"), []);
    await second.writable.abort(new Error("Cannot continue: session ended"));
    assert.equal(console.log, spiedLog);

    // A method replaced while the redirect is live belongs to whoever replaced it.
    const third = quietTransport();
    const logger = (): void => {};
    console.info = logger;
    await third.writable.close();
    assert.equal(console.info, logger);
    assert.equal(console.log, spiedLog);
  });
});

Deno.test("StdioTransport releases the console when its output fails", async () => {
  await withConsoleSpies(async () => {
    const spiedLog = console.log;
    const transport = new StdioTransport({
      input: input(),
      output: new WritableStream({ write: () => Promise.reject(new Error("Broken pipe")) }),
    });
    const writer = transport.writable.getWriter();
    await writer.write("{}");
    await assert.rejects(writer.closed, { message: "Broken pipe" });
    assert.equal(console.log, spiedLog);
  });
});

Deno.test("StdioTransport on the real stdin and stdout keeps stdout for frames", async () => {
  const module = new URL("../../src/transports/stdio.ts", import.meta.url).href;
  const script = `
    import { StdioTransport } from ${JSON.stringify(module)};
    const transport = new StdioTransport();
    const writer = transport.writable.getWriter();
    console.log("stray log");
    console.table([{ a: 1 }]);
    console.count("calls");
    for await (const frame of transport.readable) {
      await writer.write(JSON.stringify({ echo: JSON.parse(frame) }));
    }
    await writer.close();
    console.log("after close");
  `;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", "--no-config", "--no-lock", "--ext=ts", script],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdin = child.stdin.getWriter();
  await stdin.write(encoder.encode('{"id":1}\n\n{"id":"é"}\n'));
  await stdin.write(new Uint8Array([0xff, 0x0a]));
  await stdin.close();
  const { code, stdout, stderr } = await child.output();
  const errors = decoder.decode(stderr);
  assert.equal(code, 0, errors);
  assert.equal(
    decoder.decode(stdout),
    '{"echo":{"id":1}}\n{"echo":{"id":"é"}}\nafter close\n',
  );
  assert.match(errors, /stray log/);
  assert.match(errors, /calls: 1/);
  assert.match(errors, /warden: dropped line 4 \(1 bytes\): not valid UTF-8/);
});
