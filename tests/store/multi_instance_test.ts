// Two real server processes over HTTP on loopback sharing one store (issue 17):
// Redis (when WARDEN_TEST_REDIS_URL is set; .ci/run starts one) and a Deno KV file.
import assert from "node:assert/strict";
import { freePort, postModern, startScaleServer } from "../_helpers/scale_instance.ts";
import { verifyAuditLog } from "../../src/guardrails/audit/verify.ts";

const REDIS_URL = Deno.env.get("WARDEN_TEST_REDIS_URL");
if (REDIS_URL === undefined) {
  console.warn(
    "multi_instance_test: WARDEN_TEST_REDIS_URL is not set; the Redis cases are skipped",
  );
}
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "test", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
};

/** The per-request `_meta` of a client that also declares the tasks extension. */
const TASKS_META = {
  ...META,
  "io.modelcontextprotocol/clientCapabilities": {
    elicitation: {},
    extensions: { "io.modelcontextprotocol/tasks": {} },
  },
};

async function call(url: string, name: string, args: Record<string, unknown>, extra = {}) {
  const response = await postModern(url, "tools/call", { name, arguments: args, ...extra }, META);
  return await response.json();
}

/** A tasks/* request (or a task-capable tools/call) with the tasks extension declared. */
async function taskRequest(url: string, method: string, params: Record<string, unknown>) {
  const response = await postModern(url, method, params, TASKS_META);
  return await response.json();
}

/** Opens a tools listen stream on `listener`, runs `change`, and answers whether list_changed arrived. */
async function listChangeArrives(listener: string, change: () => Promise<void>): Promise<string> {
  const abort = new AbortController();
  const listen = await postModern(
    listener,
    "subscriptions/listen",
    {
      notifications: { toolsListChanged: true },
    },
    META,
    { signal: abort.signal },
  );
  assert.equal(listen.status, 200);
  const body = listen.body;
  assert.ok(body !== null);
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  const heard = (async () => {
    while (!seen.includes("notifications/tools/list_changed")) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += value;
    }
  })();
  // The acknowledgement first, so the subscription is open before the change.
  for (let i = 0; i < 100 && seen.length === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await change();
  const timer = setTimeout(() => abort.abort(), 10_000);
  await heard.catch(() => undefined);
  clearTimeout(timer);
  abort.abort();
  return seen;
}

async function withPolicy<T>(run: (policy: string, dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir();
  const policy = `${dir}/policy.jsonc`;
  await Deno.writeTextFile(
    policy,
    JSON.stringify({
      rateLimit: {
        rules: [{ scope: "tool", match: ["get_order"], capacity: 5, refillPerSecond: 0.001 }],
      },
    }),
  );
  try {
    return await run(policy, dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const backends = [
  {
    name: "redis",
    ignore: REDIS_URL === undefined,
    // A fresh database number per run would need config; a random tool name keeps runs apart.
    store: () => REDIS_URL ?? "",
  },
  { name: "kv", ignore: false, store: (dir: string) => `kv:${dir}/shared.kv` },
];

for (const backend of backends) {
  Deno.test({
    name: `two instances on ${backend.name}: rate limit exact, MRTR across, list change across`,
    ignore: backend.ignore,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn(t) {
      await withPolicy(async (policy, dir) => {
        const store = backend.store(dir);
        if (backend.name === "redis") {
          // Buckets from an earlier run would still be drained: start from none.
          const flush = new Deno.Command("redis-cli", {
            args: ["-u", store, "FLUSHDB"],
            stdout: "null",
            stderr: "null",
          });
          await flush.output().catch(() => undefined);
        }
        const a = await startScaleServer(["--store", store, "--policy", policy]);
        const b = await startScaleServer(["--store", store, "--policy", policy]);
        try {
          await t.step("10 alternating calls: exactly 5 allowed across both", async () => {
            const replies = [];
            for (let i = 0; i < 10; i++) {
              replies.push(await call((i % 2 === 0 ? a : b).url, "get_order", { id: "1" }));
            }
            // The first five pass, the last five are refused by the limit (not by an outage).
            const outcomes = replies.map((reply) =>
              reply.result !== undefined
                ? "ok"
                : reply.error?.code === -31002 && /^Rate limit exceeded/.test(reply.error.message)
                ? "limited"
                : JSON.stringify(reply)
            );
            assert.deepEqual(outcomes, [...Array(5).fill("ok"), ...Array(5).fill("limited")]);
          });

          await t.step("an MRTR round started on one completes on the other", async () => {
            const first = await call(a.url, "confirm", {});
            assert.equal(first.result?.resultType, "input_required", JSON.stringify(first));
            const [key] = Object.keys(first.result.inputRequests);
            assert.ok(key !== undefined);
            const second = await call(b.url, "confirm", {}, {
              requestState: first.result.requestState,
              inputResponses: { [key]: { action: "accept", content: { ok: true } } },
            });
            assert.equal(second.result?.content?.[0]?.text, "confirmed", JSON.stringify(second));
          });

          await t.step(
            "a task created through one is polled and cancelled through the other",
            async () => {
              const created = await taskRequest(a.url, "tools/call", {
                name: "long_job",
                arguments: {},
              });
              assert.equal(created.result?.resultType, "task", JSON.stringify(created));
              const taskId = created.result.taskId;
              const polled = await taskRequest(b.url, "tasks/get", { taskId });
              assert.equal(polled.result?.status, "working", JSON.stringify(polled));
              const ack = await taskRequest(b.url, "tasks/cancel", { taskId });
              assert.equal(ack.result?.resultType, "complete", JSON.stringify(ack));
              for (const url of [b.url, a.url]) {
                const seen = await taskRequest(url, "tasks/get", { taskId });
                assert.equal(seen.result?.status, "cancelled", JSON.stringify(seen));
              }
            },
          );

          await t.step("a list change on one reaches a listen stream on the other", async () => {
            const seen = await listChangeArrives(b.url, async () => {
              const added = await call(a.url, "add_tool", { name: `t${crypto.randomUUID()}` });
              assert.match(added.result?.content?.[0]?.text ?? "", /^added /);
            });
            assert.match(seen, /notifications\/tools\/list_changed/);
          });
        } finally {
          await a.stop();
          await b.stop();
        }
      });
    },
  });
}

function hasRedisServer(): boolean {
  try {
    return new Deno.Command("redis-server", { args: ["--version"], stdout: "null" }).outputSync()
      .success;
  } catch {
    return false;
  }
}

function startRedis(port: number, dir: string): Deno.ChildProcess {
  return new Deno.Command("redis-server", {
    args: ["--bind", "127.0.0.1", "--port", String(port), "--save", "", "--dir", dir],
    stdout: "null",
    stderr: "null",
  }).spawn();
}

Deno.test({
  name:
    "Redis stopped mid-run: calls fail closed, reported once, then recover; the audit keeps all",
  ignore: !hasRedisServer(),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await withPolicy(async (policy, dir) => {
      const port = freePort();
      let redis = startRedis(port, dir);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const audit = `${dir}/audit.jsonl`;
      let calls = 4; // the first call and the three during the outage

      const server = await startScaleServer([
        "--store",
        `redis://127.0.0.1:${port}/0`,
        "--policy",
        policy,
        "--audit",
        audit,
      ]);
      const other = await startScaleServer([
        "--store",
        `redis://127.0.0.1:${port}/0`,
        "--policy",
        policy,
      ]);
      try {
        assert.ok((await call(server.url, "get_order", { id: "1" })).result !== undefined);
        redis.kill("SIGKILL");
        await redis.status;
        const down = [];
        for (let i = 0; i < 3; i++) down.push(await call(server.url, "get_order", { id: "1" }));
        for (const reply of down) {
          assert.equal(reply.error?.code, -31002, JSON.stringify(reply));
          assert.match(reply.error.message, /shared redis store cannot be reached/);
        }
        redis = startRedis(port, dir);
        let back;
        for (let i = 0; i < 50; i++) {
          calls++;
          back = await call(server.url, "get_order", { id: "1" });
          if (back.result !== undefined) break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        assert.ok(back?.result !== undefined, JSON.stringify(back) + server.stderr());
        const log = server.stderr();
        assert.equal(log.match(/is unreachable/g)?.length, 1, log);
        assert.match(log, /is reachable again/);
        // The bus is back too: the other instance resubscribed after the restart.
        let seen = "";
        for (let i = 0; i < 20 && !seen.includes("list_changed"); i++) {
          seen = await listChangeArrives(other.url, async () => {
            calls++;
            await call(server.url, "add_tool", { name: `t${crypto.randomUUID()}` });
          });
        }
        assert.match(seen, /notifications\/tools\/list_changed/);
      } finally {
        await server.stop();
        await other.stop();
        redis.kill("SIGKILL");
        await redis.status;
      }
      // Every call answered was audited, the refused ones included.
      const text = await Deno.readTextFile(audit);
      assert.deepEqual(verifyAuditLog(text).error, undefined, "the audit file verifies");
      const lines: Record<string, unknown>[] = text.trim().split("\n").map((line) =>
        JSON.parse(line)
      ).filter((line) => !("event" in line));
      const statuses = lines.map((line) => line.outcome);
      assert.equal(statuses.filter((s) => s === "rate_limited").length >= 3, true, statuses.join());
      assert.equal(lines.length, calls);
      assert.equal(statuses[0], "ok");
      assert.equal(statuses.at(-1), "ok");
    });
  },
});
