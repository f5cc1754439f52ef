/**
 * `requestState` is attacker-controlled: every guarded method that can
 * answer input_required refuses a state that was tampered with, has
 * expired, or belongs to another principal, item, argument set or method,
 * with -32602, audited as "invalid"; the handler never runs on one.
 */

import assert from "node:assert/strict";
import { defineTool } from "../../../mod.ts";
import { resultOf } from "../../_helpers/helpers.ts";
import {
  assertRefused,
  decode,
  elsewhere,
  encode,
  firstRound,
  fixture,
  retryParams,
  send,
  type Target,
  TARGETS,
} from "../../_helpers/mrtr_fixture.ts";
import { connectPeer, type Message, testServer } from "../../_helpers/peer.ts";

Deno.test("a state with any byte flipped, truncated or extended is refused on every method", async () => {
  const fx = fixture();
  const peer = await connectPeer(fx.server, { principal: "alice", initialize: false });
  for (const target of TARGETS) {
    const { state, key } = await firstRound(peer, target);
    const prefix = state.slice(0, state.indexOf("."));
    const bytes = decode(state);
    for (let i = 0; i < bytes.length; i++) {
      for (const mask of [0x01, 0x80]) {
        const flipped = bytes.slice();
        flipped[i] = (flipped[i] ?? 0) ^ mask;
        await assertRefused(fx, peer, target, key, encode(prefix, flipped), `byte ${i} ^ ${mask}`);
      }
    }
    for (const length of [0, 1, 12, 13, 28, 29, bytes.length - 16, bytes.length - 1]) {
      await assertRefused(
        fx,
        peer,
        target,
        key,
        encode(prefix, bytes.slice(0, length)),
        `cut at ${length}`,
      );
    }
    for (const tail of [[0], [1, 2, 3], new Array(16).fill(7)]) {
      const longer = new Uint8Array([...bytes, ...tail]);
      await assertRefused(fx, peer, target, key, encode(prefix, longer), `+${tail.length} bytes`);
    }
    const textual: unknown[] = [
      "",
      "w1.",
      "w2" + state.slice(2),
      state.slice(3),
      state + "A",
      state + "=",
      state.slice(0, -1),
      ` ${state}`,
      state.replace(".", ".."),
      state.toUpperCase(),
      42,
      null,
      { state },
      [state],
      "x".repeat(300_000),
    ];
    for (const forged of textual) {
      await assertRefused(
        fx,
        peer,
        target,
        key,
        forged,
        `forged ${JSON.stringify(forged).slice(0, 30)}`,
      );
    }
    // The genuine state still works: nothing above was a false refusal of a good one.
    const done = resultOf(await send(peer, target, retryParams(key, state)));
    assert.equal(done.resultType, "complete", target.method);
  }
  await peer.close();
  await fx.server.close();
});

Deno.test("an expired state is refused; one just inside its lifetime is accepted", async () => {
  const fx = fixture({ requestStateTtlMs: 1_000 });
  const peer = await connectPeer(fx.server, { principal: "alice", initialize: false });
  for (const target of TARGETS) {
    const { state, key } = await firstRound(peer, target);
    fx.clock.now += 999;
    assert.equal(
      resultOf(await send(peer, target, retryParams(key, state))).resultType,
      "complete",
    );
    fx.clock.now += 1;
    await assertRefused(fx, peer, target, key, state, "at expiry");
    fx.clock.now += 86_400_000;
    await assertRefused(fx, peer, target, key, state, "a day later");
  }
  await peer.close();
  await fx.server.close();
});

Deno.test("a state replayed by another principal is refused", async () => {
  const fx = fixture();
  const alice = await connectPeer(fx.server, { principal: "alice", initialize: false });
  const bob = await connectPeer(fx.server, { principal: "bob", initialize: false });
  const anonymous = await connectPeer(fx.server, { initialize: false });
  for (const target of TARGETS) {
    const { state, key } = await firstRound(alice, target);
    await assertRefused(fx, bob, target, key, state, "bob replays alice's state");
    await assertRefused(fx, anonymous, target, key, state, "an anonymous caller replays it");
    const fromAnonymous = await firstRound(anonymous, target);
    await assertRefused(
      fx,
      alice,
      target,
      fromAnonymous.key,
      fromAnonymous.state,
      "alice replays an anonymous state",
    );
    assert.equal(
      resultOf(await send(alice, target, retryParams(key, state))).resultType,
      "complete",
    );
  }
  for (const peer of [alice, bob, anonymous]) await peer.close();
  await fx.server.close();
});

Deno.test("a state replayed for another item, other arguments or another method is refused", async () => {
  const fx = fixture();
  const peer = await connectPeer(fx.server, { principal: "alice", initialize: false });
  for (const target of TARGETS) {
    const { state, key } = await firstRound(peer, target);
    for (const other of elsewhere(target)) {
      await assertRefused(
        fx,
        peer,
        other,
        key,
        state,
        `${target.method} state on ${JSON.stringify(other)}`,
      );
    }
  }
  await peer.close();
  await fx.server.close();
});

Deno.test("every round is audited: interim rounds as input_required, the last as ok", async () => {
  const fx = fixture();
  const peer = await connectPeer(fx.server, { principal: "alice", initialize: false });
  for (const target of TARGETS) {
    const before = fx.audit.length;
    const { state, key } = await firstRound(peer, target);
    await send(peer, target, retryParams(key, state));
    const entries = fx.audit.slice(before);
    assert.deepEqual(entries.map((e) => [e.method, e.outcome, e.error_code, e.principal]), [
      [target.method, "input_required", null, "alice"],
      [target.method, "ok", null, "alice"],
    ]);
  }
  await peer.close();
  await fx.server.close();
});

Deno.test("a retry cannot replace an answer sealed in an earlier round", async () => {
  const form = { type: "object", properties: { name: { type: "string" } } } as const;
  const server = testServer({
    tools: [defineTool({
      name: "two_questions",
      description: "Asks twice, one after the other",
      inputSchema: { type: "object", properties: {} },
      handler: async (_args, ctx) => {
        const first = await ctx.elicit("First?", form);
        const second = await ctx.elicit("Second?", form);
        return [first, second].map((a) => a.action === "accept" ? a.content.name : "-").join(",");
      },
    })],
  });
  const peer = await connectPeer(server, { initialize: false });
  const target: Target = { method: "tools/call", params: { name: "two_questions" } };
  const round1 = await firstRound(peer, target);
  const answer = (name: string) => ({ action: "accept", content: { name } });
  const round2 = resultOf(
    await send(peer, target, {
      inputResponses: { [round1.key]: answer("approved") },
      requestState: round1.state,
    }),
  );
  const [key2] = Object.keys(round2.inputRequests as Message);
  const done = await send(peer, target, {
    inputResponses: { [round1.key]: answer("forged"), [key2 ?? ""]: answer("second") },
    requestState: round2.requestState,
  });
  assert.deepEqual(resultOf(done).content, [{ type: "text", text: "approved,second" }]);
  // The state is encrypted, not only signed: the sealed answer cannot be read off it.
  assert.ok(
    !atob(
      String(round2.requestState).slice(3).replaceAll("-", "+").replaceAll("_", "/"),
    ).includes("approved"),
  );
  await peer.close();
  await server.close();
});
