/**
 * The practical ceiling: a hand-written NDJSON loop on Deno that answers
 * `initialize` and `tools/call` of `echo` and nothing more. It reads stdin,
 * splits lines (scanning each chunk once), parses, answers, stringifies, and
 * writes the replies to one chunk of input in one write. Every other figure
 * of the benchmark is a ratio to this one.
 *
 * Run: `deno run tests/bench/servers/raw_loop.ts`
 *
 * @module
 */

const decoder = new TextDecoder();
const encoder = new TextEncoder();
const output = Deno.stdout.writable.getWriter();

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The reply to one parsed message, or undefined for notifications. */
function answer(message: unknown): unknown {
  if (!isRecord(message) || message.id === undefined) return undefined;
  const { id, method } = message;
  const params = isRecord(message.params) ? message.params : {};
  if (method === "initialize") {
    return {
      jsonrpc: "2.0",
      id,
      result: {
        protocolVersion: params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "raw-loop", version: "1.0.0" },
      },
    };
  }
  const args = isRecord(params.arguments) ? params.arguments : {};
  if (method === "tools/call" && params.name === "echo" && typeof args.text === "string") {
    return { jsonrpc: "2.0", id, result: { content: [{ type: "text", text: args.text }] } };
  }
  return { jsonrpc: "2.0", id, error: { code: -32601, message: "Method not found" } };
}

// Pieces of the unfinished line, joined once its newline arrives, so a long line costs linear time.
let parts: string[] = [];
for await (const chunk of Deno.stdin.readable) {
  const text = decoder.decode(chunk, { stream: true });
  let replies = "";
  let start = 0;
  for (let end = text.indexOf("\n", start); end !== -1; end = text.indexOf("\n", start)) {
    const line = parts.length === 0
      ? text.slice(start, end)
      : parts.join("") + text.slice(start, end);
    parts = [];
    start = end + 1;
    const reply = answer(JSON.parse(line));
    if (reply !== undefined) replies += `${JSON.stringify(reply)}\n`;
  }
  if (start < text.length) parts.push(text.slice(start));
  if (replies.length > 0) await output.write(encoder.encode(replies));
}
await output.close();
