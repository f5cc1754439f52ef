/**
 * The client side of one spawned MCP server's stdio, for the benchmark
 * harness: frames written in batches, replies split into lines and parsed,
 * every echo checked, and failures that name the server and quote the end
 * of its stderr.
 *
 * @module
 */

/** A server to measure: a command run as is, with no shell in between (its PID is the server's). */
export interface ServerSpec {
  /** A short label for tables and error messages. */
  readonly name: string;
  /** The executable. */
  readonly command: string;
  /** Its arguments. */
  readonly args: readonly string[];
  /** The working directory; the harness's own when absent. */
  readonly cwd?: string;
  /**
   * Speak revision 2026-07-28: no handshake (cold start is timed to the
   * `server/discover` reply) and every call carries the per-request `_meta`.
   */
  readonly modern?: boolean;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const NEWLINE = 0x0a;
const STDERR_TAIL = 2000;
const EXIT_WAIT_MS = 5000;

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "warden-bench", version: "1.0.0" },
  },
});
const INITIALIZED = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });

/** The `_meta` every 2026-07-28 request carries, as a JSON fragment. */
const MODERN_META =
  `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`;
const DISCOVER = `{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{${MODERN_META}}}`;

/** One `tools/call` of `echo`, framed (in the 2026-07-28 era with its `_meta`). */
function callFrame(id: number, text: string, modern: boolean): string {
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":${
    JSON.stringify(text)
  }}${modern ? `,${MODERN_META}` : ""}}}\n`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function excerpt(line: string): string {
  return line.length > 300 ? `${line.slice(0, 300)}… (${line.length} chars)` : line;
}

/**
 * One spawned server and the client side of its stdio: frames written in
 * batches (everything sent in one turn of the event loop goes in one write),
 * replies split into lines, parsed and handed to the phase that waits for them.
 */
export class Session {
  readonly #spec: ServerSpec;
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  #outgoing = "";
  #flushScheduled = false;
  #stderr = "";
  #onMessage: (message: unknown, line: string) => void = (_message, line) => {
    this.fail(new Error(`unexpected message: ${excerpt(line)}`));
  };
  #onFailure: (error: Error) => void = () => {};
  #failure: Error | undefined;
  #closing = false;
  /** Resolves when stdout ends. */
  readonly #reading: Promise<void>;
  readonly #draining: Promise<void>;

  /** Whether the session speaks revision 2026-07-28. */
  get modern(): boolean {
    return this.#spec.modern === true;
  }

  constructor(spec: ServerSpec) {
    this.#spec = spec;
    const options: Deno.CommandOptions = {
      args: [...spec.args],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    };
    if (spec.cwd !== undefined) options.cwd = spec.cwd;
    this.#child = new Deno.Command(spec.command, options).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.#reading = this.#read();
    this.#draining = this.#drainStderr();
  }

  get pid(): number {
    return this.#child.pid;
  }

  /** Queues a frame (with its newline); frames queued in one turn go out in one write. */
  send(frame: string): void {
    this.#outgoing += frame;
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    queueMicrotask(() => {
      this.#flushScheduled = false;
      const bytes = encoder.encode(this.#outgoing);
      this.#outgoing = "";
      this.#writer.write(bytes).catch((error) =>
        void this.fail(new Error(`cannot write: ${error}`))
      );
    });
  }

  /** Resolves with the first message that arrives (and the time it arrived). */
  next(timeoutMs: number, what: string): Promise<{ message: unknown; at: number }> {
    return this.#waitFor(timeoutMs, what, (resolve) => {
      this.#onMessage = (message) => resolve({ message, at: performance.now() });
    });
  }

  /**
   * Makes `calls` echo calls of `textFor(i)` with `window` in flight, checking
   * every reply; resolves with the elapsed milliseconds.
   */
  echo(
    calls: number,
    window: number,
    textFor: (index: number) => string,
    timeoutMs: number,
    firstId: number,
  ): Promise<number> {
    const inFlight = new Map<number, string>();
    return this.exchange(calls, window, timeoutMs, firstId, (id, index) => {
      const text = textFor(index);
      inFlight.set(id, text);
      return callFrame(id, text, this.#spec.modern === true);
    }, (message) => checkEcho(message, inFlight));
  }

  /**
   * Sends `calls` requests framed by `frameFor(id, index)` with `window` in
   * flight; `check` says what is wrong with a reply (undefined when nothing
   * is). Resolves with the elapsed milliseconds.
   */
  exchange(
    calls: number,
    window: number,
    timeoutMs: number,
    firstId: number,
    frameFor: (id: number, index: number) => string,
    check: (message: unknown) => string | undefined,
  ): Promise<number> {
    return this.#waitFor(timeoutMs, `${calls} calls`, (resolve, reject) => {
      let sent = 0;
      let done = 0;
      const sendNext = (): void => {
        this.send(frameFor(firstId + sent, sent));
        sent++;
      };
      const started = performance.now();
      this.#onMessage = (message, line) => {
        const problem = check(message);
        if (problem !== undefined) return reject(new Error(`${problem}: ${excerpt(line)}`));
        if (++done === calls) return resolve(performance.now() - started);
        if (sent < calls) sendNext();
      };
      for (let i = 0; i < Math.min(window, calls); i++) sendNext();
    });
  }

  /** Closes stdin, waits for stdout to end and the process to exit (killing it if it lingers). */
  async close(): Promise<void> {
    this.#closing = true;
    this.#onMessage = (_message, line) =>
      void this.fail(new Error(`unexpected message: ${excerpt(line)}`));
    await this.#writer.close().catch(() => {});
    let timer: ReturnType<typeof setTimeout> | undefined;
    const lingering = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), EXIT_WAIT_MS);
    });
    const exited = await Promise.race([this.#child.status, lingering]);
    clearTimeout(timer);
    if (exited === "timeout") this.kill();
    await this.#child.status;
    await Promise.allSettled([this.#reading, this.#draining]);
    if (this.#failure !== undefined) throw this.#failure;
  }

  /** Ends the process at once, for cleanup after a failure. */
  kill(): void {
    try {
      this.#child.kill("SIGKILL");
    } catch {
      // Already exited.
    }
  }

  /**
   * Fails whatever phase is waiting, with the server's name and the end of
   * its stderr; returns that error (the first one, if it had failed already).
   */
  fail(error: Error): Error {
    if (this.#failure !== undefined) return this.#failure;
    const stderr = this.#stderr.trim();
    this.#failure = new Error(
      `${this.#spec.name}: ${error.message}${stderr === "" ? "" : `\nserver stderr: ${stderr}`}`,
    );
    this.#onFailure(this.#failure);
    return this.#failure;
  }

  #waitFor<T>(
    timeoutMs: number,
    what: string,
    start: (resolve: (value: T) => void, reject: (error: Error) => void) => void,
  ): Promise<T> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    const { promise, resolve, reject } = Promise.withResolvers<T>();
    const timer = setTimeout(
      () => this.fail(new Error(`timed out after ${timeoutMs} ms: ${what}`)),
      timeoutMs,
    );
    this.#onFailure = reject;
    start(resolve, (error) => void this.fail(error));
    return promise.finally(() => {
      clearTimeout(timer);
      this.#onFailure = () => {};
    });
  }

  /** Splits stdout into lines, scanning each chunk once, and hands each parsed line on. */
  async #read(): Promise<void> {
    let parts: Uint8Array[] = [];
    let held = 0;
    try {
      for await (const chunk of this.#child.stdout) {
        let start = 0;
        for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
          let bytes = chunk.subarray(start, end);
          if (parts.length > 0) {
            const joined = new Uint8Array(held + bytes.length);
            let offset = 0;
            for (const part of parts) {
              joined.set(part, offset);
              offset += part.length;
            }
            joined.set(bytes, offset);
            bytes = joined;
            parts = [];
            held = 0;
          }
          start = end + 1;
          this.#line(decoder.decode(bytes));
        }
        if (start < chunk.length) {
          parts.push(chunk.slice(start));
          held += chunk.length - start;
        }
      }
    } catch (error) {
      this.fail(new Error(`cannot read stdout: ${error}`));
      return;
    }
    if (held > 0) this.fail(new Error(`stdout ended inside a line (${held} bytes)`));
    if (this.#closing) return;
    // A phase still waiting learns that no reply will come, with the last words on stderr.
    await Promise.race([this.#draining, this.#child.status]);
    this.fail(new Error("the server closed stdout"));
  }

  #line(line: string): void {
    if (line.trim() === "") return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.fail(new Error(`stdout carried a line that is not JSON: ${excerpt(line)}`));
      return;
    }
    this.#onMessage(message, line);
  }

  async #drainStderr(): Promise<void> {
    for await (const chunk of this.#child.stderr.pipeThrough(new TextDecoderStream())) {
      this.#stderr = (this.#stderr + chunk).slice(-STDERR_TAIL);
    }
  }
}
/** Why a reply is not the echo of a call in flight, or undefined when it is (and is then retired). */
function checkEcho(message: unknown, inFlight: Map<number, string>): string | undefined {
  if (!isRecord(message) || message.jsonrpc !== "2.0") return "not a JSON-RPC 2.0 message";
  const { id } = message;
  if (typeof id !== "number") return "a message without a numeric id";
  const expected = inFlight.get(id);
  if (expected === undefined) return `a reply to id ${id}, which is not in flight`;
  const { result } = message;
  if (!isRecord(result)) return `reply ${id} is not a success`;
  const content = result.content;
  if (result.isError === true || !Array.isArray(content) || content.length !== 1) {
    return `reply ${id} is not one content block`;
  }
  const [block] = content;
  if (!isRecord(block) || block.type !== "text" || block.text !== expected) {
    return `reply ${id} does not echo the text sent (${expected.length} chars)`;
  }
  inFlight.delete(id);
  return undefined;
}

function checkInitialize(message: unknown, modern: boolean): string | undefined {
  if (!isRecord(message) || message.id !== 0 || !isRecord(message.result)) {
    return `the first message is not the ${modern ? "server/discover" : "initialize"} reply`;
  }
  if (modern) {
    return Array.isArray(message.result.supportedVersions)
      ? undefined
      : "the server/discover reply lacks supportedVersions";
  }
  if (typeof message.result.protocolVersion !== "string" || !isRecord(message.result.serverInfo)) {
    return "the initialize reply lacks protocolVersion or serverInfo";
  }
  return undefined;
}
/**
 * Spawns the server and sends `initialize` at once (`server/discover` in
 * the 2026-07-28 era, which has no handshake); resolves with the ms to its reply.
 */
export async function initialize(
  session: Session,
  spawned: number,
  timeoutMs: number,
): Promise<number> {
  const modern = session.modern;
  session.send(`${modern ? DISCOVER : INITIALIZE}\n`);
  const { message, at } = await session.next(timeoutMs, "the first reply");
  const problem = checkInitialize(message, modern);
  if (problem !== undefined) {
    throw session.fail(new Error(`${problem}: ${excerpt(JSON.stringify(message) ?? "")}`));
  }
  if (!modern) session.send(`${INITIALIZED}\n`);
  return at - spawned;
}
