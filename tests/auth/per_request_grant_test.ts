/**
 * In a stateful legacy session, each request is served under its own
 * token's grant: two tokens of the same subject with different scopes,
 * interleaved on one session, never see each other's scopes, in lists, in
 * `context.auth` or in what guardrails see, even while the other's call is
 * still in flight.
 */

import assert from "node:assert/strict";
import { createServer, defineTool } from "../../mod.ts";
import { errorOf, isRecord, modernRequest, request, resultOf } from "../_helpers/helpers.ts";
import { gate, jsonOf, modernPost, openSession, settle } from "../_helpers/http_helpers.ts";
import { WITH_TASKS } from "../_helpers/task_helpers.ts";
import { AUDIENCE, bearer, refundScopedHttp, textOf, withAs } from "../_helpers/auth_fixture.ts";

/** The names in a tools/list reply. */
async function toolNames(response: Response): Promise<string[]> {
  const tools = resultOf(await jsonOf(response)).tools;
  assert.ok(Array.isArray(tools));
  return tools.map((tool) => (isRecord(tool) ? String(tool.name) : "")).sort();
}

Deno.test("two tokens of one subject interleaved on a legacy session each get their own grant", async () => {
  await withAs(async (as) => {
    const held = gate();
    const guarded: string[] = [];
    const server = createServer({
      name: "per-request",
      version: "1.0.0",
      log: () => {},
      tools: [
        defineTool({
          name: "slow_grant",
          description: "Waits, then says what its request's token grants",
          inputSchema: { type: "object", properties: { wait: { type: "boolean" } } },
          handler: async ({ wait }, context) => {
            if (wait === true) await held.promise;
            return (context.auth?.scopes ?? []).join(" ");
          },
        }),
        defineTool({
          name: "refund_order",
          description: "Needs orders:write",
          inputSchema: { type: "object" },
          handler: () => "refunded",
        }),
      ],
      guardrails: [{
        name: "spy",
        stage: "custom",
        run: async (call, next) => {
          const before = (call.context.auth?.scopes ?? []).join(" ");
          const outcome = await next(call);
          // After the handler's wait: still this request's grant.
          guarded.push(`${before}|${(call.context.auth?.scopes ?? []).join(" ")}`);
          return outcome;
        },
      }],
      http: refundScopedHttp(as),
    });
    const wide = await as.mint({ sub: "alice", aud: AUDIENCE, scope: "orders:read orders:write" });
    const narrow = await as.mint({ sub: "alice", aud: AUDIENCE, scope: "orders:read" });
    const session = await openSession(server, { headers: bearer(wide) });
    const call = (id: number, wait: boolean) =>
      request(id, "tools/call", { name: "slow_grant", arguments: { wait } });
    const list = (id: number) => request(id, "tools/list", {});

    // The wide token's call waits in its handler while the narrow token is used.
    const pending = session.post(call(1, true), bearer(wide));
    await settle();
    assert.deepEqual(await toolNames(await session.post(list(2), bearer(narrow))), ["slow_grant"]);
    assert.equal(await textOf(await session.post(call(3, false), bearer(narrow))), "orders:read");
    // And the other way round: the wide token lists the refund tool while narrow was last.
    const narrowPending = session.post(call(4, true), bearer(narrow));
    await settle();
    assert.deepEqual(await toolNames(await session.post(list(5), bearer(wide))), [
      "refund_order",
      "slow_grant",
    ]);
    held.open();
    assert.equal(await textOf(await pending), "orders:read orders:write");
    assert.equal(await textOf(await narrowPending), "orders:read");
    assert.deepEqual(guarded.sort(), [
      "orders:read orders:write|orders:read orders:write",
      "orders:read|orders:read",
      "orders:read|orders:read",
    ]);
    // A list in a batch-free session after both: each still answers by its own token.
    assert.deepEqual(await toolNames(await session.post(list(6), bearer(narrow))), ["slow_grant"]);
    await server.close();
  });
});

Deno.test("a task is read only under a token that may use its tool, in the 2026-07-28 era", async () => {
  await withAs(async (as) => {
    const held = gate();
    const server = createServer({
      name: "task-scopes",
      version: "1.0.0",
      log: () => {},
      tools: [
        defineTool({
          name: "refund_order",
          description: "Needs orders:write; runs as a task until released",
          inputSchema: { type: "object" },
          task: "required",
          handler: async () => {
            await held.promise;
            return "refunded";
          },
        }),
      ],
      http: refundScopedHttp(as),
    });
    const wide = await as.mint({ sub: "alice", aud: AUDIENCE, scope: "orders:read orders:write" });
    const narrow = await as.mint({ sub: "alice", aud: AUDIENCE, scope: "orders:read" });
    const start = modernRequest(
      1,
      "tools/call",
      { name: "refund_order", arguments: {} },
      WITH_TASKS,
    );
    const started = resultOf(await jsonOf(await modernPost(server, start, bearer(wide))));
    const taskId = String(started.taskId);
    const get = modernRequest(2, "tasks/get", { taskId }, WITH_TASKS);
    const byName = { "mcp-name": taskId };
    const seen = await jsonOf(await modernPost(server, get, { ...bearer(wide), ...byName }));
    assert.equal(resultOf(seen).taskId, taskId);
    // The same subject with a token that may not refund: the task is unknown to it.
    const hidden = await jsonOf(await modernPost(server, get, { ...bearer(narrow), ...byName }));
    assert.equal(errorOf(hidden).code, -32602, JSON.stringify(hidden));
    held.open();
    await settle();
    await server.close();
  });
});
