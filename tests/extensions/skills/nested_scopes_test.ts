/**
 * OAuth scope rules over nested skills (SEP-2640), over HTTP in both eras:
 * a nested skill whose files need a scope the token lacks is left out of the
 * enclosing skill's entry (skills/get and skills/list) and of its root's
 * directory listing; a token with the scope sees all of it.
 */

import assert from "node:assert/strict";
import { createServer, type Server } from "../../../mod.ts";
import { oauthResourceServer } from "../../../http.ts";
import { loadSkill } from "../../../skills.ts";
import { isRecord, modernRequest, request, resultOf } from "../../_helpers/helpers.ts";
import { jsonOf, modernPost, openSession } from "../../_helpers/http_helpers.ts";
import { AUDIENCE, bearer, withAs } from "../../_helpers/auth_fixture.ts";
import type { TestAuthServer } from "../../_helpers/auth_server.ts";

const manifest = (name: string) => `---\nname: ${name}\ndescription: The ${name} skill\n---\n`;

async function scopedServer(as: TestAuthServer): Promise<Server> {
  const server = createServer({
    name: "nested-scopes",
    version: "1.0.0",
    log: () => {},
    http: {
      auth: oauthResourceServer({
        issuer: as.issuer,
        audience: AUDIENCE,
        scopes: { resources: { "skill://team/payroll/*": ["payroll:read"] } },
      }),
      keepAliveMs: 0,
    },
  });
  // The nested skill first: the enclosing entry is rebuilt when `team` arrives.
  server.skill(
    await loadSkill({ path: "team/payroll", files: { "SKILL.md": manifest("payroll") } }),
  );
  server.skill(await loadSkill({ files: { "SKILL.md": manifest("team"), "a.md": "a" } }));
  return server;
}

function urisOf(list: unknown): string[] {
  assert.ok(Array.isArray(list));
  return list.map((item) => (isRecord(item) ? String(item.uri) : ""));
}

Deno.test("a nested skill the token's scopes do not cover is left out of the enclosing entry and root", async () => {
  await withAs(async (as) => {
    const narrow = await as.mint({ sub: "alice", aud: AUDIENCE, scope: "orders:read" });
    const wide = await as.mint({ sub: "alice", aud: AUDIENCE, scope: "payroll:read" });
    for (const era of ["legacy", "modern"] as const) {
      const server = await scopedServer(as);
      const session = era === "legacy"
        ? await openSession(server, { headers: bearer(narrow) })
        : undefined;
      let ids = 0;
      const ask = async (method: string, params: Record<string, unknown>, token: string) => {
        const response = session === undefined
          ? await modernPost(server, modernRequest(++ids, method, params), bearer(token))
          : await session.post(request(++ids, method, params), bearer(token));
        assert.equal(response.status, 200, `${era} ${method}`);
        return resultOf(await jsonOf(response));
      };
      try {
        const team = { uri: "skill://team/SKILL.md" };
        const own = ["skill://team/SKILL.md", "skill://team/a.md"];
        const all = ["skill://team/SKILL.md", "skill://team/a.md", "skill://team/payroll/SKILL.md"];
        const entry = async (token: string) =>
          urisOf(
            ((await ask("skills/get", team, token)).skill as { resources: unknown }).resources,
          );
        assert.deepEqual(await entry(narrow), own, era);
        assert.deepEqual(await entry(wide), all, era);
        const listed = (await ask("skills/list", {}, narrow)).skills as { resources: unknown }[];
        assert.deepEqual(urisOf(listed), ["skill://team/SKILL.md"], era);
        assert.deepEqual(urisOf(listed[0]?.resources), own, era);
        const root = async (token: string) =>
          urisOf((await ask("resources/directory/read", { uri: "skill://team" }, token)).resources);
        assert.deepEqual(await root(narrow), own, era);
        assert.deepEqual(await root(wide), [
          "skill://team/SKILL.md",
          "skill://team/a.md",
          "skill://team/payroll",
        ], era);
      } finally {
        await server.close();
      }
    }
  });
});
