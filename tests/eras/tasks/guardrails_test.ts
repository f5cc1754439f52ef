/**
 * The tasks extension and the guardrails, other principals, status
 * notifications and shutdown.
 */

import assert from "node:assert/strict";
import { defineTool } from "../../../mod.ts";
import {
  type AuditEntry,
  auditLog,
  callbackAuditSink,
  rateLimit,
  redaction,
} from "../../../guardrails.ts";
import { MemoryTaskStore } from "../../../tasks.ts";
import { errorOf, isRecord, resultOf } from "../../_helpers/helpers.ts";
import { connectPeer } from "../../_helpers/peer.ts";
import {
  codeOf,
  CONFIRM,
  gatedTool,
  getTask,
  modern,
  send,
  server,
  startTask,
  waitFor,
} from "../../_helpers/task_helpers.ts";

Deno.test("another principal's task looks exactly like an unknown one", async () => {
  const gated = gatedTool();
  const s = server({ tools: [gated.tool] });
  const alice = await connectPeer(s, { principal: "alice", initialize: false });
  const bob = await connectPeer(s, { principal: "bob", initialize: false });
  const call = modern(1, "tools/call", { name: "gated", arguments: {} });
  const handle = resultOf(
    await alice.request("tools/call", call.params as Record<string, unknown>),
  );
  const id = String(handle.taskId);
  const paramsOf = (method: string, params: Record<string, unknown>) =>
    modern(0, method, params).params as Record<string, unknown>;
  const unknown = errorOf(await bob.request("tasks/get", paramsOf("tasks/get", { taskId: "zzz" })));
  for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
    const reply = await bob.request(method, paramsOf(method, { taskId: id, inputResponses: {} }));
    assert.deepEqual(errorOf(reply), unknown, method);
  }
  // Bob's cancel did nothing; Alice still sees her task working.
  const mine = resultOf(await alice.request("tasks/get", paramsOf("tasks/get", { taskId: id })));
  assert.equal(mine.status, "working");
  assert.equal(gated.seen.aborted, false);
  gated.release("done");
  await alice.close();
  await bob.close();
  await s.close();
});

Deno.test("results read through tasks/get pass the redactor", async () => {
  const s = server({
    guardrails: [redaction({ patterns: ["ODK-[A-Za-z0-9]{8,}"] })],
    tools: [defineTool({
      name: "leaky",
      description: "x",
      task: "optional",
      inputSchema: { type: "object" },
      handler: async (_args, ctx) => {
        ctx.progress(1, undefined, "key ODK-abcdefgh12 in progress");
        await Promise.resolve();
        return "the key is ODK-abcdefgh1234";
      },
    })],
  });
  const id = await startTask(s, "leaky");
  const task = await waitFor(s, id, "completed");
  const text = JSON.stringify(task);
  assert.ok(!text.includes("ODK-abcdefgh"), text);
  await s.close();
});

Deno.test("tasks/get, tasks/update and tasks/cancel are audited as calls on the task's tool", async () => {
  const entries: AuditEntry[] = [];
  const gated = gatedTool();
  const s = server({
    guardrails: [auditLog({
      sink: callbackAuditSink((entry) => {
        entries.push(entry);
      }),
    })],
    tools: [gated.tool],
  });
  const id = await startTask(s, "gated");
  await getTask(s, id);
  await send(s, "tasks/update", { taskId: id, inputResponses: {} });
  await send(s, "tasks/cancel", { taskId: id });
  await send(s, "tasks/get", { taskId: "unknown" });
  await s.close();
  const seen = entries.map((e) => [e.method, e.name, e.outcome]);
  assert.deepEqual(seen, [
    ["tools/call", "gated", "ok"],
    ["tasks/get", "gated", "ok"],
    ["tasks/update", "gated", "ok"],
    ["tasks/cancel", "gated", "ok"],
    ["tasks/get", "", "invalid"],
  ]);
  assert.deepEqual(entries[1]?.arguments, { taskId: id });
});

Deno.test("shutdown with tasks running: no crash, tasks cancelled with a reason, no timers left", async () => {
  const store = new MemoryTaskStore();
  let timerCleared = false;
  const s = server({
    tasks: { store },
    tools: [
      defineTool({
        name: "long",
        description: "x",
        task: "optional",
        inputSchema: { type: "object" },
        handler: (_args, ctx) =>
          new Promise<string>((resolve, reject) => {
            const timer = setTimeout(() => resolve("finished"), 60_000);
            ctx.signal.addEventListener("abort", () => {
              clearTimeout(timer);
              timerCleared = true;
              reject(ctx.signal.reason);
            });
          }),
      }),
      defineTool({
        name: "asking",
        description: "x",
        task: "optional",
        inputSchema: { type: "object" },
        handler: async (_args, ctx) => (await ctx.elicit("ok?", CONFIRM)).action,
      }),
    ],
  });
  const running = await startTask(s, "long");
  const waiting = await startTask(s, "asking");
  await waitFor(s, waiting, "input_required");
  await s.close();
  assert.equal(timerCleared, true);
  for (const id of [running, waiting]) {
    const task = await store.get(id);
    assert.equal(task?.status, "cancelled");
    assert.equal(task?.statusMessage, "The server shut down");
  }
  // New calls after close do not start tasks.
  const late = await send(s, "tools/call", { name: "long", arguments: {} });
  assert.ok(isRecord(late) && "error" in late);
});

Deno.test("status notifications reach a subscriptions/listen that asked for the task", async () => {
  const gated = gatedTool();
  const s = server({ tools: [gated.tool] });
  const peer = await connectPeer(s, { initialize: false });
  const paramsOf = (params: Record<string, unknown>) =>
    modern(0, "x", params).params as Record<string, unknown>;
  const handle = resultOf(
    await peer.request("tools/call", paramsOf({ name: "gated", arguments: {} })),
  );
  const id = String(handle.taskId);
  const listening = peer.request(
    "subscriptions/listen",
    paramsOf({ notifications: { taskIds: [id, "not-mine"] } }),
  );
  const ack = await peer.next("notifications/subscriptions/acknowledged");
  assert.ok(isRecord(ack.params) && isRecord(ack.params.notifications));
  assert.deepEqual(ack.params.notifications.taskIds, [id]);
  gated.release("done");
  let status: unknown;
  while (status !== "completed") {
    const note = await peer.next("notifications/tasks");
    assert.ok(isRecord(note.params) && note.params.taskId === id);
    status = note.params.status;
  }
  // Without the extension, asking for taskIds is -32021.
  const refused = await peer.request(
    "subscriptions/listen",
    modern(0, "x", { notifications: { taskIds: [id] } }, {}).params as Record<string, unknown>,
  );
  assert.equal(codeOf(refused), -32021);
  await peer.close();
  // Its client closed its input: the subscription ended and its listen request answered.
  assert.equal(resultOf(await listening).resultType, "complete");
  await s.close();
});

Deno.test("creating a task is charged by the rate limiter; polling it is not", async () => {
  const gated = gatedTool();
  const s = server({
    tools: [gated.tool],
    guardrails: [rateLimit({ rules: [{ scope: "tool", capacity: 1, refillPerSecond: 0.001 }] })],
  });
  const id = await startTask(s, "gated");
  for (let i = 0; i < 5; i++) assert.equal((await getTask(s, id)).status, "working");
  const refused = errorOf(await send(s, "tools/call", { name: "gated", arguments: {} }));
  assert.equal(refused.code, -31002);
  gated.release("done");
  await s.close();
});
