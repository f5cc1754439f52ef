/**
 * Throughput of two server instances sharing one Redis against one instance
 * on the same Redis (issue 17): the fixture server over HTTP on loopback,
 * every call rate limited on the store, a fixed number of calls from a fixed
 * number of concurrent clients spread round-robin over the instances.
 *
 * Run: `WARDEN_TEST_REDIS_URL=redis://127.0.0.1:6379/0 deno run -A tests/bench/instances.ts [calls] [clients]`
 *
 * @module
 */

const url = Deno.env.get("WARDEN_TEST_REDIS_URL");
if (url === undefined) {
  console.error("instances: set WARDEN_TEST_REDIS_URL to a Redis to share");
  Deno.exit(2);
}
const CALLS = Number(Deno.args[0] ?? 2000);
const CLIENTS = Number(Deno.args[1] ?? 16);
const FIXTURE = new URL("../fixtures/scale_server.ts", import.meta.url).pathname;
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

interface Instance {
  url: string;
  stop(): Promise<void>;
}

async function start(policy: string): Promise<Instance> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      FIXTURE,
      "--http",
      `127.0.0.1:${port}`,
      "--store",
      url ?? "",
      "--policy",
      policy,
    ],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let text = "";
  for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
    text += chunk;
    const match = /scale: ready (\S+)/.exec(text);
    if (match?.[1] !== undefined) {
      return {
        url: match[1],
        stop: async () => {
          child.kill("SIGTERM");
          await child.status;
        },
      };
    }
  }
  throw new Error(`the server exited:\n${text}`);
}

async function call(target: string, id: number): Promise<void> {
  const response = await fetch(target, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "get_order",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "get_order", arguments: { id: "1" }, _meta: META },
    }),
  });
  const reply = await response.json();
  if (reply.result === undefined) throw new Error(`refused: ${JSON.stringify(reply)}`);
}

async function run(instances: readonly Instance[]): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    while (next < CALLS) {
      const id = next++;
      await call(instances[id % instances.length]?.url ?? "", id);
    }
  }));
  return CALLS / ((performance.now() - started) / 1000);
}

const dir = await Deno.makeTempDir();
const policy = `${dir}/policy.json`;
await Deno.writeTextFile(
  policy,
  JSON.stringify({
    rateLimit: { rules: [{ scope: "tool", capacity: 1e12, refillPerSecond: 1e12 }] },
  }),
);
const a = await start(policy);
const b = await start(policy);
try {
  await run([a, b]); // warm-up: connections, script load, JIT
  const results: [string, number][] = [];
  for (let round = 0; round < 3; round++) {
    results.push(["one instance", await run([a])]);
    results.push(["two instances", await run([a, b])]);
  }
  console.log(`| setup (${CALLS} calls, ${CLIENTS} clients, Redis rate limit) | calls/s |`);
  console.log("| --- | --- |");
  for (const [name, rate] of results) console.log(`| ${name} | ${rate.toFixed(0)} |`);
} finally {
  await a.stop();
  await b.stop();
  await Deno.remove(dir, { recursive: true });
}
