/**
 * The scale fixture (`tests/fixtures/scale_server.ts`) as a real server
 * process over HTTP on a free loopback port, and the 2026-07-28 requests the
 * multi-instance tests, the telemetry test and the instances benchmark send
 * it.
 */

const FIXTURE = new URL("../fixtures/scale_server.ts", import.meta.url).pathname;

/** A running instance of the scale fixture. */
export interface ScaleInstance {
  /** Its MCP endpoint. */
  readonly url: string;
  /** Everything it wrote to stderr so far. */
  stderr(): string;
  /** Sends SIGTERM and waits for the process and its stderr to end. */
  stop(): Promise<void>;
}

/** A loopback port nothing listens on right now. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr;
  listener.close();
  return port;
}

/** Starts the fixture with `args` (and `env`) and resolves once it says it is ready. */
export async function startScaleServer(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<ScaleInstance> {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-kv", FIXTURE, "--http", `127.0.0.1:${port}`, ...args],
    env,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let text = "";
  const ready = Promise.withResolvers<string>();
  const pump = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
      text += chunk;
      const match = /scale: ready (\S+)/.exec(text);
      if (match?.[1] !== undefined) ready.resolve(match[1]);
    }
    ready.reject(new Error(`the server exited before it was ready:\n${text}`));
  })();
  const stop = async (): Promise<void> => {
    child.kill("SIGTERM");
    await child.status;
    await pump.catch(() => undefined);
  };
  const timer = setTimeout(() => ready.reject(new Error(`not ready in 30 s:\n${text}`)), 30_000);
  try {
    const url = await ready.promise;
    return { url, stderr: () => text, stop };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** Options of {@linkcode postModern}. */
export interface PostOptions {
  /** The request id. @default {1} */
  id?: number;
  /** Aborts the request. */
  signal?: AbortSignal;
}

/**
 * POSTs one 2026-07-28 request: its `_meta` is `meta`, and the standard
 * headers mirror the method and the tool, prompt or task it names.
 */
export async function postModern(
  url: string,
  method: string,
  params: Record<string, unknown>,
  meta: Record<string, unknown>,
  options: PostOptions = {},
): Promise<Response> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": method,
  };
  const name = params.name ?? params.taskId;
  if (typeof name === "string") headers["mcp-name"] = name;
  const init: RequestInit = {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: options.id ?? 1,
      method,
      params: { ...params, _meta: meta },
    }),
  };
  if (options.signal !== undefined) init.signal = options.signal;
  return await fetch(url, init);
}
