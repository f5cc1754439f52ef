/**
 * The order desk's quotas under its policy (`deno task start:guarded`, a
 * child process over real pipes): a fifth `subscriptions/listen` stream of
 * the one stdio principal is refused with -31002 and audited as
 * `quota_exceeded`, and a stream that ends gives its place back.
 */

import assert from "node:assert/strict";
import { isRecord, modernMeta } from "../_helpers/helpers.ts";
import { ROOT, spawnServer } from "../_helpers/subprocess.ts";

async function guardedArgs(): Promise<string[]> {
  const config: unknown = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  assert.ok(isRecord(config) && isRecord(config.tasks));
  const [, ...args] = String(config.tasks["start:guarded"]).split(" ");
  return args;
}

function listen(id: string): Record<string, unknown> {
  return {
    jsonrpc: "2.0",
    id,
    method: "subscriptions/listen",
    params: { notifications: { toolsListChanged: true }, _meta: modernMeta() },
  };
}

/** Waits until stdout holds `count` acknowledgements. */
async function acknowledged(stdout: readonly string[], count: number): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const acks = stdout.filter((line) => line.includes("notifications/subscriptions/acknowledged"));
    if (acks.length >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`fewer than ${count} acknowledgements: ${JSON.stringify(stdout)}`);
}

Deno.test("the guarded order desk refuses a fifth listen stream of its principal, audited", async () => {
  const desk = spawnServer(await guardedArgs(), { clientName: "quota-test" });
  try {
    for (let i = 1; i <= 4; i++) await desk.send(listen(`s${i}`));
    await acknowledged(desk.stdout, 4);
    const refused = await desk.call("subscriptions/listen", listen("x").params as never);
    assert.ok(isRecord(refused.error), JSON.stringify(refused));
    assert.equal(refused.error.code, -31002);
    assert.deepEqual(refused.error.data, { quota: "listenStreams", limit: 4 });
    // Ending one stream (notifications/cancelled) gives its place back.
    await desk.send({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: "s1", reason: "done" },
    });
    await desk.send(listen("s5"));
    await acknowledged(desk.stdout, 5);
    await desk.closeInput();
    await desk.status;
    await desk.pipesDone();
    const audited = desk.stderr.filter((line) => line.includes('"quota_exceeded"'));
    assert.equal(audited.length, 1, desk.stderr.join("\n"));
    assert.match(audited[0] ?? "", /"method":"subscriptions\/listen"/);
  } finally {
    await desk.cleanUp();
  }
});
