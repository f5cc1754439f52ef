/**
 * Nested skills (SEP-2640): a skill registered under another's root is
 * supporting content of the enclosing skill, so the enclosing skill's entry
 * lists its files and the enclosing directories list its folder, in both
 * eras, whatever order the two are registered and removed in. A file both
 * hold is one resource, shared only when its bytes are the same.
 */

import assert from "node:assert/strict";
import { createServer, type Server } from "../../../mod.ts";
import { loadSkill } from "../../../skills.ts";
import { accessPolicy } from "../../../guardrails.ts";
import { errorOf, initialize, modernRequest, request, resultOf } from "../../_helpers/helpers.ts";

const ERAS = ["legacy", "modern"] as const;
type Era = (typeof ERAS)[number];

const manifest = (name: string) =>
  `---\nname: ${name}\ndescription: The ${name} skill\n---\n# ${name}\n`;
const C_FILES = { "SKILL.md": manifest("c"), "notes.md": "c notes" };
const D_FILES = { "SKILL.md": manifest("d"), "refs/r.md": "d ref" };

async function ask(server: Server, era: Era, method: string, params = {}): Promise<unknown> {
  return await server.handle(
    era === "modern" ? modernRequest(1, method, params) : request(1, method, params),
  );
}

async function entryUris(server: Server, era: Era, uri: string): Promise<string[]> {
  const skill = resultOf(await ask(server, era, "skills/get", { uri })).skill as {
    resources: { uri: string }[];
  };
  return skill.resources.map((resource) => resource.uri);
}

/** Every direct child of `uri`, page after page; folders end in `/`. */
async function children(server: Server, era: Era, uri: string): Promise<string[]> {
  const seen: string[] = [];
  let cursor: unknown = undefined;
  do {
    const params = cursor === undefined ? { uri } : { uri, cursor };
    const read = resultOf(await ask(server, era, "resources/directory/read", params));
    for (const child of read.resources as { uri: string; mimeType: string }[]) {
      seen.push(child.mimeType === "inode/directory" ? `${child.uri}/` : child.uri);
    }
    cursor = read.nextCursor;
  } while (cursor !== undefined);
  return seen;
}

const C_ALONE = ["skill://c/SKILL.md", "skill://c/notes.md"];
const C_WITH_D = [
  "skill://c/SKILL.md",
  "skill://c/d/SKILL.md",
  "skill://c/d/refs/r.md",
  "skill://c/notes.md",
];
const D_ALONE = ["skill://c/d/SKILL.md", "skill://c/d/refs/r.md"];

async function started(): Promise<Server> {
  const server = createServer({ name: "s", version: "1", pageSize: 1 });
  await server.handle(initialize(0, "2025-11-25"));
  return server;
}

for (const era of ERAS) {
  for (const order of ["c then c/d", "c/d then c"] as const) {
    Deno.test(`${era}, ${order}: the enclosing skill's entry and root list the nested skill`, async () => {
      const server = await started();
      const c = await loadSkill({ files: C_FILES });
      const d = await loadSkill({ path: "c/d", files: D_FILES });
      const [first, second] = order === "c then c/d" ? [c, d] : [d, c];
      server.skill(first);
      const handle = server.skill(second);
      assert.deepEqual(await entryUris(server, era, "skill://c/SKILL.md"), C_WITH_D);
      assert.deepEqual(await entryUris(server, era, "skill://c/d/SKILL.md"), D_ALONE);
      // skills/list pages (one entry a page) carry the same entries.
      const page = resultOf(await ask(server, era, "skills/list"));
      const listed = page.skills as { uri: string; resources: { uri: string }[] }[];
      assert.equal(listed.length, 1);
      assert.deepEqual(listed[0]?.resources.map((r) => r.uri), C_WITH_D);
      // Every direct child of the root, one a page.
      assert.deepEqual(await children(server, era, "skill://c"), [
        "skill://c/SKILL.md",
        "skill://c/d/",
        "skill://c/notes.md",
      ]);
      // Withdrawing the second skill rebuilds the first one's entry and tree.
      handle.remove();
      if (first === c) {
        assert.deepEqual(await entryUris(server, era, "skill://c/SKILL.md"), C_ALONE);
        assert.equal(
          errorOf(await ask(server, era, "resources/directory/read", { uri: "skill://c/d" })).code,
          -32602,
        );
        assert.deepEqual(await children(server, era, "skill://c"), C_ALONE);
      } else {
        assert.deepEqual(await entryUris(server, era, "skill://c/d/SKILL.md"), D_ALONE);
        assert.equal(
          errorOf(await ask(server, era, "skills/get", { uri: "skill://c/SKILL.md" })).code,
          -32602,
        );
        assert.equal(
          errorOf(await ask(server, era, "resources/directory/read", { uri: "skill://c" })).code,
          -32602,
        );
        assert.deepEqual(await children(server, era, "skill://c/d"), [
          "skill://c/d/SKILL.md",
          "skill://c/d/refs/",
        ]);
      }
      await server.close();
    });
  }
}

for (const era of ERAS) {
  Deno.test(`${era}: a nested skill inside its enclosing skill's files shares them, same bytes only`, async () => {
    const server = await started();
    const nestedFiles: Record<string, string> = { ...C_FILES };
    for (const [path, text] of Object.entries(D_FILES)) nestedFiles[`d/${path}`] = text;
    const c = server.skill(await loadSkill({ files: nestedFiles }));
    // Different bytes at a URI c already serves: refused, nothing of it kept.
    const changed = await loadSkill({ path: "c/d", files: { ...D_FILES, "refs/r.md": "other" } });
    assert.throws(() => server.skill(changed), TypeError);
    assert.equal(
      errorOf(await ask(server, era, "skills/get", { uri: "skill://c/d/SKILL.md" })).code,
      -32602,
    );
    const d = server.skill(await loadSkill({ path: "c/d", files: D_FILES }));
    assert.deepEqual(await entryUris(server, era, "skill://c/SKILL.md"), C_WITH_D);
    assert.deepEqual(await entryUris(server, era, "skill://c/d/SKILL.md"), D_ALONE);
    const names = async () => {
      const listed = resultOf(await ask(server, era, "resources/list")) as Record<string, unknown>;
      const all: { uri: string; name: string }[] = [];
      let page = listed;
      all.push(...page.resources as { uri: string; name: string }[]);
      while (page.nextCursor !== undefined) {
        page = resultOf(await ask(server, era, "resources/list", { cursor: page.nextCursor }));
        all.push(...page.resources as { uri: string; name: string }[]);
      }
      return all.filter((r) => r.uri === "skill://c/d/SKILL.md").map((r) => r.name);
    };
    // One resource, named by the nested skill's own frontmatter while it is registered.
    assert.deepEqual(await names(), ["d"]);
    d.remove();
    assert.deepEqual(await names(), ["d/SKILL.md"]);
    const read = resultOf(
      await ask(server, era, "resources/read", { uri: "skill://c/d/refs/r.md" }),
    );
    assert.equal((read.contents as { text: string }[])[0]?.text, "d ref");
    c.remove();
    assert.deepEqual(await names(), []);
    await server.close();
  });
}

for (const era of ERAS) {
  Deno.test(`${era}: a nested skill the policy hides is left out of the enclosing entry and root`, async () => {
    const server = createServer({
      name: "s",
      version: "1",
      guardrails: [accessPolicy({ resources: { deny: ["skill://c/d/*"] } })],
    });
    await server.handle(initialize(0, "2025-11-25"));
    server.skill(await loadSkill({ files: C_FILES }));
    server.skill(await loadSkill({ path: "c/d", files: D_FILES }));
    assert.deepEqual(await entryUris(server, era, "skill://c/SKILL.md"), C_ALONE);
    const listed = resultOf(await ask(server, era, "skills/list")).skills as {
      uri: string;
      resources: { uri: string }[];
    }[];
    assert.deepEqual(listed.map((skill) => skill.uri), ["skill://c/SKILL.md"]);
    assert.deepEqual(listed[0]?.resources.map((r) => r.uri), C_ALONE);
    // Its folder is neither listed under the enclosing root nor readable.
    assert.deepEqual(await children(server, era, "skill://c"), C_ALONE);
    assert.equal(
      errorOf(await ask(server, era, "resources/directory/read", { uri: "skill://c/d" })).code,
      -32602,
    );
    await server.close();
  });
}
