/**
 * The tasks extension over Streamable HTTP: the task id travels in
 * `Mcp-Name`, and a mismatched or missing one is refused before dispatch.
 */

import assert from "node:assert/strict";
import { errorOf, isRecord, resultOf } from "../_helpers/helpers.ts";
import { httpServer, jsonOf, post } from "../_helpers/http_helpers.ts";
import { gatedTool, modern } from "../_helpers/task_helpers.ts";

function headers(method: string, name: string | null): Record<string, string | null> {
  return { "mcp-protocol-version": "2026-07-28", "mcp-method": method, "mcp-name": name };
}

Deno.test("over HTTP, tasks/* carry the task id in Mcp-Name", async () => {
  const gated = gatedTool();
  const { server } = httpServer({}, { tools: [gated.tool] });
  const created = await post(
    server,
    modern(1, "tools/call", { name: "gated", arguments: {} }),
    headers("tools/call", "gated"),
  );
  assert.equal(created.status, 200);
  const handle = resultOf(await jsonOf(created));
  assert.equal(handle.resultType, "task");
  const id = String(handle.taskId);

  const got = await post(server, modern(2, "tasks/get", { taskId: id }), headers("tasks/get", id));
  assert.equal(got.status, 200);
  assert.equal(resultOf(await jsonOf(got)).status, "working");

  for (const name of ["another-task", null]) {
    const refused = await post(
      server,
      modern(3, "tasks/cancel", { taskId: id }),
      headers("tasks/cancel", name),
    );
    assert.equal(refused.status, 400, String(name));
    assert.equal(errorOf(await jsonOf(refused)).code, -32020);
  }
  assert.equal(gated.seen.aborted, false);

  const cancelled = await post(
    server,
    modern(4, "tasks/cancel", { taskId: id }),
    headers("tasks/cancel", id),
  );
  assert.equal(cancelled.status, 200);
  await cancelled.body?.cancel();
  assert.equal(gated.seen.aborted, true);

  const unknown = await post(
    server,
    modern(5, "tasks/get", { taskId: "nope" }),
    headers("tasks/get", "nope"),
  );
  const body = await jsonOf(unknown);
  assert.ok(isRecord(body.error));
  assert.equal(body.error.code, -32602);

  const removed = await post(server, modern(6, "tasks/list"), headers("tasks/list", null));
  assert.equal(removed.status, 404);
  await removed.body?.cancel();
  await server.close();
});
