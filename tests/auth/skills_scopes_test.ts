/**
 * OAuth scope rules over skills (SEP-2640), over HTTP in both eras: a skill
 * whose files need a scope the token lacks is left out of `skills/list`,
 * `resources/list` and directory listings, and `skills/get` and directory
 * reads of it are 403 `insufficient_scope` with the same challenge
 * `resources/read` of its SKILL.md gets; a token with the scope sees and
 * gets it all. A rule over one file hides that file from its directory.
 */

import assert from "node:assert/strict";
import { createServer, type Server } from "../../mod.ts";
import { oauthResourceServer } from "../../http.ts";
import { loadSkill } from "../../skills.ts";
import { isRecord, modernRequest, request, resultOf } from "../_helpers/helpers.ts";
import { jsonOf, modernPost, openSession, type TestSession } from "../_helpers/http_helpers.ts";
import { AUDIENCE, bearer, METADATA_URL, withAs } from "../_helpers/auth_fixture.ts";
import type { TestAuthServer } from "../_helpers/auth_server.ts";

function skillFiles(name: string): Record<string, string> {
  return {
    "SKILL.md": `---\nname: ${name}\ndescription: The ${name} skill\n---\n# ${name}\n`,
    "NOTES.md": `notes of ${name}\n`,
    "references/GUIDE.md": `guide of ${name}\n`,
  };
}

async function scopedServer(as: TestAuthServer): Promise<Server> {
  const server = createServer({
    name: "scoped-skills",
    version: "1.0.0",
    log: () => {},
    http: {
      auth: oauthResourceServer({
        issuer: as.issuer,
        audience: AUDIENCE,
        scopes: {
          resources: {
            "skill://billing-skill/*": ["billing:read"],
            "skill://open-skill/NOTES.md": ["notes:read"],
          },
        },
      }),
      keepAliveMs: 0,
    },
  });
  server.skill(await loadSkill({ files: skillFiles("billing-skill") }));
  server.skill(await loadSkill({ files: skillFiles("open-skill") }));
  return server;
}

const CHALLENGE = (scope: string) =>
  `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${METADATA_URL}", error_description="the access token lacks a scope this request needs"`;

type Ask = (method: string, params: Record<string, unknown>, token: string) => Promise<Response>;

/** Runs `body` with a way to send requests in each era, over HTTP. */
async function eachEra(
  body: (ask: Ask, era: string, tokens: { narrow: string; wide: string }) => Promise<void>,
): Promise<void> {
  await withAs(async (as) => {
    const narrow = await as.mint({ sub: "alice", aud: AUDIENCE, scope: "orders:read" });
    const wide = await as.mint({
      sub: "alice",
      aud: AUDIENCE,
      scope: "orders:read billing:read notes:read",
    });
    for (const era of ["legacy", "modern"] as const) {
      const server = await scopedServer(as);
      let ids = 0;
      let session: TestSession | undefined;
      if (era === "legacy") session = await openSession(server, { headers: bearer(narrow) });
      const ask: Ask = (method, params, token) =>
        session === undefined
          ? modernPost(server, modernRequest(++ids, method, params), bearer(token))
          : session.post(request(++ids, method, params), bearer(token));
      try {
        await body(ask, era, { narrow, wide });
      } finally {
        await server.close();
      }
    }
  });
}

async function uris(response: Response, key: string, label: string): Promise<string[]> {
  assert.equal(response.status, 200, label);
  const listed = resultOf(await jsonOf(response))[key];
  assert.ok(Array.isArray(listed), label);
  return listed.map((item) => (isRecord(item) ? String(item.uri) : "")).sort();
}

async function assertInsufficient(response: Response, scope: string, label: string) {
  assert.equal(response.status, 403, label);
  assert.equal(response.headers.get("www-authenticate"), CHALLENGE(scope), label);
  await response.body?.cancel();
}

Deno.test("skills/list, resources/list and directory reads leave out what the token's scopes do not cover", async () => {
  await eachEra(async (ask, era, { narrow, wide }) => {
    const skills = async (token: string) =>
      await uris(await ask("skills/list", {}, token), "skills", `${era} skills/list`);
    assert.deepEqual(await skills(narrow), ["skill://open-skill/SKILL.md"]);
    assert.deepEqual(await skills(wide), [
      "skill://billing-skill/SKILL.md",
      "skill://open-skill/SKILL.md",
    ]);
    const resources = await uris(await ask("resources/list", {}, narrow), "resources", era);
    assert.deepEqual(resources, [
      "skill://open-skill/SKILL.md",
      "skill://open-skill/references/GUIDE.md",
    ]);
    const directory = async (token: string) =>
      await uris(
        await ask("resources/directory/read", { uri: "skill://open-skill" }, token),
        "resources",
        `${era} directory read`,
      );
    // NOTES.md needs notes:read: a token without it does not see it in its directory.
    assert.deepEqual(await directory(narrow), [
      "skill://open-skill/SKILL.md",
      "skill://open-skill/references",
    ]);
    assert.deepEqual(await directory(wide), [
      "skill://open-skill/NOTES.md",
      "skill://open-skill/SKILL.md",
      "skill://open-skill/references",
    ]);
  });
});

Deno.test("skills/get and directory reads of a skill needing a scope the token lacks are 403 insufficient_scope, as resources/read is", async () => {
  await eachEra(async (ask, era, { narrow, wide }) => {
    const manifest = { uri: "skill://billing-skill/SKILL.md" };
    await assertInsufficient(
      await ask("resources/read", manifest, narrow),
      "billing:read",
      `${era} resources/read`,
    );
    await assertInsufficient(
      await ask("skills/get", manifest, narrow),
      "billing:read",
      `${era} skills/get`,
    );
    for (const uri of ["skill://billing-skill", "skill://billing-skill/references"]) {
      await assertInsufficient(
        await ask("resources/directory/read", { uri }, narrow),
        "billing:read",
        `${era} directory ${uri}`,
      );
    }
    await assertInsufficient(
      await ask("resources/read", { uri: "skill://open-skill/NOTES.md" }, narrow),
      "notes:read",
      `${era} one file`,
    );
    // The token with the scope gets all of it.
    const got = await ask("skills/get", manifest, wide);
    assert.equal(got.status, 200, era);
    const skill = resultOf(await jsonOf(got)).skill;
    assert.ok(isRecord(skill) && skill.uri === manifest.uri, `${era} ${JSON.stringify(skill)}`);
    const listing = await uris(
      await ask("resources/directory/read", { uri: "skill://billing-skill/references" }, wide),
      "resources",
      `${era} wide directory`,
    );
    assert.deepEqual(listing, ["skill://billing-skill/references/GUIDE.md"]);
    // Allowed skills are untouched by the rule.
    const open = await ask("skills/get", { uri: "skill://open-skill/SKILL.md" }, narrow);
    assert.equal(open.status, 200, era);
    await open.body?.cancel();
  });
});
