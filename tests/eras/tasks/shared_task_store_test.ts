// Tasks on the shared store (issue 17): a task created through one server is
// polled, answered and cancelled through another sharing the same store. In
// process over one MemoryStore, over Redis when WARDEN_TEST_REDIS_URL is set,
// and over one Deno KV file when Deno.openKv is available (--unstable-kv).
import assert from "node:assert/strict";
import { createServer, defineTool, type Server } from "../../../mod.ts";
import { createMemoryPair } from "../../../testing.ts";
import { MemoryStore, openStore, type SharedStore } from "../../../store.ts";
import { SharedTaskStore, type TaskRecord } from "../../../tasks.ts";
import { isRecord } from "../../_helpers/helpers.ts";
import { codeOf, gatedTool, getTask, send, startTask } from "../../_helpers/task_helpers.ts";

const REDIS_URL = Deno.env.get("WARDEN_TEST_REDIS_URL");
if (REDIS_URL === undefined) {
  console.warn(
    "shared_task_store_test: WARDEN_TEST_REDIS_URL is not set; the Redis cases are skipped",
  );
}
const HAS_KV = "openKv" in Deno;
if (!HAS_KV) {
  console.warn("shared_task_store_test: Deno.openKv is missing; the KV cases are skipped");
}

/** Two stores over the same shared state, one per server, and how to clean up. */
interface Backend {
  readonly name: string;
  readonly ignore: boolean;
  readonly open: () => Promise<{ a: SharedStore; b: SharedStore; done: () => Promise<void> }>;
}

const BACKENDS: Backend[] = [
  {
    name: "memory",
    ignore: false,
    open: () => {
      const store = new MemoryStore();
      return Promise.resolve({ a: store, b: store, done: () => Promise.resolve() });
    },
  },
  {
    name: "redis",
    ignore: REDIS_URL === undefined,
    open: () =>
      Promise.resolve({
        a: openStore(REDIS_URL ?? ""),
        b: openStore(REDIS_URL ?? ""),
        done: () => Promise.resolve(),
      }),
  },
  {
    name: "kv",
    ignore: !HAS_KV,
    open: async () => {
      const dir = await Deno.makeTempDir();
      const url = `kv:${dir}/tasks.kv`;
      return {
        a: openStore(url),
        b: openStore(url),
        done: () => Deno.remove(dir, { recursive: true }),
      };
    },
  },
];

const CONFIRM = {
  type: "object" as const,
  properties: { confirm: { type: "boolean" as const } },
  required: ["confirm"],
};

/** A tool that asks once and answers with what it was told. */
function askingTool() {
  return defineTool({
    name: "asking",
    description: "Asks for confirmation, then reports it",
    task: "optional",
    inputSchema: { type: "object", properties: {} },
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit("Sure?", CONFIRM, { inputKey: "sure" });
      return `answer: ${JSON.stringify(answer)}`;
    },
  });
}

function serverOn(store: SharedStore, tools: ReturnType<typeof defineTool>[]): Server {
  return createServer({ name: "shared", version: "1.0.0", store, tools });
}

/** Polls (10 ms apart: the backends deliver on their own schedule) until `check` holds. */
async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`Timed out waiting for ${what}`);
}

for (const backend of BACKENDS) {
  Deno.test({
    name: `shared tasks (${backend.name}): created on A, polled and cancelled through B`,
    ignore: backend.ignore,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: async () => {
      const { a: storeA, b: storeB, done } = await backend.open();
      const onA = gatedTool();
      const onB = gatedTool();
      const a = serverOn(storeA, [onA.tool]);
      const b = serverOn(storeB, [onB.tool]);
      try {
        const id = await startTask(a, "gated");
        const seenOnB = await getTask(b, id);
        assert.equal(seenOnB.status, "working");
        assert.equal(seenOnB.taskId, id);

        const cancelled = await send(b, "tasks/cancel", { taskId: id });
        assert.ok(isRecord(cancelled) && isRecord(cancelled.result), JSON.stringify(cancelled));
        // B reports the cancel at once; A's handler hears it through the store.
        assert.equal((await getTask(b, id)).status, "cancelled");
        await until("the handler on A to see its signal abort", () => onA.seen.aborted);
        assert.equal(onB.seen.runs, 0);
        // The handler's rejection on A does not turn the cancel into a failure.
        await until(
          "A to record the cancel",
          async () => (await getTask(a, id)).status === "cancelled",
        );
        onA.release("too late");
        await new Promise((resolve) => setTimeout(resolve, 20));
        assert.equal((await getTask(b, id)).status, "cancelled");
      } finally {
        await a.close();
        await b.close();
        await done();
      }
    },
  });

  Deno.test({
    name: `shared tasks (${backend.name}): a result on A is read on B; unknown ids are -32602`,
    ignore: backend.ignore,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: async () => {
      const { a: storeA, b: storeB, done } = await backend.open();
      const onA = gatedTool();
      const a = serverOn(storeA, [onA.tool]);
      const b = serverOn(storeB, [gatedTool().tool]);
      try {
        const id = await startTask(a, "gated");
        onA.release("done on A");
        await until(
          "B to see the task completed",
          async () => (await getTask(b, id)).status === "completed",
        );
        const task = await getTask(b, id);
        assert.ok(isRecord(task.result), JSON.stringify(task));
        assert.match(JSON.stringify(task.result), /done on A/);
        // A cancel after the end changes nothing.
        await send(b, "tasks/cancel", { taskId: id });
        assert.equal((await getTask(a, id)).status, "completed");

        assert.equal(codeOf(await send(b, "tasks/get", { taskId: "no-such-task" })), -32602);
        assert.equal(codeOf(await send(b, "tasks/cancel", { taskId: "no-such-task" })), -32602);
      } finally {
        await a.close();
        await b.close();
        await done();
      }
    },
  });

  Deno.test({
    name: `shared tasks (${backend.name}): input asked on A is answered through B`,
    ignore: backend.ignore,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: async () => {
      const { a: storeA, b: storeB, done } = await backend.open();
      const a = serverOn(storeA, [askingTool()]);
      const b = serverOn(storeB, [askingTool()]);
      try {
        const id = await startTask(a, "asking");
        await until(
          "B to see the ask",
          async () => (await getTask(b, id)).status === "input_required",
        );
        const task = await getTask(b, id);
        assert.ok(isRecord(task.inputRequests) && "sure" in task.inputRequests);
        await send(b, "tasks/update", {
          taskId: id,
          inputResponses: { sure: { action: "accept", content: { confirm: true } } },
        });
        await until(
          "B to see the answer used",
          async () => (await getTask(b, id)).status === "completed",
        );
        assert.match(JSON.stringify((await getTask(b, id)).result), /confirm/);
      } finally {
        await a.close();
        await b.close();
        await done();
      }
    },
  });
}

Deno.test("SharedTaskStore: the first terminal status claimed is the end, on every reader", async () => {
  let now = 1_000;
  const shared = new MemoryStore({ now: () => now });
  const owner = new SharedTaskStore(shared, { now: () => now });
  const other = new SharedTaskStore(shared, { now: () => now });
  const task: TaskRecord = {
    taskId: "t1",
    principal: null,
    tool: "gated",
    status: "working",
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: 5_000,
    pollIntervalMs: 1000,
  };
  await owner.create(task);
  await assert.rejects(owner.create(task), /id t1 is taken/);
  // Every interleaving of the owner's completion and another instance's cancel.
  const cancelFirst = await other.update("t1", { status: "cancelled", statusMessage: "stop" });
  assert.equal(cancelFirst?.status, "cancelled");
  const progress = await owner.update("t1", { statusMessage: "50%" });
  assert.equal(progress?.status, "cancelled");
  const completion = await owner.update("t1", { status: "completed", result: { content: [] } });
  assert.equal(completion?.status, "cancelled");
  assert.equal((await other.get("t1"))?.status, "cancelled");
  assert.equal((await other.get("t1"))?.result, undefined);

  // The owner's progress write racing a claimed cancel: the reader still sees the cancel.
  await owner.create({ ...task, taskId: "t2" });
  const stale = await shared.get("warden:task:t2");
  await other.update("t2", { status: "cancelled", statusMessage: "stop" });
  await shared.set("warden:task:t2", stale ?? "");
  assert.equal((await owner.get("t2"))?.status, "cancelled");
  assert.equal((await owner.update("t2", { status: "completed" }))?.status, "cancelled");

  // Completion first: a later cancel is no change.
  await owner.create({ ...task, taskId: "t3" });
  await owner.update("t3", { status: "completed", result: { content: [] } });
  const late = await other.update("t3", { status: "cancelled" });
  assert.equal(late?.status, "completed");
  assert.ok(isRecord(late?.result));

  // The TTL is the keys' expiry; a deleted task is unknown.
  now += 5_000;
  assert.equal(await other.get("t3"), undefined);
  assert.equal(await owner.update("t3", { statusMessage: "x" }), undefined);
  now = 1_000;
  await owner.create({ ...task, taskId: "t4", createdAt: now });
  await owner.delete("t4");
  assert.equal(await other.get("t4"), undefined);
  assert.equal(await owner.expire(), 0);
});

for (const backend of BACKENDS) {
  Deno.test({
    name: `shared tasks (${backend.name}): a principal's quota holds across two instances`,
    ignore: backend.ignore,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: async () => {
      const { a: storeA, b: storeB, done } = await backend.open();
      // A principal of its own: a Redis database outlives the run.
      const alice = `alice-${crypto.randomUUID()}`;
      const bob = `bob-${crypto.randomUUID()}`;
      const on = (store: SharedStore) =>
        createServer({
          name: "shared",
          version: "1.0.0",
          store,
          quotas: { tasks: 2 },
          tasks: { ttlMs: 60_000 },
          tools: [gatedTool().tool],
        });
      const a = on(storeA);
      const b = on(storeB);
      const as = startAs;
      try {
        assert.equal(await as(a, alice), "task");
        assert.equal(await as(b, alice), "task");
        assert.equal(await as(a, alice), -31002);
        assert.equal(await as(b, alice), -31002);
        assert.equal(await as(b, bob), "task");
        // Racing starts on both instances never take more than the quota.
        const carol = `carol-${crypto.randomUUID()}`;
        const raced = await Promise.all([a, b, a, b, a, b].map((server) => as(server, carol)));
        assert.equal(raced.filter((r) => r === "task").length, 2, JSON.stringify(raced));
        assert.equal(raced.filter((r) => r === -31002).length, 4, JSON.stringify(raced));
      } finally {
        await a.close();
        await b.close();
        await storeA.close();
        await storeB.close();
        await done();
      }
    },
  });
}

/** Starts the gated tool as a task for `principal` on a connection of its own. */
async function startAs(server: Server, principal: string): Promise<string | number> {
  const [client, end] = createMemoryPair();
  const served = server.connect(end, { principal });
  const writer = client.writable.getWriter();
  const reader = client.readable.getReader();
  await writer.write(JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: {
      name: "gated",
      arguments: {},
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
          extensions: { "io.modelcontextprotocol/tasks": {} },
        },
      },
    },
  }));
  const { value } = await reader.read();
  const reply: unknown = JSON.parse(String(value));
  await writer.close();
  reader.releaseLock();
  await client.readable.cancel().catch(() => {});
  await served.catch(() => {});
  if (isRecord(reply) && isRecord(reply.result)) return String(reply.result.resultType);
  return codeOf(reply);
}
