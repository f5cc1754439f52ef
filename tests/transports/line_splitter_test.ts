import assert from "node:assert/strict";
import type { DroppedLine, LineSplitterOptions } from "../../src/transports/line_splitter.ts";
import { LineSplitter } from "../../src/transports/line_stream.ts";

const encoder = new TextEncoder();

function concat(...parts: (string | Uint8Array)[]): Uint8Array {
  const arrays = parts.map((part) => typeof part === "string" ? encoder.encode(part) : part);
  const all = new Uint8Array(arrays.reduce((sum, array) => sum + array.length, 0));
  let offset = 0;
  for (const array of arrays) {
    all.set(array, offset);
    offset += array.length;
  }
  return all;
}

function chunksOf(data: Uint8Array, size: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let start = 0; start < data.length; start += size) {
    chunks.push(data.slice(start, start + size));
  }
  return chunks;
}

async function split(
  chunks: readonly Uint8Array[],
  options: LineSplitterOptions = {},
): Promise<{ lines: string[]; dropped: DroppedLine[] }> {
  const dropped: DroppedLine[] = [];
  const splitter = new LineSplitter({ ...options, onDropped: (info) => dropped.push(info) });
  const lines = await Array.fromAsync(ReadableStream.from(chunks).pipeThrough(splitter));
  return { lines, dropped };
}

// "€" is 3 bytes in UTF-8 and "😀" is 4, so some split points fall inside them.
const TEXT = '{"a":"€"}\n{"b":"😀😀"}\r\n\n{"c":"x€😀y"}\n{"d":1}';
const TEXT_LINES = ['{"a":"€"}', '{"b":"😀😀"}', '{"c":"x€😀y"}', '{"d":1}'];

Deno.test("LineSplitter yields the same lines wherever the chunks are cut", async () => {
  const data = encoder.encode(TEXT);
  for (let cut = 0; cut <= data.length; cut++) {
    const { lines, dropped } = await split([data.subarray(0, cut), data.subarray(cut)]);
    assert.deepEqual(lines, TEXT_LINES, `cut at byte ${cut}`);
    assert.deepEqual(dropped, []);
  }
  for (const size of [1, 2, 3, 5, 7]) {
    const { lines } = await split(chunksOf(data, size));
    assert.deepEqual(lines, TEXT_LINES, `chunks of ${size} bytes`);
  }
});

Deno.test("LineSplitter yields many lines from one chunk in order", async () => {
  const messages = Array.from({ length: 500 }, (_, id) => JSON.stringify({ id }));
  const { lines } = await split([encoder.encode(messages.join("\n") + "\n")]);
  assert.deepEqual(lines, messages);
});

Deno.test("LineSplitter strips one trailing \\r and skips whitespace-only lines", async () => {
  const { lines } = await split([encoder.encode("a\r\nb\r\r\n\n  \n\t\r\n \r\n c \n")]);
  assert.deepEqual(lines, ["a", "b\r", " c "]);
});

Deno.test("LineSplitter emits a final line that has no newline at EOF", async () => {
  assert.deepEqual((await split([encoder.encode("a\nlast")])).lines, ["a", "last"]);
  assert.deepEqual((await split([encoder.encode("a\nla"), encoder.encode("st\r")])).lines, [
    "a",
    "last",
  ]);
  assert.deepEqual((await split([encoder.encode("a\n  ")])).lines, ["a"]);
  assert.deepEqual((await split([])).lines, []);
});

Deno.test("LineSplitter drops invalid UTF-8 lines by number and size and keeps the rest", async () => {
  const data = concat(
    "one\n\n",
    new Uint8Array([0x7b, 0xc0, 0xaf, 0x7d]), // an overlong encoding of "/"
    "\nthree€\n",
    new Uint8Array([0xed, 0xa0, 0x80]), // a lone surrogate
    "\r\nfour\n",
    new Uint8Array([0xf0, 0x9f, 0x98]), // a character cut short by EOF
  );
  for (const size of [1, 4, data.length]) {
    const { lines, dropped } = await split(chunksOf(data, size));
    assert.deepEqual(lines, ["one", "three€", "four"]);
    assert.deepEqual(dropped, [
      { line: 3, bytes: 4, reason: "invalid-utf8" },
      { line: 5, bytes: 3, reason: "invalid-utf8" },
      { line: 7, bytes: 3, reason: "invalid-utf8" },
    ]);
  }
});

Deno.test("LineSplitter drops lines over maxLineBytes and reports their full size", async () => {
  const table: { input: string; lines: string[]; dropped: [line: number, bytes: number][] }[] = [
    { input: "12345678\n", lines: ["12345678"], dropped: [] },
    { input: "12345678\r\n", lines: ["12345678"], dropped: [] },
    { input: "123456789\nok\n", lines: ["ok"], dropped: [[1, 9]] },
    { input: "123456789\r\nok\n", lines: ["ok"], dropped: [[1, 9]] },
    { input: "a\n" + "x".repeat(100) + "\r\nb\n", lines: ["a", "b"], dropped: [[2, 100]] },
    { input: "a\n\n" + "x".repeat(100), lines: ["a"], dropped: [[3, 100]] },
    {
      input: "x".repeat(20) + "\n" + "y".repeat(30) + "\nz",
      lines: ["z"],
      dropped: [[1, 20], [2, 30]],
    },
  ];
  for (const { input, lines, dropped } of table) {
    const data = encoder.encode(input);
    for (const size of [1, 3, 7, data.length]) {
      const result = await split(chunksOf(data, size), { maxLineBytes: 8 });
      assert.deepEqual(result.lines, lines, `${JSON.stringify(input)} in chunks of ${size}`);
      assert.deepEqual(
        result.dropped,
        dropped.map(([line, bytes]) => ({ line, bytes, reason: "too-long" })),
        `${JSON.stringify(input)} in chunks of ${size}`,
      );
    }
  }
});

Deno.test("LineSplitter never buffers more than the limit plus one chunk of an over-long line", async () => {
  const chunkSize = 64 * 1024;
  const chunk = new Uint8Array(chunkSize).fill(0x78);
  const chunks = [encoder.encode('{"before":1}\n')];
  for (let sent = 0; sent < 20 * 1024 * 1024; sent += chunkSize) chunks.push(chunk);
  chunks.push(encoder.encode('\n{"after":2}\n'));

  const dropped: DroppedLine[] = [];
  const splitter = new LineSplitter({ onDropped: (info) => dropped.push(info) });
  let next = 0;
  let mostBuffered = 0;
  const source = new ReadableStream<Uint8Array>({
    // pull() runs once the splitter has consumed the previous chunk.
    pull: (controller) => {
      mostBuffered = Math.max(mostBuffered, splitter.bufferedBytes);
      const piece = chunks[next++];
      if (piece === undefined) controller.close();
      else controller.enqueue(piece);
    },
  }, { highWaterMark: 0 });
  const lines = await Array.fromAsync(source.pipeThrough(splitter));

  assert.deepEqual(lines, ['{"before":1}', '{"after":2}']);
  assert.deepEqual(dropped, [{ line: 2, bytes: 20 * 1024 * 1024, reason: "too-long" }]);
  assert.ok(
    mostBuffered >= splitter.maxLineBytes - chunkSize,
    "the line was buffered up to the limit",
  );
  assert.ok(mostBuffered <= splitter.maxLineBytes + 1, `buffered ${mostBuffered} bytes`);
  assert.equal(splitter.bufferedBytes, 0);
});

Deno.test("LineSplitter refuses a maxLineBytes that is not a positive integer", () => {
  for (const maxLineBytes of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
    assert.throws(() => new LineSplitter({ maxLineBytes }), {
      name: "RangeError",
      message:
        `Cannot create line splitter: maxLineBytes must be a positive integer, got ${maxLineBytes}`,
    });
  }
  assert.equal(new LineSplitter().maxLineBytes, 8 * 1024 * 1024);
});

Deno.test("LineSplitter errors the stream when onDropped throws", async () => {
  const splitter = new LineSplitter({
    maxLineBytes: 2,
    onDropped: () => {
      throw new Error("Cannot log: sink closed");
    },
  });
  const stream = ReadableStream.from([encoder.encode("long\n")]).pipeThrough(splitter);
  await assert.rejects(Array.fromAsync(stream), { message: "Cannot log: sink closed" });
});
