/**
 * Reads where an audit file ends: its last complete line, read backwards
 * in blocks so a long log costs only its tail, and whether the file ends
 * inside a line. A new run continues the chain of that last line.
 *
 * @module
 */

import type { LogTail } from "./chain_writer.ts";
import type { ChainLink } from "./chain.ts";

const BLOCK_BYTES = 64 * 1024;
/** How far back a last line is looked for; a longer line is not one this log wrote. */
const MAX_SCAN_BYTES = 16 * 1024 * 1024;
const LINE_FEED = 0x0a;
const HEX64 = /^[0-9a-f]{64}$/;
/** A chain id as a run makes it (`crypto.randomUUID()`): anything else did not come from one. */
const CHAIN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The chain link a line names, if it is a chained audit line as a run writes one. */
export function chainLinkOf(line: string): ChainLink | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const chain: unknown = Reflect.get(value, "chain");
  const seq: unknown = Reflect.get(value, "seq");
  const hash: unknown = Reflect.get(value, "hash");
  // The genesis copies these into its line: a tampered tail must not bring raw U+2028, a line
  // over the bound, or a seq the next ones cannot follow (verify reports that line anyway).
  if (typeof chain !== "string" || !CHAIN_ID.test(chain)) return undefined;
  if (typeof seq !== "number" || !Number.isSafeInteger(seq + 1) || seq < 0) return undefined;
  if (typeof hash !== "string" || !HEX64.test(hash)) return undefined;
  return { chain, seq, hash };
}

function isNotFound(error: unknown): boolean {
  return typeof error === "object" && error !== null && Reflect.get(error, "code") === "ENOENT";
}

/**
 * Where the audit file at `path` ends. A missing or empty file ends nowhere.
 *
 * @throws {Error} The file exists but cannot be read (it needs read permission).
 */
export async function readLogTail(path: string): Promise<LogTail> {
  const { open } = await import("node:fs/promises");
  let file;
  try {
    file = await open(path, "r");
  } catch (error) {
    if (isNotFound(error)) return { last: undefined, needsNewline: false };
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`Cannot read the end of audit file ${path} to continue its chain: ${reason}`);
  }
  try {
    const { size } = await file.stat();
    if (size === 0) return { last: undefined, needsNewline: false };
    const tail = await readBackwards(file, size);
    const end = tail.lastIndexOf(LINE_FEED);
    const needsNewline = end !== tail.length - 1;
    if (end === -1) return { last: undefined, needsNewline };
    const start = tail.lastIndexOf(LINE_FEED, end - 1) + 1;
    const line = new TextDecoder().decode(tail.subarray(start, end));
    return { last: chainLinkOf(line), needsNewline };
  } finally {
    await file.close();
  }
}

/** The file's last bytes: enough to hold its last complete line (or all of it). */
async function readBackwards(
  file: { read(b: Uint8Array, o: number, l: number, p: number): Promise<{ bytesRead: number }> },
  size: number,
): Promise<Uint8Array> {
  let tail = new Uint8Array(0);
  let position = size;
  while (position > 0 && tail.length < MAX_SCAN_BYTES) {
    const length = Math.min(BLOCK_BYTES, position);
    position -= length;
    const block = new Uint8Array(length + tail.length);
    const { bytesRead } = await file.read(block, 0, length, position);
    if (bytesRead !== length) throw new Error("Cannot read the end of the audit file: it shrank");
    block.set(tail, length);
    tail = block;
    if (completeLastLine(tail)) break;
  }
  return tail;
}

/** Whether `bytes` holds a line feed before the one that ends its last complete line. */
function completeLastLine(bytes: Uint8Array): boolean {
  const end = bytes.lastIndexOf(LINE_FEED);
  return end > 0 && bytes.lastIndexOf(LINE_FEED, end - 1) !== -1;
}
