/**
 * The seam between `loadSkill()` (the `./skills` entry) and `server.skill()`
 * (the root entry): a server publishes only what `loadSkill()` read and
 * hashed. A hand-made, copied or edited value is refused with a clear
 * error and the server keeps serving; the loaded value cannot be changed,
 * and neither can the bytes behind it through the caller's own buffers.
 */

import assert from "node:assert/strict";
import { createServer } from "../../../mod.ts";
import { loadSkill } from "../../../skills.ts";
import { isRecord, request, resultOf } from "../../_helpers/helpers.ts";

const MANIFEST = "---\nname: demo\ndescription: A demo skill\n---\n# Demo\n";

async function sha256(bytes: Uint8Array): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as BufferSource));
  return `sha256:${[...hash].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

Deno.test("server.skill() refuses every value loadSkill() did not return, and keeps serving", async () => {
  const server = createServer({ name: "s", version: "1" });
  const loaded = await loadSkill({ files: { "SKILL.md": MANIFEST } });
  const forged: unknown[] = [
    undefined,
    null,
    "skill://demo/SKILL.md",
    { path: "demo", uri: "skill://demo/SKILL.md" },
    { ...loaded },
    structuredClone(loaded),
    Object.create(loaded),
  ];
  for (const value of forged) {
    assert.throws(
      () => server.skill(value as typeof loaded),
      (error: unknown) =>
        error instanceof TypeError && error.message.includes("loadSkill()") &&
        error.message.includes("@warden/mcp/skills"),
      String(value),
    );
  }
  assert.deepEqual(resultOf(await server.handle(request(1, "resources/list"))).resources, []);
  const handle = server.skill(loaded);
  assert.equal(handle.uri, "skill://demo/SKILL.md");
  assert.throws(() => server.skill(loaded), TypeError, "already registered");
  assert.equal(handle.remove(), true);
  assert.equal(handle.remove(), false);
  // The same value publishes again after remove(), and on another server at once.
  const again = server.skill(loaded);
  const other = createServer({ name: "t", version: "1" });
  other.skill(loaded);
  const listed = resultOf(await other.handle(request(2, "resources/list"))).resources;
  assert.ok(Array.isArray(listed) && listed.length === 1);
  again.remove();
  await server.close();
  await other.close();
});

Deno.test("a loaded skill is frozen, and what is served is the bytes loadSkill() hashed", async () => {
  const guide = new TextEncoder().encode("guide v1");
  const loaded = await loadSkill({ files: { "SKILL.md": MANIFEST, "GUIDE.md": guide } });
  assert.ok(Object.isFrozen(loaded) && Object.isFrozen(loaded.files));
  assert.ok(Object.isFrozen(loaded.frontmatter) && Object.isFrozen(loaded.files[1]));
  assert.throws(() => {
    (loaded.files[1] as { digest: string }).digest = "sha256:00";
  }, TypeError);
  const digest = await sha256(guide);
  assert.equal(loaded.files[1]?.digest, digest);
  guide.fill(0x41); // the caller's buffer, changed after loading
  const server = createServer({ name: "s", version: "1" });
  server.skill(loaded);
  const read = resultOf(
    await server.handle(request(1, "resources/read", { uri: "skill://demo/GUIDE.md" })),
  );
  const contents = read.contents;
  assert.ok(Array.isArray(contents) && isRecord(contents[0]));
  assert.equal(contents[0].text, "guide v1");
  const got = resultOf(await server.handle(request(2, "skills/get", { uri: loaded.uri })));
  assert.ok(isRecord(got.skill) && Array.isArray(got.skill.resources));
  const entry = got.skill.resources.find((r: unknown) =>
    isRecord(r) && r.uri === loaded.files[1]?.uri
  );
  assert.ok(isRecord(entry) && entry.digest === digest);
  await server.close();
});
