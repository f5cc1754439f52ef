/**
 * The stdio ceiling: the fastest NDJSON loop Deno allows, answering what the
 * benchmark asks and nothing more. It reads stdin with `Deno.stdin.read` into
 * one reused buffer, splits lines in place (only the unfinished tail of a
 * chunk is copied, into a second reused buffer), decodes and `JSON.parse`s
 * each line, answers `initialize`, `tools/call` of `echo` (one text block with
 * the text sent, what a minimal tool gives) and `resources/subscribe` (kept in
 * a set, as any server must), and writes the replies to one chunk with
 * `Deno.stdout.writeSync`, once per chunk. Every other stdio figure of the
 * benchmark is a ratio to this one.
 *
 * Run: `deno run tests/bench/servers/ceiling_stdio.ts`
 *
 * @module
 */

const READ_BYTES = 64 * 1024;
const NEWLINE = 0x0a;
const decoder = new TextDecoder();
const encoder = new TextEncoder();
const subscriptions = new Set<string>();

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The reply to one parsed message, as JSON text, or "" for notifications. */
function answer(message: unknown): string {
  if (!isRecord(message) || message.id === undefined) return "";
  const { id, method } = message;
  const params = isRecord(message.params) ? message.params : {};
  let result: unknown;
  if (method === "tools/call") {
    const args = isRecord(params.arguments) ? params.arguments : {};
    if (params.name === "echo" && typeof args.text === "string") {
      result = { content: [{ type: "text", text: args.text }] };
    }
  } else if (method === "initialize") {
    result = {
      protocolVersion: params.protocolVersion,
      capabilities: { tools: {}, resources: { subscribe: true } },
      serverInfo: { name: "ceiling", version: "1.0.0" },
    };
  } else if (method === "resources/subscribe" && typeof params.uri === "string") {
    subscriptions.add(params.uri);
    result = {};
  }
  const reply = result === undefined
    ? { jsonrpc: "2.0", id, error: { code: -32601, message: "Method not found" } }
    : { jsonrpc: "2.0", id, result };
  return JSON.stringify(reply);
}

function writeAll(bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) offset += Deno.stdout.writeSync(bytes.subarray(offset));
}

const input = new Uint8Array(READ_BYTES);
/** The unfinished line carried over from earlier chunks, in a buffer that only grows. */
let carry = new Uint8Array(READ_BYTES);
let carried = 0;

function keep(bytes: Uint8Array): void {
  if (carried + bytes.length > carry.length) {
    const grown = new Uint8Array(Math.max(carry.length * 2, carried + bytes.length));
    grown.set(carry.subarray(0, carried));
    carry = grown;
  }
  carry.set(bytes, carried);
  carried += bytes.length;
}

while (true) {
  const read = await Deno.stdin.read(input);
  if (read === null) break;
  let replies = "";
  let start = 0;
  for (let end = input.indexOf(NEWLINE, start); end !== -1 && end < read;) {
    let line: Uint8Array = input.subarray(start, end);
    if (carried > 0) {
      keep(line);
      line = carry.subarray(0, carried);
      carried = 0;
    }
    start = end + 1;
    if (line.length > 0) {
      const reply = answer(JSON.parse(decoder.decode(line)));
      if (reply !== "") replies += `${reply}\n`;
    }
    end = input.indexOf(NEWLINE, start);
  }
  if (start < read) keep(input.subarray(start, read));
  if (replies !== "") writeAll(encoder.encode(replies));
}
