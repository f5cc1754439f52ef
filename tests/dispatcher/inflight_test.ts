/**
 * The in-flight table with the synchronous fast path: a request answered
 * synchronously is never entered; one that waits is entered before the
 * dispatcher returns, so cancellation and shutdown still reach it, also
 * when the shutdown began while its synchronous part ran.
 */

import assert from "node:assert/strict";
import {
  Dispatcher,
  type DispatchSession,
  type MethodHandler,
} from "../../src/dispatcher/dispatcher.ts";
import { InflightTable } from "../../src/dispatcher/inflight.ts";
import type { InflightRequest } from "../../src/dispatcher/inflight.ts";
import { request } from "../_helpers/helpers.ts";

class TestSession implements DispatchSession {
  readonly inflight = new InflightTable();
  allowsBatches(): boolean {
    return false;
  }
}

function dispatcherWith(methods: [string, MethodHandler<TestSession>][]): Dispatcher<TestSession> {
  return new Dispatcher<TestSession>({
    methods: new Map(methods),
    notifications: new Map(),
    log: () => {},
  });
}

Deno.test("a waiting request is in the table and can be cancelled; a synchronous one never enters it", async () => {
  let seen: InflightRequest | undefined;
  let sizeDuringSync = -1;
  const session = new TestSession();
  const dispatcher = dispatcherWith([
    ["now", () => {
      sizeDuringSync = session.inflight.size;
      return {};
    }],
    ["wait", (_params, { request }) => {
      seen = request;
      return new Promise((resolve) => request.signal.addEventListener("abort", () => resolve({})));
    }],
  ]);
  assert.deepEqual(dispatcher.dispatch(request(1, "now"), session), {
    jsonrpc: "2.0",
    id: 1,
    result: {},
  });
  assert.equal(sizeDuringSync, 0);
  const waiting = dispatcher.dispatch(request(2, "wait"), session);
  assert.ok(waiting instanceof Promise);
  assert.equal(session.inflight.size, 1);
  assert.deepEqual(dispatcher.dispatch(request(2, "now"), session), {
    jsonrpc: "2.0",
    id: 2,
    error: { code: -32600, message: "Invalid request: id is already in use" },
  });
  assert.equal(session.inflight.cancel(2, new Error("stop")), true);
  assert.equal(await waiting, undefined, "a request the client cancelled gets no reply");
  assert.equal(seen?.aborted, true);
  assert.equal(session.inflight.size, 0);
});

Deno.test("a request whose synchronous part saw every request aborted is aborted once it waits", async () => {
  const session = new TestSession();
  let seen: InflightRequest | undefined;
  const dispatcher = dispatcherWith([
    ["shutdown-then-wait", (_params, { request }) => {
      seen = request;
      session.inflight.abortAll(new Error("shutting down"));
      return new Promise((resolve) => setTimeout(() => resolve({ late: true }), 1));
    }],
  ]);
  const reply = dispatcher.dispatch(request(1, "shutdown-then-wait"), session);
  assert.ok(reply instanceof Promise);
  assert.equal(seen?.aborted, true, "the abort reached it though it was not in the table yet");
  await reply;
});
