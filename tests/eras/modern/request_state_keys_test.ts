/**
 * Request states and the rest of the server: the rate limiter charges a
 * call once however many rounds it takes (and a replay like a new call),
 * and `requestStateKey` decides which servers open each other's states.
 */

import assert from "node:assert/strict";
import { rateLimit } from "../../../guardrails.ts";
import { errorOf, resultOf } from "../../_helpers/helpers.ts";
import {
  assertRefused,
  decode,
  encode,
  firstRound,
  fixture,
  KEY_A,
  KEY_B,
  retryParams,
  send,
  TARGETS,
} from "../../_helpers/mrtr_fixture.ts";
import { connectPeer, type Peer, testServer } from "../../_helpers/peer.ts";

/** Two calls per tool, resource or prompt, and no refill while a test runs. */
function twoTokenLimiter() {
  return rateLimit({
    rules: [{
      scope: "tool",
      capacity: 2,
      refillPerSecond: 0.001,
      kinds: ["tool", "resource", "prompt"],
    }],
  }, { now: () => 0 });
}

Deno.test("a retry with a valid state does not take a second rate-limit token; a forged one does", async () => {
  const fx = fixture({}, [twoTokenLimiter()]);
  const peer = await connectPeer(fx.server, { principal: "alice", initialize: false });
  for (const target of TARGETS) {
    // Token 1 of 2.
    const { state, key } = await firstRound(peer, target);
    // Free: the same call continuing.
    const done = resultOf(await send(peer, target, retryParams(key, state)));
    assert.equal(done.resultType, "complete", `${target.method}: the continuation passes`);
    // A forged continuation pays (token 2) and is refused.
    const bytes = decode(state);
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 1;
    const forged = errorOf(await send(peer, target, retryParams(key, encode("w1", bytes))));
    assert.equal(forged.code, -32602, target.method);
    // So the bucket is empty now.
    assert.equal(errorOf(await send(peer, target)).code, -31002, target.method);
  }
  await peer.close();
  await fx.server.close();
});

Deno.test("a valid state replayed pays like a new call: one state buys one free continuation", async () => {
  const fx = fixture({}, [twoTokenLimiter()]);
  const peer = await connectPeer(fx.server, { principal: "alice", initialize: false });
  for (const target of TARGETS) {
    const { state, key } = await firstRound(peer, target); // token 1
    const runs = fx.runs.count;
    for (let i = 0; i < 2; i++) {
      // The continuation (free), then a replay of it (token 2): both are served.
      const done = resultOf(await send(peer, target, retryParams(key, state)));
      assert.equal(done.resultType, "complete", `${target.method} use ${i}`);
    }
    assert.equal(fx.runs.count, runs + 2);
    // A third use finds the bucket empty: replays are not free.
    assert.equal(errorOf(await send(peer, target, retryParams(key, state))).code, -31002);
    assert.equal(fx.runs.count, runs + 2);
  }
  await peer.close();
  await fx.server.close();
});

Deno.test("servers sharing requestStateKey accept each other's states; other keys refuse them", async () => {
  const a = fixture({ requestStateKey: KEY_A });
  const a2 = fixture({ requestStateKey: KEY_A });
  const b = fixture({ requestStateKey: KEY_B });
  const random = fixture();
  const peers = await Promise.all(
    [a, a2, b, random].map((fx) =>
      connectPeer(fx.server, { principal: "alice", initialize: false })
    ),
  );
  const [onA, onA2, onB, onRandom] = peers as [Peer, Peer, Peer, Peer];
  for (const target of TARGETS) {
    const { state, key } = await firstRound(onA, target);
    assert.equal(
      resultOf(await send(onA2, target, retryParams(key, state))).resultType,
      "complete",
    );
    await assertRefused(b, onB, target, key, state, "another key");
    await assertRefused(random, onRandom, target, key, state, "a random per-process key");
  }
  for (const peer of peers) await peer.close();
  for (const fx of [a, a2, b, random]) await fx.server.close();
});

Deno.test("a key list rotates: the old key still opens, the new key seals", async () => {
  const old = fixture({ requestStateKey: KEY_A });
  const rotated = fixture({ requestStateKey: [KEY_B, KEY_A] });
  const next = fixture({ requestStateKey: [KEY_B] });
  const peers = await Promise.all(
    [old, rotated, next].map((fx) =>
      connectPeer(fx.server, { principal: "alice", initialize: false })
    ),
  );
  const [onOld, onRotated, onNext] = peers as [Peer, Peer, Peer];
  for (const target of TARGETS) {
    const sealedOld = await firstRound(onOld, target);
    const opened = resultOf(
      await send(onRotated, target, retryParams(sealedOld.key, sealedOld.state)),
    );
    assert.equal(opened.resultType, "complete", "the old key opens");
    const sealedNew = await firstRound(onRotated, target);
    const reopened = resultOf(
      await send(onNext, target, retryParams(sealedNew.key, sealedNew.state)),
    );
    assert.equal(reopened.resultType, "complete", "sealed with the new key");
    await assertRefused(old, onOld, target, sealedNew.key, sealedNew.state, "the old-only server");
  }
  for (const peer of peers) await peer.close();
  for (const fx of [old, rotated, next]) await fx.server.close();
});

Deno.test("a short requestStateKey is refused at start-up, naming the option", () => {
  assert.throws(
    () => testServer({ requestStateKey: "short" }),
    (error: unknown) => error instanceof RangeError && /requestStateKey/.test(error.message),
  );
  assert.throws(
    () => testServer({ requestStateKey: [KEY_A, "short"] }),
    (error: unknown) => error instanceof RangeError && /requestStateKey\[1\]/.test(error.message),
  );
  assert.throws(
    () => testServer({ now: 5 as unknown as () => number }),
    (error: unknown) => error instanceof TypeError && /now must be a function/.test(error.message),
  );
});
