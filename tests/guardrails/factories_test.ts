import assert from "node:assert/strict";
import {
  accessPolicy,
  type AccessPolicyOptions,
} from "../../src/guardrails/access/access_policy.ts";
import { MemoryBucketStore } from "../../src/store/bucket_store.ts";
import type { CallKind, GuardedCall } from "../../src/call/context.ts";
import type { CallNext, CallOutcome } from "../../src/call/outcome.ts";
import { composePipeline } from "../../src/call/compose.ts";
import type { Guardrail } from "../../src/call/guardrail.ts";
import {
  rateLimit,
  type RateLimiterOptions,
  rateLimitWith,
} from "../../src/guardrails/rate_limit/rate_limit.ts";
import { ErrorCode, RpcError } from "../../src/jsonrpc/errors.ts";
import { testContext } from "../_helpers/helpers.ts";

const METHODS: Readonly<Record<CallKind, string>> = {
  tool: "tools/call",
  resource: "resources/read",
  prompt: "prompts/get",
};

function guardedCall(kind: CallKind, name: string, principal?: string): GuardedCall {
  return {
    kind,
    method: METHODS[kind],
    name,
    arguments: {},
    context: testContext(principal),
  };
}

/** A `next` that records each call it receives and answers `ok`. */
function recorder(): { next: CallNext; seen: GuardedCall[]; outcome: CallOutcome } {
  const seen: GuardedCall[] = [];
  const outcome: CallOutcome = { status: "ok", result: { content: [] } };
  const next: CallNext = (call) => {
    seen.push(call);
    return Promise.resolve(outcome);
  };
  return { next, seen, outcome };
}

/** The error of a refused outcome, failing the test if the outcome is not refused. */
function errorOf(outcome: CallOutcome): RpcError {
  assert.ok("error" in outcome, `expected a refusal, got status ${outcome.status}`);
  assert.ok(outcome.error instanceof RpcError);
  return outcome.error;
}

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

/** A rate-limit guardrail on a fake clock. */
function limited(options: RateLimiterOptions) {
  const clock = { now: 0 };
  const guardrail = rateLimitWith(options, {
    store: new MemoryBucketStore(),
    now: () => clock.now,
  });
  return { clock, guardrail };
}

Deno.test("rateLimit() names itself, runs at the rate_limit stage and hides nothing", () => {
  const guardrail = rateLimit({ rules: [] });
  assert.equal(guardrail.name, "rate-limit");
  assert.equal(guardrail.stage, "rate_limit");
  assert.equal(guardrail.visible, undefined);
});

Deno.test("rateLimit() refuses the sixth call of five with -32002 and a whole wait", async () => {
  const { clock, guardrail } = limited({
    rules: [{ scope: "tool", capacity: 5, refillPerSecond: 0.25 }],
  });
  const { next, seen, outcome: ok } = recorder();
  for (let index = 1; index <= 5; index++) {
    assert.equal(await guardrail.run(guardedCall("tool", "get_order"), next), ok, `call ${index}`);
  }
  assert.equal(seen.length, 5);

  clock.now = 1500;
  const outcome = await guardrail.run(guardedCall("tool", "get_order"), next);
  assert.equal(seen.length, 5, "the sixth call reached next");
  assert.equal(outcome.status, "rate_limited");
  const error = errorOf(outcome);
  assert.equal(error.code, ErrorCode.RateLimited);
  assert.equal(error.code, -32002);
  assert.equal(error.message, 'Rate limit exceeded: tool "get_order", retry in 3 s');
  assert.deepEqual(error.data, { retry_after_seconds: 3 });

  clock.now = 3999;
  const early = errorOf(await guardrail.run(guardedCall("tool", "get_order"), next));
  assert.deepEqual(early.data, { retry_after_seconds: 1 });
  assert.equal(early.message, 'Rate limit exceeded: tool "get_order", retry in 1 s');
  clock.now = 4000;
  assert.equal(await guardrail.run(guardedCall("tool", "get_order"), next), ok);
  assert.equal(seen.length, 6);
});

Deno.test("rateLimit() always answers a whole retry_after_seconds of at least 1", async () => {
  const rates = [1000, 3, 1, 0.7, 0.01];
  for (const refillPerSecond of rates) {
    const { guardrail } = limited({ rules: [{ scope: "global", capacity: 1, refillPerSecond }] });
    await guardrail.run(guardedCall("tool", "a"), recorder().next);
    const error = errorOf(await guardrail.run(guardedCall("tool", "a"), recorder().next));
    assert.ok(error.data !== null && typeof error.data === "object");
    assert.deepEqual(Object.keys(error.data), ["retry_after_seconds"]);
    const seconds: unknown = Reflect.get(error.data, "retry_after_seconds");
    assert.ok(typeof seconds === "number" && Number.isInteger(seconds) && seconds >= 1);
    assert.equal(seconds, Math.max(1, Math.ceil(1 / refillPerSecond)), `${refillPerSecond}/s`);
    assert.ok(error.message.endsWith(`, retry in ${seconds} s`), error.message);
  }
});

Deno.test("rateLimit() names resources and prompts, escaped and shortened", async () => {
  const { guardrail } = limited({
    rules: [{ scope: "tool", capacity: 1, refillPerSecond: 1, kinds: ["resource", "prompt"] }],
  });
  const refuse = async (kind: CallKind, name: string) => {
    await guardrail.run(guardedCall(kind, name), recorder().next);
    return errorOf(await guardrail.run(guardedCall(kind, name), recorder().next)).message;
  };
  assert.equal(
    await refuse("resource", "orders://1"),
    'Rate limit exceeded: resource "orders://1", retry in 1 s',
  );
  assert.equal(
    await refuse("prompt", 'say "hi"\n'),
    'Rate limit exceeded: prompt "say \\"hi\\"\\n", retry in 1 s',
  );
  assert.equal(
    await refuse("prompt", "p".repeat(500)),
    `Rate limit exceeded: prompt "${"p".repeat(80)}…", retry in 1 s`,
  );
  const { next, seen } = recorder();
  await guardrail.run(guardedCall("tool", "unlimited"), next);
  await guardrail.run(guardedCall("tool", "unlimited"), next);
  assert.equal(seen.length, 2, "a rule for resources and prompts limited a tool");
});

Deno.test("rateLimit() charges no bucket for a refused call", async () => {
  const { clock, guardrail } = limited({
    rules: [
      { scope: "global", capacity: 10, refillPerSecond: 0.001 },
      { scope: "tool", capacity: 1, refillPerSecond: 1 },
    ],
  });
  const { next, seen } = recorder();
  assert.equal((await guardrail.run(guardedCall("tool", "hot"), next)).status, "ok");
  for (let index = 0; index < 20; index++) {
    assert.equal((await guardrail.run(guardedCall("tool", "hot"), next)).status, "rate_limited");
  }
  clock.now = 500;
  assert.equal((await guardrail.run(guardedCall("tool", "hot"), next)).status, "rate_limited");
  // Neither the tool bucket's refill nor the shared global bucket paid for those refusals.
  clock.now = 1000;
  assert.equal((await guardrail.run(guardedCall("tool", "hot"), next)).status, "ok");
  for (let index = 0; index < 8; index++) {
    const outcome = await guardrail.run(guardedCall("tool", `cold_${index}`), next);
    assert.equal(outcome.status, "ok", `cold_${index}`);
  }
  assert.equal((await guardrail.run(guardedCall("tool", "cold_9"), next)).status, "rate_limited");
  assert.equal(seen.length, 10);
});

Deno.test("rateLimit() keys buckets by the session's principal", async () => {
  const { guardrail } = limited({
    rules: [{ scope: "principal", capacity: 2, refillPerSecond: 1 }],
  });
  const status = async (principal: string | undefined) =>
    (await guardrail.run(guardedCall("tool", "get_order", principal), recorder().next)).status;
  assert.equal(await status("alice"), "ok");
  assert.equal(await status("alice"), "ok");
  assert.equal(await status("alice"), "rate_limited");
  assert.equal(await status("bob"), "ok");
  assert.equal(await status(undefined), "ok");
  assert.equal(await status(undefined), "ok");
  assert.equal(await status(undefined), "rate_limited");
});

Deno.test("rateLimit() passes next's outcome through unchanged", async () => {
  const { guardrail } = limited({ rules: [{ scope: "global", capacity: 5, refillPerSecond: 1 }] });
  const failed: CallOutcome = { status: "tool_error", result: { isError: true, content: [] } };
  const call = guardedCall("tool", "a");
  assert.equal(await guardrail.run(call, () => Promise.resolve(failed)), failed);
  const invalid: CallOutcome = {
    status: "invalid",
    error: new RpcError(ErrorCode.InvalidParams, "Invalid arguments"),
  };
  assert.equal(await guardrail.run(call, () => Promise.resolve(invalid)), invalid);
});

Deno.test("rateLimit() lets exactly 10 of 100 concurrent callers reach next", async () => {
  const { guardrail } = limited({ rules: [{ scope: "tool", capacity: 10, refillPerSecond: 1 }] });
  let reached = 0;
  let running = 0;
  let mostRunning = 0;
  const next: CallNext = async () => {
    reached++;
    running++;
    mostRunning = Math.max(mostRunning, running);
    await new Promise((resolve) => setTimeout(resolve, 5));
    running--;
    return { status: "ok", result: { content: [] } };
  };
  const outcomes = await Promise.all(
    Array.from({ length: 100 }, async (_, index) => {
      for (let turn = 0; turn < index % 4; turn++) await Promise.resolve();
      await new Promise((resolve) => setTimeout(resolve, index % 3));
      return guardrail.run(guardedCall("tool", "get_order", `caller-${index % 7}`), next);
    }),
  );
  assert.equal(reached, 10);
  assert.ok(mostRunning > 1, "the handlers never overlapped, so the test proves nothing");
  assert.equal(outcomes.filter((outcome) => outcome.status === "ok").length, 10);
  assert.equal(outcomes.filter((outcome) => outcome.status === "rate_limited").length, 90);
});

Deno.test("rateLimit() rejects bad configuration when it is built", () => {
  assert.throws(
    () => rateLimit({ rules: [{ scope: "tool", capacity: 0, refillPerSecond: 1 }] }),
    new RangeError("Invalid rate limits: rules[0].capacity must be > 0, got 0"),
  );
});

Deno.test("A call the access policy refuses spends no rate-limit token", async () => {
  const guardrails: Guardrail[] = [
    // Given out of order on purpose: the pipeline puts access first.
    rateLimit({ rules: [{ scope: "global", capacity: 1, refillPerSecond: 0.001 }] }, {
      now: () => 0,
    }),
    accessPolicy({ tools: { deny: ["cancel_*"] } }),
  ];
  const { next, seen } = recorder();
  const composed = composePipeline(guardrails);
  const pipeline = (call: GuardedCall) => composed(call, next);
  for (let index = 0; index < 5; index++) {
    assert.equal((await pipeline(guardedCall("tool", "cancel_order"))).status, "denied");
  }
  assert.equal((await pipeline(guardedCall("tool", "get_order"))).status, "ok");
  assert.equal((await pipeline(guardedCall("tool", "get_order"))).status, "rate_limited");
  assert.equal(seen.length, 1);
});
