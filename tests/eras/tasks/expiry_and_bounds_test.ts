/**
 * Tasks and their store as a client sees them: expiry by TTL (injected
 * clock), the store's bounds, and a store slower than the handler.
 */

import assert from "node:assert/strict";
import { defineTool } from "../../../mod.ts";
import { MemoryTaskStore, type TaskStore } from "../../../tasks.ts";
import { errorOf, isRecord, resultOf } from "../../_helpers/helpers.ts";
import {
  codeOf,
  CONFIRM,
  gatedTool,
  getTask,
  send,
  server,
  startTask,
  waitFor,
} from "../../_helpers/task_helpers.ts";

Deno.test("expiry: a task is gone once its TTL has passed (injected clock)", async () => {
  let now = 1_000_000;
  const clock = () => now;
  const gated = gatedTool();
  const s = server({
    tools: [gated.tool],
    now: clock,
    tasks: { ttlMs: 5000, store: new MemoryTaskStore({ now: clock }) },
  });
  gated.release("done");
  const id = await startTask(s, "gated");
  const done = await waitFor(s, id, "completed");
  assert.equal(done.ttlMs, 5000);
  assert.equal(done.createdAt, new Date(1_000_000).toISOString());
  now += 4999;
  assert.equal((await getTask(s, id)).status, "completed");
  now += 1;
  const error = errorOf(await send(s, "tasks/get", { taskId: id }));
  assert.equal(error.code, -32602);
  await s.close();
});

Deno.test("a running task that expires stops at its next change: its handler's signal aborts", async () => {
  let now = 0;
  const clock = () => now;
  let step: () => void = () => {};
  let aborted = false;
  const s = server({
    now: clock,
    tasks: { ttlMs: 1000, store: new MemoryTaskStore({ now: clock }) },
    tools: [defineTool({
      name: "slow",
      description: "x",
      task: "optional",
      inputSchema: { type: "object" },
      handler: async (_args, ctx) => {
        await new Promise<void>((resolve) => (step = resolve));
        ctx.progress(1);
        return await new Promise<string>((_resolve, reject) => {
          ctx.signal.addEventListener("abort", () => {
            aborted = true;
            reject(ctx.signal.reason);
          });
        });
      },
    })],
  });
  const id = await startTask(s, "slow");
  now = 1000;
  step();
  for (let i = 0; i < 20 && !aborted; i++) await Promise.resolve();
  assert.equal(aborted, true);
  assert.equal(codeOf(await send(s, "tasks/get", { taskId: id })), -32602);
  await s.close();
});

Deno.test("a full store refuses new tasks with -32603 and keeps the server serving", async () => {
  const gated = gatedTool();
  const s = server({ tools: [gated.tool], tasks: { store: new MemoryTaskStore({ maxTasks: 1 }) } });
  const id = await startTask(s, "gated");
  const error = errorOf(await send(s, "tools/call", { name: "gated", arguments: {} }));
  assert.equal(error.code, -32603);
  assert.equal((await getTask(s, id)).status, "working");
  await s.close();
});

Deno.test("a result larger than the store's bytes fails the task, not the server", async () => {
  const s = server({
    tasks: { store: new MemoryTaskStore({ maxBytes: 2048 }) },
    tools: [defineTool({
      name: "big",
      description: "x",
      task: "optional",
      inputSchema: { type: "object" },
      handler: async () => {
        await Promise.resolve();
        return "x".repeat(5000);
      },
    })],
  });
  const task = await waitFor(s, await startTask(s, "big"), "failed");
  assert.ok(isRecord(task.error) && task.error.code === -32603);
  assert.ok(!("result" in task));
  await s.close();
});

Deno.test("a task waiting for input past its TTL is stopped at the next lookup, leaving nothing behind", async () => {
  let now = 0;
  const clock = () => now;
  let ended: unknown;
  const s = server({
    now: clock,
    tasks: { ttlMs: 1000, store: new MemoryTaskStore({ now: clock }) },
    tools: [defineTool({
      name: "asking",
      description: "x",
      task: "optional",
      inputSchema: { type: "object" },
      handler: async (_args, ctx) => {
        try {
          return (await ctx.elicit("ok?", CONFIRM)).action;
        } catch (error) {
          ended = error;
          throw error;
        }
      },
    })],
  });
  const id = await startTask(s, "asking");
  await waitFor(s, id, "input_required");
  now = 1000;
  assert.equal(codeOf(await send(s, "tasks/get", { taskId: id })), -32602);
  await Promise.resolve();
  assert.ok(ended instanceof Error && /expired/.test(ended.message));
  await s.close();
});

Deno.test("with a slow store, what the handler does before the task is kept waits for it", async () => {
  const inner = new MemoryTaskStore();
  const slow: TaskStore = {
    create: async (task) => {
      // A shared store's round trip: the handler runs on meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 0));
      await inner.create(task);
    },
    get: (id) => inner.get(id),
    update: (id, patch) => inner.update(id, patch),
    delete: (id) => inner.delete(id),
    expire: () => inner.expire(),
    close: () => inner.close(),
  };
  const s = server({
    tasks: { store: slow },
    tools: [defineTool({
      name: "eager",
      description: "x",
      task: "optional",
      inputSchema: { type: "object" },
      handler: async (_args, ctx) => {
        ctx.progress(1, 2, "started");
        return (await ctx.elicit("ok?", CONFIRM)).action;
      },
    })],
  });
  const id = await startTask(s, "eager");
  const task = await waitFor(s, id, "input_required");
  assert.ok(isRecord(task.inputRequests) && Object.keys(task.inputRequests).length === 1);
  const [key = ""] = Object.keys(task.inputRequests);
  resultOf(
    await send(s, "tasks/update", { taskId: id, inputResponses: { [key]: { action: "decline" } } }),
  );
  const done = await waitFor(s, id, "completed");
  assert.deepEqual(done.result, { content: [{ type: "text", text: "decline" }] });
  await s.close();
});
