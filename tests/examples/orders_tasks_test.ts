/**
 * The order desk's long-running export: a task for a client that declares
 * the tasks extension, a plain call for one that does not.
 */

import assert from "node:assert/strict";
import { createOrderDesk } from "../../examples/orders.ts";
import { isRecord, resultOf } from "../_helpers/helpers.ts";
import { spawnServer } from "../_helpers/subprocess.ts";
import { modern, send, waitForSettled } from "../_helpers/task_helpers.ts";

Deno.test("export_orders runs as a task when the client supports tasks, synchronously otherwise", async () => {
  const desk = createOrderDesk();
  const sync = resultOf(
    await send(desk, "tools/call", { name: "export_orders", arguments: {} }, {}),
  );
  assert.equal(sync.resultType, "complete");
  assert.ok(Array.isArray(sync.content));
  const text = JSON.stringify(sync.content);
  assert.match(text, /ORD-1/);
  assert.match(text, /ORD-2/);

  const handle = resultOf(
    await send(desk, "tools/call", { name: "export_orders", arguments: { status: "open" } }),
  );
  assert.equal(handle.resultType, "task");
  const done = await waitForSettled(desk, String(handle.taskId));
  assert.equal(done.status, "completed");
  assert.ok(isRecord(done.result));
  const exported = JSON.stringify(done.result.content);
  assert.match(exported, /ORD-1/);
  assert.doesNotMatch(exported, /ORD-2/);
  await desk.close();
});

Deno.test("over real stdio pipes, export_orders is a task polled with tasks/get", async () => {
  const example = spawnServer(["run", "examples/orders.ts"]);
  try {
    const call = modern(0, "tools/call", { name: "export_orders", arguments: {} });
    const handle = resultOf(
      await example.call("tools/call", call.params as Record<string, unknown>),
    );
    assert.equal(handle.resultType, "task");
    const get = modern(0, "tasks/get", { taskId: handle.taskId }).params as Record<string, unknown>;
    let task: Record<string, unknown> = {};
    for (let i = 0; i < 200 && task.status !== "completed"; i++) {
      task = resultOf(await example.call("tasks/get", get));
      if (task.status !== "completed") await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(task.status, "completed");
    assert.match(JSON.stringify(task.result), /ORD-2/);
  } finally {
    await example.cleanUp();
  }
});
