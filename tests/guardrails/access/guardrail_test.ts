/**
 * `accessPolicy()` as a guardrail, driven by hand-built calls: its name and
 * stage, what it passes and refuses, its messages, `onDenied`, what it hides
 * from lists, and its configuration checks.
 */

import assert from "node:assert/strict";
import {
  accessPolicy,
  type AccessPolicyOptions,
} from "../../../src/guardrails/access/access_policy.ts";
import type { CallKind, GuardedCall } from "../../../src/call/context.ts";
import { ErrorCode } from "../../../src/jsonrpc/errors.ts";
import { errorOf, guardedCall, recorder } from "../../_helpers/guarded_calls.ts";

const policyOptions: AccessPolicyOptions = {
  tools: { allow: ["get_*", "list_*"], deny: ["get_secret"] },
  resources: { allow: ["orders://*"] },
  prompts: { deny: ["*_internal"] },
  principals: { admin: { tools: { allow: ["*"] } } },
};

Deno.test("accessPolicy() names itself and runs at the access stage", () => {
  const guardrail = accessPolicy({});
  assert.equal(guardrail.name, "access-policy");
  assert.equal(guardrail.stage, "access");
  assert.equal(typeof guardrail.visible, "function");
});

Deno.test("accessPolicy() passes an allowed call to next and returns its outcome", async () => {
  const guardrail = accessPolicy(policyOptions);
  const cases: [kind: CallKind, name: string, principal: string | undefined][] = [
    ["tool", "get_order", undefined],
    ["tool", "cancel_order", "admin"],
    ["resource", "orders://42", "alice"],
    ["prompt", "summary", undefined],
  ];
  for (const [kind, name, principal] of cases) {
    const { next, seen, outcome } = recorder();
    const call = guardedCall(kind, name, principal);
    assert.equal(await guardrail.run(call, next), outcome, `${kind} ${name}`);
    assert.deepEqual(seen, [call]);
    assert.equal(seen[0], call);
  }
});

Deno.test("accessPolicy() refuses a denied call with -32001 and never calls next", async () => {
  const guardrail = accessPolicy(policyOptions);
  const cases: [kind: CallKind, name: string, principal: string | undefined, message: string][] = [
    ["tool", "cancel_order", undefined, 'Access denied: tool "cancel_order"'],
    ["tool", "cancel_order", "alice", 'Access denied: tool "cancel_order"'],
    ["tool", "get_secret", "admin", 'Access denied: tool "get_secret"'],
    ["tool", "Get_Order", undefined, 'Access denied: tool "Get_Order"'],
    ["resource", "users://1", "admin", 'Access denied: resource "users://1"'],
    ["prompt", "p_internal", undefined, 'Access denied: prompt "p_internal"'],
  ];
  for (const [kind, name, principal, message] of cases) {
    const { next, seen } = recorder();
    const outcome = await guardrail.run(guardedCall(kind, name, principal), next);
    assert.equal(outcome.status, "denied", `${kind} ${name}`);
    const error = errorOf(outcome);
    assert.equal(error.code, ErrorCode.AccessDenied);
    assert.equal(error.code, -32001);
    assert.equal(error.message, message);
    assert.equal(error.data, undefined);
    assert.equal(seen.length, 0, `${kind} ${name} reached next`);
  }
});

Deno.test("accessPolicy() escapes and shortens the name in its message", async () => {
  const guardrail = accessPolicy({ tools: { deny: ["*"] }, resources: { deny: ["*"] } });
  const message = async (kind: CallKind, name: string) =>
    errorOf(await guardrail.run(guardedCall(kind, name), recorder().next)).message;
  assert.equal(
    await message("tool", 'a"b\nc\u0000d\\'),
    'Access denied: tool "a\\"b\\nc\\u0000d\\\\"',
  );
  assert.equal(await message("tool", "x".repeat(80)), `Access denied: tool "${"x".repeat(80)}"`);
  assert.equal(
    await message("resource", `orders://${"9".repeat(10_000)}`),
    `Access denied: resource "orders://${"9".repeat(71)}…"`,
  );
  // A cut through a surrogate pair drops its first half rather than leave it alone.
  assert.equal(
    await message("tool", `${"x".repeat(79)}\u{1F600}tail`),
    `Access denied: tool "${"x".repeat(79)}…"`,
  );
  assert.equal(
    await message("tool", `${"x".repeat(78)}\u{1F600}tail`),
    `Access denied: tool "${"x".repeat(78)}\u{1F600}…"`,
  );
});

Deno.test("accessPolicy() tells onDenied the reason and keeps it off the wire", async () => {
  const reported: [GuardedCall, string][] = [];
  const guardrail = accessPolicy(policyOptions, {
    onDenied: (call, reason) => reported.push([call, reason]),
  });
  const denied = guardedCall("tool", "get_secret", "admin");
  const outcome = await guardrail.run(denied, recorder().next);
  assert.deepEqual(reported, [[denied, 'denied by tools.deny[0] "get_secret"']]);
  assert.equal(reported[0]?.[0], denied);
  const error = errorOf(outcome);
  for (const secret of ["deny", "get_*", "admin", "policy", "principal"]) {
    assert.equal(error.message.includes(secret), false, `the message mentions ${secret}`);
  }

  await guardrail.run(guardedCall("tool", "get_order", "admin"), recorder().next);
  await guardrail.run(guardedCall("tool", "delete_order", undefined), recorder().next);
  assert.deepEqual(reported.map(([call, reason]) => [call.name, reason]), [
    ["get_secret", 'denied by tools.deny[0] "get_secret"'],
    ["delete_order", "not in tools.allow"],
  ]);
});

Deno.test("accessPolicy() hides from lists exactly what it refuses to run", async () => {
  const guardrail = accessPolicy(policyOptions);
  const visible = guardrail.visible;
  assert.ok(visible !== undefined);
  const cases: [kind: CallKind, name: string, principal: string | undefined, shown: boolean][] = [
    ["tool", "get_order", undefined, true],
    ["tool", "list_orders", "alice", true],
    ["tool", "get_secret", undefined, false],
    ["tool", "get_secret", "admin", false],
    ["tool", "cancel_order", undefined, false],
    ["tool", "cancel_order", "admin", true],
    ["resource", "orders://1", undefined, true],
    ["resource", "users://1", undefined, false],
    ["prompt", "summary", undefined, true],
    ["prompt", "summary_internal", "admin", false],
  ];
  for (const [kind, name, principal, shown] of cases) {
    assert.equal(visible({ kind, name }, principal), shown, `${principal} ${kind} ${name}`);
    const { next, seen } = recorder();
    const outcome = await guardrail.run(guardedCall(kind, name, principal), next);
    assert.equal(outcome.status === "ok", shown, `run ${principal} ${kind} ${name}`);
    assert.equal(seen.length, shown ? 1 : 0);
  }
});

Deno.test("accessPolicy() rejects bad configuration when it is built", () => {
  assert.throws(
    () => accessPolicy({ tools: { deny: ["ok", ""] } }),
    new RangeError("Invalid access policy: glob is empty at tools.deny[1]"),
  );
  assert.throws(
    () => accessPolicy(JSON.parse('{"tools":{"deney":["*"]}}')),
    new TypeError(
      'Invalid access policy: unknown key "deney" at tools, expected one of allow, deny',
    ),
  );
});
