/**
 * The skills extension (SEP-2640) end to end, in both eras: declaration only
 * while a skill is registered, entries whose digests match the bytes read,
 * pagination, directory reads, every spelling of a traversal refused, links
 * out of a skill directory never served, and the access policy applied.
 */

import assert from "node:assert/strict";
import { createServer, type Server } from "../../../mod.ts";
import { loadSkill } from "../../../skills.ts";
import { accessPolicy, type Guardrail } from "../../../guardrails.ts";
import { errorOf, initialize, modernRequest, request, resultOf } from "../../_helpers/helpers.ts";

const MANIFEST =
  '---\nname: demo\ndescription: A demo skill\nmetadata:\n  version: "2"\n---\n# Demo\n';
const FILES = { "SKILL.md": MANIFEST, "references/GUIDE.md": "guide", "templates/a.txt": "a" };
const ERAS = ["legacy", "modern"] as const;
type Era = (typeof ERAS)[number];

/** One request in `era`: a legacy one on the embedded session (initialized first), or a modern one. */
async function ask(
  server: Server,
  era: Era,
  method: string,
  params: Record<string, unknown> = {},
): Promise<unknown> {
  if (era === "modern") return await server.handle(modernRequest(1, method, params));
  return await server.handle(request(1, method, params));
}

async function skilled(pageSize?: number, guardrails: Guardrail[] = []): Promise<Server> {
  const server = createServer({
    name: "s",
    version: "1",
    guardrails,
    ...(pageSize === undefined ? {} : { pageSize }),
  });
  await server.handle(initialize(0, "2025-11-25"));
  server.skill(await loadSkill({ files: FILES }));
  server.skill(
    await loadSkill({
      path: "acme/other",
      files: { "SKILL.md": MANIFEST.replace("demo", "other") },
    }),
  );
  return server;
}

async function sha256(text: string): Promise<string> {
  const hash = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)),
  );
  return `sha256:${[...hash].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

Deno.test("a server with no skill declares no skills extension and knows no skills/* method", async () => {
  const server = createServer({ name: "s", version: "1" });
  const init = resultOf(await server.handle(initialize(0, "2025-11-25")));
  assert.equal((init.capabilities as Record<string, unknown>).extensions, undefined);
  for (const era of ERAS) {
    assert.equal(errorOf(await ask(server, era, "skills/list")).code, -32601);
  }
  await server.close();
});

for (const era of ERAS) {
  Deno.test(`${era}: skills are declared, listed with digests of the bytes read, and got by URI`, async () => {
    const server = await skilled();
    const discover = resultOf(await ask(server, era, "server/discover"));
    const caps = discover.capabilities as Record<string, Record<string, unknown>>;
    assert.deepEqual(caps.extensions?.["io.modelcontextprotocol/skills"], { directoryRead: true });
    assert.ok(caps.resources !== undefined);
    const listed = resultOf(await ask(server, era, "skills/list"));
    const skills = listed.skills as {
      uri: string;
      frontmatter: unknown;
      resources: { uri: string; digest: string; size: number }[];
    }[];
    assert.deepEqual(skills.map((s) => s.uri), [
      "skill://acme/other/SKILL.md",
      "skill://demo/SKILL.md",
    ]);
    const demo = skills[1]!;
    assert.deepEqual(demo.frontmatter, {
      name: "demo",
      description: "A demo skill",
      metadata: { version: "2" },
    });
    for (const file of demo.resources) {
      const read = resultOf(await ask(server, era, "resources/read", { uri: file.uri }));
      const text = (read.contents as { text: string }[])[0]!.text;
      assert.equal(file.digest, await sha256(text), file.uri);
      assert.equal(file.size, new TextEncoder().encode(text).byteLength);
    }
    const got = resultOf(await ask(server, era, "skills/get", { uri: "skill://demo/SKILL.md" }));
    assert.deepEqual(got.skill, demo);
    assert.equal(got.nextCursor, undefined);
    if (era === "modern") {
      assert.ok(typeof got.ttlMs === "number" && typeof got.cacheScope === "string");
    }
    await server.close();
  });

  Deno.test(`${era}: skills/list pages hold whole entries and resources/directory/read lists children`, async () => {
    const server = await skilled(1);
    const first = resultOf(await ask(server, era, "skills/list"));
    assert.equal((first.skills as unknown[]).length, 1);
    const second = resultOf(await ask(server, era, "skills/list", { cursor: first.nextCursor }));
    assert.equal((second.skills as unknown[]).length, 1);
    assert.equal(second.nextCursor, undefined);
    const dir = resultOf(
      await ask(server, era, "resources/directory/read", { uri: "skill://demo" }),
    );
    assert.deepEqual((dir.resources as { uri: string }[]).map((r) => r.uri), [
      "skill://demo/SKILL.md",
    ]);
    const all: { uri: string; mimeType: string }[] = [];
    let page = dir;
    while (true) {
      all.push(...(page.resources as { uri: string; mimeType: string }[]));
      if (page.nextCursor === undefined) break;
      page = resultOf(
        await ask(server, era, "resources/directory/read", {
          uri: "skill://demo",
          cursor: page.nextCursor,
        }),
      );
    }
    assert.deepEqual(all.map((r) => [r.uri, r.mimeType]), [
      ["skill://demo/SKILL.md", "text/markdown"],
      ["skill://demo/references", "inode/directory"],
      ["skill://demo/templates", "inode/directory"],
    ]);
    const file = errorOf(
      await ask(server, era, "resources/directory/read", { uri: "skill://demo/SKILL.md" }),
    );
    assert.equal(file.code, -32602);
    await server.close();
  });

  Deno.test(`${era}: every spelling of a traversal or an unknown skill is -32602 and reads nothing`, async () => {
    const server = await skilled();
    const tricks = [
      "skill://demo/../demo/SKILL.md",
      "skill://demo/./SKILL.md",
      "skill://demo/%2e%2e/demo/SKILL.md",
      "skill://demo/%2E%2E/demo/SKILL.md",
      "skill://demo/.%2e/demo/SKILL.md",
      "skill://demo%2fSKILL.md",
      "skill://demo/references/..%2f..%2fSKILL.md",
      "skill://demo\\SKILL.md",
      "skill://demo//SKILL.md",
      "skill://a/../b/SKILL.md",
      "skill://nope/SKILL.md",
      "skill://demo/references/GUIDE.md",
      "skill://demo/SKILL.md?x",
      "skill://demo/SKILL.md#x",
      "SKILL://demo/SKILL.md",
    ];
    for (const uri of tricks) {
      assert.equal(errorOf(await ask(server, era, "skills/get", { uri })).code, -32602, uri);
      const dir = uri.replace(/\/SKILL\.md$/, "");
      assert.equal(
        errorOf(await ask(server, era, "resources/directory/read", { uri: dir })).code,
        -32602,
        dir,
      );
      // A read serves a registered file or nothing: a core that puts URIs in canonical form
      // may resolve `skill://demo/./SKILL.md` to the manifest, never to anything else.
      const read = await ask(server, era, "resources/read", { uri }) as Record<string, unknown>;
      if (!("error" in read)) {
        const text = (resultOf(read).contents as { text: string }[])[0]?.text;
        assert.ok(Object.values(FILES).includes(text ?? ""), `${uri} served ${text}`);
      }
    }
    await server.close();
  });

  Deno.test(`${era}: the access policy hides a skill from skills/list and refuses it`, async () => {
    const server = await skilled(undefined, [
      accessPolicy({ resources: { deny: ["skill://acme/*"] } }),
    ]);
    const listed = resultOf(await ask(server, era, "skills/list"));
    assert.deepEqual((listed.skills as { uri: string }[]).map((s) => s.uri), [
      "skill://demo/SKILL.md",
    ]);
    assert.ok(
      "error" in
        (await ask(server, era, "skills/get", { uri: "skill://acme/other/SKILL.md" }) as object),
    );
    assert.ok(
      "error" in
        (await ask(server, era, "resources/read", {
          uri: "skill://acme/other/SKILL.md",
        }) as object),
    );
    await server.close();
  });
}

Deno.test("loadSkill() refuses a bad frontmatter, a name that is not the last path segment, and dot paths", async () => {
  const server = createServer({ name: "s", version: "1" });
  const bad: Record<string, string>[] = [
    { "SKILL.md": "# no frontmatter" },
    { "SKILL.md": "---\nname: Demo\ndescription: x\n---\n" },
    { "SKILL.md": "---\nname: demo\n---\n" },
    { "SKILL.md": "---\nname: demo\ndescription: [unclosed\n---\n" },
    { "SKILL.md": MANIFEST, "../escape.md": "x" },
    { "SKILL.md": MANIFEST, "a/%2e%2e/b.md": "x" },
    { "README.md": "x" },
  ];
  for (const files of bad) {
    await assert.rejects(loadSkill({ files }), TypeError, JSON.stringify(Object.keys(files)));
  }
  await assert.rejects(loadSkill({ path: "acme/other", files: FILES }), TypeError);
  await assert.rejects(loadSkill({ path: "acme/../demo", files: FILES }), TypeError);
  await server.close();
});

Deno.test("loadSkill() reads a directory, follows links inside it and refuses one leading out", async () => {
  const root = await Deno.makeTempDir({ prefix: "warden-skill-" });
  const outside = await Deno.makeTempDir({ prefix: "warden-outside-" });
  try {
    await Deno.mkdir(`${root}/demo/references`, { recursive: true });
    await Deno.writeTextFile(`${root}/demo/SKILL.md`, MANIFEST);
    await Deno.writeTextFile(`${root}/demo/references/GUIDE.md`, "guide");
    await Deno.writeTextFile(`${root}/demo/.env`, "SECRET=1");
    await Deno.symlink(`${root}/demo/references/GUIDE.md`, `${root}/demo/alias.md`);
    const server = createServer({ name: "s", version: "1" });
    const handle = server.skill(await loadSkill({ directory: `${root}/demo` }));
    const got = resultOf(await server.handle(request(1, "skills/get", { uri: handle.uri })));
    const uris = ((got.skill as Record<string, unknown>).resources as { uri: string }[]).map((r) =>
      r.uri
    );
    assert.deepEqual(uris, [
      "skill://demo/SKILL.md",
      "skill://demo/alias.md",
      "skill://demo/references/GUIDE.md",
    ]);
    assert.equal(handle.remove(), true);
    assert.equal(errorOf(await server.handle(request(2, "skills/list"))).code, -32601);

    await Deno.writeTextFile(`${outside}/secret.md`, "secret");
    await Deno.symlink(`${outside}/secret.md`, `${root}/demo/references/leak.md`);
    await assert.rejects(
      loadSkill({ directory: `${root}/demo` }),
      TypeError,
      "symbolic link out",
    );
    await Deno.remove(`${root}/demo/references/leak.md`);
    await Deno.symlink(outside, `${root}/demo/outdir`);
    await assert.rejects(
      loadSkill({ directory: `${root}/demo` }),
      TypeError,
      "symbolic link out",
    );
    const listed = await server.handle(request(3, "resources/list"));
    assert.deepEqual(resultOf(listed).resources, []);
    await server.close();
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("loadSkill() publishes no hidden file or directory through a link to it", async () => {
  const root = await Deno.makeTempDir({ prefix: "warden-skill-" });
  try {
    await Deno.mkdir(`${root}/demo/.git`, { recursive: true });
    await Deno.writeTextFile(`${root}/demo/SKILL.md`, MANIFEST);
    await Deno.writeTextFile(`${root}/demo/.env`, "SECRET=1");
    await Deno.writeTextFile(`${root}/demo/.git/config`, "[remote] token");
    await Deno.symlink(`${root}/demo/.env`, `${root}/demo/settings.txt`);
    await Deno.symlink(`${root}/demo/.git`, `${root}/demo/history`);
    const loaded = await loadSkill({ directory: `${root}/demo` });
    assert.deepEqual(loaded.files.map((file) => file.path), ["SKILL.md"]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
