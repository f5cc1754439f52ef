/**
 * The tasks extension end to end on the embedded session: who gets a task,
 * its lifecycle, cancellation, input rounds and progress as the client sees
 * them (expiry and the store's bounds: expiry_and_bounds_test.ts).
 */

import assert from "node:assert/strict";
import { defineTool, RpcError } from "../../../mod.ts";
import { errorOf, isRecord, resultOf } from "../../_helpers/helpers.ts";
import {
  codeOf,
  CONFIRM,
  gatedTool,
  getTask,
  send,
  server,
  startTask,
  TASKS_ID,
  waitFor,
} from "../../_helpers/task_helpers.ts";

Deno.test("a tool declares task support, checked at registration", () => {
  const s = server();
  assert.throws(
    () =>
      s.tool({
        name: "bad",
        description: "x",
        inputSchema: { type: "object" },
        // @ts-expect-error: not a task mode
        task: "sometimes",
        handler: () => "",
      }),
    /Cannot register tool 'bad': task must be "never", "optional" or "required"/,
  );
});

Deno.test("who gets a task: optional tools run synchronously for clients without the extension", async () => {
  const gated = gatedTool("job", "optional");
  const s = server({ tools: [gated.tool] });
  gated.release("done");
  const sync = resultOf(await send(s, "tools/call", { name: "job", arguments: {} }, {}));
  assert.equal(sync.resultType, "complete");
  assert.deepEqual(sync.content, [{ type: "text", text: "done" }]);
  const handle = resultOf(await send(s, "tools/call", { name: "job", arguments: {} }));
  assert.equal(handle.resultType, "task");
  assert.equal(handle.status, "working");
  assert.match(String(handle.taskId), /^[A-Za-z0-9_-]{22}$/);
  assert.equal(typeof handle.ttlMs, "number");
  for (const key of ["result", "error", "inputRequests", "requestState", "task"]) {
    assert.ok(!(key in handle), key);
  }
  const done = await waitFor(s, String(handle.taskId), "completed");
  assert.deepEqual(done.result, { content: [{ type: "text", text: "done" }] });
  assert.equal(done.resultType, "complete");
  await s.close();
});

Deno.test("a required task tool refuses clients without the extension, -32021 with the capability", async () => {
  const gated = gatedTool("job", "required");
  const s = server({ tools: [gated.tool] });
  const error = errorOf(await send(s, "tools/call", { name: "job", arguments: {} }, {}));
  assert.equal(error.code, -32021);
  assert.deepEqual(error.data, { requiredCapabilities: { extensions: { [TASKS_ID]: {} } } });
  assert.equal(gated.seen.runs, 0);
  for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
    const reply = await send(s, method, { taskId: "x", inputResponses: {} }, {});
    assert.equal(codeOf(reply), -32021, method);
  }
  for (const method of ["tasks/result", "tasks/list"]) {
    assert.equal(codeOf(await send(s, method, { taskId: "x" })), -32601, method);
  }
  assert.equal(codeOf(await send(s, "tasks/get", { taskId: "nope" })), -32602);
  const discover = resultOf(await send(s, "server/discover"));
  assert.ok(isRecord(discover.capabilities));
  assert.deepEqual(discover.capabilities.extensions, { [TASKS_ID]: {} });
  await s.close();
});

Deno.test("tools that never run as tasks stay synchronous for every client", async () => {
  const s = server({
    tools: [defineTool({
      name: "greet",
      description: "x",
      inputSchema: { type: "object" },
      handler: () => "hi",
    })],
  });
  const result = resultOf(await send(s, "tools/call", { name: "greet", arguments: {} }));
  assert.equal(result.resultType, "complete");
  assert.ok(!("taskId" in result));
  await s.close();
});

Deno.test("cancellation mid-run: cancelled at once, the handler's signal aborts, the ack is empty", async () => {
  const gated = gatedTool();
  const s = server({ tools: [gated.tool] });
  const id = await startTask(s, "gated");
  assert.equal((await getTask(s, id)).status, "working");
  const ack = resultOf(await send(s, "tasks/cancel", { taskId: id }));
  assert.deepEqual(Object.keys(ack).filter((k) => k !== "_meta"), ["resultType"]);
  assert.equal(ack.resultType, "complete");
  const task = await getTask(s, id);
  assert.equal(task.status, "cancelled");
  assert.equal(gated.seen.aborted, true);
  // A late end of the handler changes nothing: terminal states are final.
  gated.release("too late");
  await Promise.resolve();
  assert.equal((await getTask(s, id)).status, "cancelled");
  // Cancelling a terminal task is acknowledged the same way.
  assert.equal(resultOf(await send(s, "tasks/cancel", { taskId: id })).resultType, "complete");
  await s.close();
});

Deno.test("input rounds: asks wait suspended, tasks/update answers them, the handler runs once", async () => {
  let runs = 0;
  const s = server({
    tools: [defineTool({
      name: "two_questions",
      description: "x",
      task: "optional",
      inputSchema: { type: "object" },
      handler: async (_args, ctx) => {
        runs++;
        const [a, b] = await Promise.all([
          ctx.elicit("First?", CONFIRM, { inputKey: "first" }),
          ctx.elicit("Second?", CONFIRM, { inputKey: "second" }),
        ]);
        const third = await ctx.elicit("Third?", CONFIRM);
        return [a, b, third].map((x) => x.action).join(",");
      },
    })],
  });
  const id = await startTask(s, "two_questions");
  let task = await waitFor(s, id, "input_required");
  assert.ok(isRecord(task.inputRequests));
  assert.deepEqual(Object.keys(task.inputRequests).sort(), ["first", "second"]);
  const first = task.inputRequests.first;
  assert.ok(isRecord(first) && first.method === "elicitation/create");
  // A malformed answer refuses the update and leaves every ask waiting.
  const bad = await send(s, "tasks/update", {
    taskId: id,
    inputResponses: { first: { action: "accept", content: { confirm: "yes" } } },
  });
  assert.equal(codeOf(bad), -32602);
  // An unknown key is ignored and acknowledged.
  const ignored = resultOf(
    await send(s, "tasks/update", { taskId: id, inputResponses: { nope: { x: 1 } } }),
  );
  assert.equal(ignored.resultType, "complete");
  assert.equal(codeOf(await send(s, "tasks/update", { taskId: id })), -32602);
  resultOf(
    await send(s, "tasks/update", {
      taskId: id,
      inputResponses: { first: { action: "accept", content: { confirm: true } } },
    }),
  );
  task = await getTask(s, id);
  assert.equal(task.status, "input_required");
  assert.ok(isRecord(task.inputRequests));
  assert.deepEqual(Object.keys(task.inputRequests), ["second"]);
  resultOf(
    await send(s, "tasks/update", {
      taskId: id,
      inputResponses: { second: { action: "decline" } },
    }),
  );
  // The next ask gets a key of its own (keys are never reused within a task).
  task = await waitFor(s, id, "input_required");
  assert.ok(isRecord(task.inputRequests));
  const [third] = Object.keys(task.inputRequests);
  assert.ok(third !== undefined && third !== "first" && third !== "second");
  resultOf(
    await send(s, "tasks/update", {
      taskId: id,
      inputResponses: { [third]: { action: "cancel" } },
    }),
  );
  task = await waitFor(s, id, "completed");
  assert.deepEqual(task.result, { content: [{ type: "text", text: "accept,decline,cancel" }] });
  assert.equal(runs, 1);
  await s.close();
});

Deno.test("input asked before the task is a multi round-trip on the tools/call itself", async () => {
  const s = server({
    tools: [defineTool({
      name: "named",
      description: "x",
      task: "required",
      inputSchema: { type: "object" },
      handler: async (_args, ctx) => {
        const answer = await ctx.elicit("Name?", {
          type: "object",
          properties: { name: { type: "string" } },
          required: ["name"],
        }, { inputKey: "user_name", beforeTask: true });
        return answer.action === "accept" ? `Hi ${answer.content.name}` : "no";
      },
    })],
  });
  const round1 = resultOf(await send(s, "tools/call", { name: "named", arguments: {} }));
  assert.equal(round1.resultType, "input_required");
  assert.ok(!("taskId" in round1));
  assert.ok(isRecord(round1.inputRequests) && "user_name" in round1.inputRequests);
  const round2 = resultOf(
    await send(s, "tools/call", {
      name: "named",
      arguments: {},
      inputResponses: { user_name: { action: "accept", content: { name: "Alice" } } },
      requestState: round1.requestState,
    }),
  );
  assert.equal(round2.resultType, "task");
  assert.ok(!("requestState" in round2) && !("inputRequests" in round2));
  const done = await waitFor(s, String(round2.taskId), "completed");
  assert.deepEqual(done.result, { content: [{ type: "text", text: "Hi Alice" }] });
  await s.close();
});

Deno.test("tool errors complete, protocol errors fail with the error and no result", async () => {
  const s = server({
    tools: [
      defineTool({
        name: "tool_error",
        description: "x",
        task: "optional",
        inputSchema: { type: "object" },
        handler: () => ({ content: [{ type: "text", text: "no" }], isError: true }),
      }),
      defineTool({
        name: "plain_error",
        description: "x",
        task: "optional",
        inputSchema: { type: "object" },
        handler: () => {
          throw new Error("boom");
        },
      }),
      defineTool({
        name: "protocol_error",
        description: "x",
        task: "optional",
        inputSchema: { type: "object" },
        handler: () => {
          throw new RpcError(-32050, "backend down", { retry: false });
        },
      }),
    ],
  });
  const a = await waitFor(s, await startTask(s, "tool_error"), "completed");
  assert.ok(isRecord(a.result) && a.result.isError === true);
  // A plain exception is a failed call the model can read: completed with isError.
  const b = await waitFor(s, await startTask(s, "plain_error"), "completed");
  assert.ok(isRecord(b.result) && b.result.isError === true);
  const c = await waitFor(s, await startTask(s, "protocol_error"), "failed");
  assert.deepEqual(c.error, { code: -32050, message: "backend down", data: { retry: false } });
  assert.equal(c.statusMessage, "backend down");
  assert.ok(!("result" in c));
  await s.close();
});

Deno.test("progress shows in tasks/get as the statusMessage", async () => {
  let step: () => void = () => {};
  const s = server({
    tools: [defineTool({
      name: "steps",
      description: "x",
      task: "optional",
      inputSchema: { type: "object" },
      handler: async (_args, ctx) => {
        ctx.progress(1, 3, "one of three");
        await new Promise<void>((resolve) => (step = resolve));
        return "ok";
      },
    })],
  });
  const id = await startTask(s, "steps");
  await Promise.resolve();
  const task = await getTask(s, id);
  assert.equal(task.statusMessage, "one of three");
  step();
  await waitFor(s, id, "completed");
  await s.close();
});

Deno.test("the capabilities check is per request: the extension on one call does not carry over", async () => {
  const gated = gatedTool();
  const s = server({ tools: [gated.tool] });
  gated.release("ok");
  await startTask(s, "gated");
  const sync = resultOf(
    await send(s, "tools/call", { name: "gated", arguments: {} }, { elicitation: {} }),
  );
  assert.equal(sync.resultType, "complete");
  await s.close();
});
