/**
 * The in-memory task store: its bounds (count and bytes), expiry by TTL
 * with an injected clock, its sweep timer, and task ids.
 */

import assert from "node:assert/strict";
import { MemoryTaskStore, type TaskRecord, TaskStoreFullError } from "../../../tasks.ts";
import { newTaskId } from "../../../src/eras/tasks/store.ts";

function task(id: string, extra: Partial<TaskRecord> = {}): TaskRecord {
  return {
    taskId: id,
    principal: null,
    tool: "t",
    status: "working",
    createdAt: 0,
    lastUpdatedAt: 0,
    ttlMs: 1000,
    pollIntervalMs: 100,
    ...extra,
  };
}

Deno.test("the store is bounded in count: one task more is refused, a freed place is reused", async () => {
  const store = new MemoryTaskStore({ maxTasks: 2, now: () => 0 });
  await store.create(task("a"));
  await store.create(task("b"));
  await assert.rejects(store.create(task("c")), TaskStoreFullError);
  await assert.rejects(store.create(task("a")), /id a is taken/);
  await store.delete("a");
  await store.create(task("c"));
  assert.equal(store.size, 2);
  store.close();
});

Deno.test("the store is bounded in bytes, for new tasks and for growing ones", async () => {
  const store = new MemoryTaskStore({ maxBytes: 600, now: () => 0 });
  await store.create(task("a"));
  const one = store.bytes;
  assert.ok(one > 0 && one < 300);
  await store.create(task("b"));
  assert.equal(store.bytes, 2 * one);
  await assert.rejects(store.create(task("c", { tool: "x".repeat(400) })), TaskStoreFullError);
  const big = { content: [{ type: "text", text: "y".repeat(500) }] };
  await assert.rejects(store.update("a", { status: "completed", result: big }), TaskStoreFullError);
  // A refused update leaves the task as it was.
  assert.equal((await store.get("a"))?.status, "working");
  assert.equal(store.bytes, 2 * one);
  await store.delete("a");
  await store.delete("b");
  assert.equal(store.bytes, 0);
  store.close();
});

Deno.test("tasks expire by TTL from creation: on access and by expire()", async () => {
  let now = 0;
  const store = new MemoryTaskStore({ now: () => now });
  await store.create(task("a"));
  await store.create(task("b", { createdAt: 500 }));
  await store.create(task("forever", { ttlMs: null }));
  now = 999;
  assert.ok(await store.get("a"));
  now = 1000;
  assert.equal(await store.get("a"), undefined);
  assert.equal(await store.update("a", { status: "completed" }), undefined);
  now = 1500;
  assert.equal(await store.expire(), 1);
  assert.equal(store.size, 1);
  now = Number.MAX_SAFE_INTEGER;
  assert.ok(await store.get("forever"));
  store.close();
});

Deno.test("terminal tasks do not change; fields follow the status", async () => {
  const store = new MemoryTaskStore({ now: () => 0 });
  await store.create(task("a"));
  await store.update("a", {
    status: "input_required",
    inputRequests: { k: { method: "elicitation/create", params: {} } },
  });
  const working = await store.update("a", { status: "working" });
  assert.ok(working !== undefined && !("inputRequests" in working));
  await store.update("a", { status: "completed", result: { content: [] } });
  const after = await store.update("a", { status: "failed", error: { code: 1, message: "x" } });
  assert.equal(after?.status, "completed");
  assert.deepEqual(after?.result, { content: [] });
  store.close();
});

Deno.test("the sweep timer runs only while a task is kept, and close() clears it", async () => {
  // Deno's sanitizers fail this test if a timer is left behind.
  const store = new MemoryTaskStore({ sweepIntervalMs: 10, now: () => 0 });
  await store.create(task("a"));
  await store.delete("a");
  await store.create(task("b"));
  store.close();
  const second = new MemoryTaskStore({ now: () => 0 });
  await second.create(task("c"));
  await second.delete("c");
});

Deno.test("bad bounds are refused with a clear error", () => {
  assert.throws(() => new MemoryTaskStore({ maxTasks: 0 }), /maxTasks must be a positive integer/);
  assert.throws(
    () => new MemoryTaskStore({ maxBytes: 1.5 }),
    /maxBytes must be a positive integer/,
  );
});

Deno.test("task ids: 128 random bits, base64url, never repeated", () => {
  const ids = new Set<string>();
  for (let i = 0; i < 2000; i++) {
    const id = newTaskId();
    assert.match(id, /^[A-Za-z0-9_-]{22}$/);
    ids.add(id);
  }
  assert.equal(ids.size, 2000);
});

Deno.test("room() does not count a principal's expired tasks (the runner refuses a start on it)", async () => {
  let now = 0;
  const store = new MemoryTaskStore({ maxTasksPerPrincipal: 2, now: () => now });
  await store.create(task("a", { principal: "alice" }));
  await store.create(task("b", { principal: "alice" }));
  assert.deepEqual(store.room("alice"), { left: 0, limit: 2 });
  now = 1000; // both expired; no sweep has run yet
  assert.deepEqual(store.room("alice"), { left: 2, limit: 2 });
  await store.create(task("c", { principal: "alice", createdAt: 1000 }));
  assert.deepEqual(store.room("alice"), { left: 1, limit: 2 });
  store.close();
});
