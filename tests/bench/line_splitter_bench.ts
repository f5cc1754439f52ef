/**
 * The stdio line splitter on many small lines, and on one 1 MiB line
 * against one 8 MiB line (both fed in 64 KiB chunks, as a pipe delivers
 * them): with a splitter that scans each chunk once, the 8 MiB line costs
 * about 8× the 1 MiB one, not 64×.
 *
 * The same two lines also go through a minimal reference splitter (join the
 * pieces, decode once, no limits, no UTF-8 checks): whatever its 8 MiB/1 MiB
 * ratio is above 8 comes from the machine (making fresh 8 MiB buffers and
 * strings), not from the splitter's algorithm.
 *
 * Run: `deno bench tests/bench/line_splitter_bench.ts`
 *
 * @module
 */

import { LineSplitter } from "../../src/transports/line_stream.ts";

const CHUNK_BYTES = 64 * 1024;
const MiB = 1024 * 1024;

/** `bytes` cut into pipe-sized chunks. */
function chunked(bytes: Uint8Array): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let start = 0; start < bytes.length; start += CHUNK_BYTES) {
    chunks.push(bytes.subarray(start, start + CHUNK_BYTES));
  }
  return chunks;
}

/** One JSON-RPC-like line of exactly `size` bytes before its newline. */
function longLine(size: number): Uint8Array {
  const head = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"text":"';
  const tail = '"}}';
  const body = "x".repeat(size - head.length - tail.length);
  return new TextEncoder().encode(`${head}${body}${tail}\n`);
}

/** The least any splitter must do: find newlines, join a line's pieces, decode it once. */
class ReferenceSplitter extends TransformStream<Uint8Array, string> {
  constructor() {
    const decoder = new TextDecoder();
    let pieces: Uint8Array[] = [];
    let held = 0;
    super({
      transform(chunk, controller) {
        let start = 0;
        for (let end = chunk.indexOf(0x0a); end !== -1; end = chunk.indexOf(0x0a, start)) {
          let line = chunk.subarray(start, end);
          if (pieces.length > 0) {
            const joined = new Uint8Array(held + line.length);
            let offset = 0;
            for (const piece of [...pieces, line]) {
              joined.set(piece, offset);
              offset += piece.length;
            }
            line = joined;
          }
          controller.enqueue(decoder.decode(line));
          pieces = [];
          held = 0;
          start = end + 1;
        }
        if (start < chunk.length) {
          pieces.push(chunk.subarray(start));
          held += chunk.length - start;
        }
      },
    });
  }
}

async function split(
  chunks: readonly Uint8Array[],
  splitter: TransformStream<Uint8Array, string>,
): Promise<string[]> {
  return await Array.fromAsync(ReadableStream.from(chunks).pipeThrough(splitter));
}

async function expectLines(
  chunks: readonly Uint8Array[],
  count: number,
  size: number,
  splitter: TransformStream<Uint8Array, string> = new LineSplitter(),
): Promise<void> {
  const lines = await split(chunks, splitter);
  if (lines.length !== count || lines[0]?.length !== size) {
    throw new Error(`Expected ${count} line(s) of ${size} chars, got ${lines.length}`);
  }
}

const smallLine = '{"jsonrpc":"2.0","id":12345,"method":"tools/call","params":{"name":"echo",' +
  '"arguments":{"text":"hello"}}}';
const SMALL_LINES = 10_000;
const small = chunked(new TextEncoder().encode(`${smallLine}\n`.repeat(SMALL_LINES)));
const oneMiB = chunked(longLine(MiB));
const eightMiB = chunked(longLine(8 * MiB));

Deno.bench({
  name: `${SMALL_LINES} lines of ${smallLine.length} bytes`,
  group: "line splitter: small lines",
}, async () => {
  await expectLines(small, SMALL_LINES, smallLine.length);
});

Deno.bench({
  name: "one 1 MiB line",
  group: "line splitter: one long line",
  baseline: true,
}, async () => {
  await expectLines(oneMiB, 1, MiB);
});

Deno.bench({ name: "one 8 MiB line", group: "line splitter: one long line" }, async () => {
  await expectLines(eightMiB, 1, 8 * MiB);
});

Deno.bench({
  name: "reference splitter, one 1 MiB line",
  group: "line splitter: reference",
  baseline: true,
}, async () => {
  await expectLines(oneMiB, 1, MiB, new ReferenceSplitter());
});

Deno.bench({
  name: "reference splitter, one 8 MiB line",
  group: "line splitter: reference",
}, async () => {
  await expectLines(eightMiB, 1, 8 * MiB, new ReferenceSplitter());
});
