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

import { postModern, type ScaleInstance, startScaleServer } from "../_helpers/scale_instance.ts";

const url = Deno.env.get("WARDEN_TEST_REDIS_URL");
if (url === undefined) {
  console.error("instances: set WARDEN_TEST_REDIS_URL to a Redis to share");
  Deno.exit(2);
}
const CALLS = Number(Deno.args[0] ?? 2000);
const CLIENTS = Number(Deno.args[1] ?? 16);
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

async function call(target: string, id: number): Promise<void> {
  const params = { name: "get_order", arguments: { id: "1" } };
  const response = await postModern(target, "tools/call", params, META, { id });
  const reply = await response.json();
  if (reply.result === undefined) throw new Error(`refused: ${JSON.stringify(reply)}`);
}

async function run(instances: readonly ScaleInstance[]): Promise<number> {
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
const a = await startScaleServer(["--store", url, "--policy", policy]);
const b = await startScaleServer(["--store", url, "--policy", policy]);
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
