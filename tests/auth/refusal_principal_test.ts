/**
 * An authorization refusal's audit entry names the principal the refusal
 * proved, or none: never the server's default `principal` (the one stdio
 * sessions get), which would attribute an anonymous 401 to the operator.
 */

import assert from "node:assert/strict";
import { createServer } from "../../mod.ts";
import { oauthResourceServer } from "../../http.ts";
import { createGuardrails } from "../../guardrails.ts";
import { modernPost } from "../_helpers/http_helpers.ts";
import { AUDIENCE, bearer, CALL_WHOAMI, tools, withAs } from "../_helpers/auth_fixture.ts";

Deno.test("a 401 is audited without a principal even when the server has a default one", async () => {
  await withAs(async (as) => {
    const dir = await Deno.makeTempDir();
    const file = `${dir}/audit.jsonl`;
    const server = createServer({
      name: "audited",
      version: "1.0.0",
      log: () => {},
      principal: "stdio-operator",
      tools: tools(),
      guardrails: createGuardrails({ audit: { file } }),
      http: {
        auth: oauthResourceServer({ issuer: as.issuer, audience: AUDIENCE, timeoutMs: 300 }),
        keepAliveMs: 0,
      },
    });
    for (const headers of [{}, bearer("not-a-jwt")]) {
      const response = await modernPost(server, CALL_WHOAMI, headers);
      assert.equal(response.status, 401);
      await response.body?.cancel();
    }
    await server.close();
    const entries = (await Deno.readTextFile(file)).split("\n").filter((line) => line !== "")
      .map((line) => JSON.parse(line)).filter((entry) => entry.event === undefined);
    assert.equal(entries.length, 2);
    for (const entry of entries) assert.equal(entry.principal, null, JSON.stringify(entry));
    await Deno.remove(dir, { recursive: true });
  });
});
