/**
 * No spelling of a denied skill's URI gets its content out (issue 22's
 * property, for skills): a server publishes two skills, an access-policy
 * glob denies every file of one; random, seeded spellings (percent-escapes
 * in either hex case, dot segments, scheme case, encoded separators) of its
 * SKILL.md, a supporting file and its directories are sent to
 * `resources/read`, `skills/get`, `resources/directory/read` and the
 * subscriptions of both eras, over the memory pair and HTTP. A marker
 * planted in every denied file never appears in a reply; a spelling of an
 * allowed URI gives exactly what its canonical spelling gives or is refused
 * with -32602, never another file; `resources/read` of a spelling the
 * canonical form names (not one to refuse) always succeeds, so a server
 * that stopped canonicalising fails here; `skills/list` never shows the
 * denied skill.
 */

import assert from "node:assert/strict";
import { createServer, ErrorCode, type Server } from "../../../mod.ts";
import { loadSkill } from "../../../skills.ts";
import { createGuardrails } from "../../../guardrails.ts";
import { isRecord } from "../../_helpers/helpers.ts";
import { seededRandom, type Spelling, spellings } from "../../_helpers/uri_spellings.ts";
import {
  codeOf,
  deniedCode,
  ERAS,
  type Message,
  paramsIn,
  waitFor,
  type Wire,
  type WireEra,
  WIRES,
} from "../../_helpers/wire_clients.ts";

/** In every file of the denied skill, and nowhere else. */
const MARKER = "ZEBRA-CANARY-5521";

function files(name: string, marker: string): Record<string, string> {
  return {
    "SKILL.md": `---\nname: ${name}\ndescription: The ${name} skill ${marker}\n---\n# ${marker}\n`,
    "references/GUIDE.md": `guide of ${name} ${marker}\n`,
  };
}

const DENIED_FILES = [
  "skill://private-skill/SKILL.md",
  "skill://private-skill/references/GUIDE.md",
];
const ALLOWED_FILES = ["skill://open-skill/SKILL.md", "skill://open-skill/references/GUIDE.md"];
const DENIED_DIRECTORIES = ["skill://private-skill", "skill://private-skill/references"];
const ALLOWED_DIRECTORIES = ["skill://open-skill", "skill://open-skill/references"];

const SPELLINGS = 14;
/** The seed of every run; a failure names the spelling, and this replays it. */
const SEED = 2640;

async function skillDesk(): Promise<Server> {
  const server = createServer({
    name: "skills",
    version: "1.0.0",
    guardrails: createGuardrails({ access: { resources: { deny: ["skill://private-skill/*"] } } }),
  });
  server.skill(await loadSkill({ files: files("private-skill", MARKER) }));
  server.skill(await loadSkill({ files: files("open-skill", "public") }));
  return server;
}

/** Runs `body` on a fresh server for every transport and era. */
async function everyWire(
  body: (wire: Wire, era: WireEra, label: string) => Promise<void>,
): Promise<void> {
  for (const [transport, open] of WIRES) {
    for (const era of ERAS) {
      const server = await skillDesk();
      const wire = await open(server, era);
      try {
        await body(wire, era, `${transport}/${era}`);
        // Whatever was sent, replies and notifications alike, never carries the denied content.
        const all = JSON.stringify(wire.received);
        assert.ok(!all.includes(MARKER), `${transport}/${era}: the denied skill's content leaked`);
      } finally {
        await server.close();
        await wire.close();
      }
    }
  }
}

/** The result without the modern era's per-reply `_meta` and cache hints. */
function payload(reply: Message): unknown {
  if (!isRecord(reply.result)) return undefined;
  const { _meta: _, ttlMs: _ttl, cacheScope: _scope, ...rest } = reply.result;
  return rest;
}

/** A denied URI's spelling: refused (access denied, or -32602 / not found), never answered. */
function assertRefused(reply: Message, era: WireEra, what: string): void {
  const code = codeOf(reply);
  assert.ok(reply.result === undefined, `${what}: answered ${JSON.stringify(reply)}`);
  const expected = [deniedCode(era), ErrorCode.InvalidParams];
  assert.ok(expected.includes(code ?? 0), `${what}: ${JSON.stringify(reply)}`);
}

/** Sends `method` for every spelling of every target, with `check` on each reply. */
async function sendAll(
  wire: Wire,
  era: WireEra,
  method: string,
  targets: readonly string[],
  random: () => number,
  check: (reply: Message, spelling: Spelling, target: string) => void | Promise<void>,
): Promise<void> {
  for (const target of targets) {
    for (const spelling of spellings(target, random, SPELLINGS)) {
      await check(
        await wire.request(method, paramsIn(era, { uri: spelling.uri })),
        spelling,
        target,
      );
    }
  }
}

/**
 * An allowed URI's spellings: each gives what the canonical spelling gives,
 * or -32602. With `resolves`, a spelling the generator does not mark for
 * refusal must resolve (resources/read decides on the canonical form).
 */
async function assertSameAsCanonical(
  wire: Wire,
  era: WireEra,
  method: string,
  targets: readonly string[],
  random: () => number,
  label: string,
  resolves: boolean,
): Promise<number> {
  let resolved = 0;
  const canonical = new Map<string, unknown>();
  for (const target of targets) {
    const reply = await wire.request(method, paramsIn(era, { uri: target }));
    assert.ok(isRecord(reply.result), `${label}: ${method} ${target} ${JSON.stringify(reply)}`);
    canonical.set(target, payload(reply));
  }
  await sendAll(wire, era, method, targets, random, (reply, spelling, target) => {
    const what = `${label}: ${method} ${spelling.uri} (seed ${SEED}) got ${JSON.stringify(reply)}`;
    if (reply.result === undefined) {
      assert.equal(codeOf(reply), ErrorCode.InvalidParams, what);
      assert.ok(!(resolves && !spelling.refuse), `${what}: a canonical spelling was refused`);
      return;
    }
    assert.deepEqual(payload(reply), canonical.get(target), what);
    if (spelling.uri !== target) resolved++;
  });
  return resolved;
}

Deno.test("no spelling of a denied skill's files or directories gets its content, any transport, either era", async () => {
  const random = seededRandom(SEED);
  await everyWire(async (wire, era, label) => {
    const refused = (method: string) => (reply: Message, spelling: Spelling) =>
      assertRefused(reply, era, `${label}: ${method} ${spelling.uri} (seed ${SEED})`);
    await sendAll(wire, era, "resources/read", DENIED_FILES, random, refused("resources/read"));
    await sendAll(wire, era, "skills/get", [DENIED_FILES[0] ?? ""], random, refused("skills/get"));
    await sendAll(
      wire,
      era,
      "resources/directory/read",
      DENIED_DIRECTORIES,
      random,
      refused("resources/directory/read"),
    );
    const listed = await wire.request("skills/list", paramsIn(era, {}));
    assert.ok(isRecord(listed.result) && Array.isArray(listed.result.skills), label);
    const names = listed.result.skills.map((skill) => isRecord(skill) ? skill.uri : undefined);
    assert.deepEqual(names, [ALLOWED_FILES[0]], label);
    const resources = await wire.request("resources/list", paramsIn(era, {}));
    assert.ok(!JSON.stringify(resources).includes("private-skill"), label);
  });
});

Deno.test("every spelling of an allowed skill URI gives what its canonical spelling gives, or -32602", async () => {
  const random = seededRandom(SEED + 1);
  await everyWire(async (wire, era, label) => {
    const read = await assertSameAsCanonical(
      wire,
      era,
      "resources/read",
      ALLOWED_FILES,
      random,
      label,
      true,
    );
    // resources/read resolves spellings by their canonical form: some must have done so.
    assert.ok(read > 0, `${label}: no spelling of an allowed file resolved`);
    await assertSameAsCanonical(
      wire,
      era,
      "skills/get",
      [ALLOWED_FILES[0] ?? ""],
      random,
      label,
      false,
    );
    await assertSameAsCanonical(
      wire,
      era,
      "resources/directory/read",
      ALLOWED_DIRECTORIES,
      random,
      label,
      false,
    );
  });
});

Deno.test("legacy resources/subscribe: no spelling of a denied skill file subscribes; allowed ones do", async () => {
  const random = seededRandom(SEED + 2);
  for (const [transport, open] of WIRES) {
    const server = await skillDesk();
    const wire = await open(server, "legacy");
    const label = `${transport}/legacy`;
    try {
      await sendAll(wire, "legacy", "resources/subscribe", DENIED_FILES, random, (reply, s) => {
        assertRefused(reply, "legacy", `${label}: subscribe ${s.uri} (seed ${SEED + 2})`);
      });
      await sendAll(wire, "legacy", "resources/subscribe", ALLOWED_FILES, random, (reply, s) => {
        const what = `${label}: subscribe ${s.uri} (seed ${SEED + 2}) got ${JSON.stringify(reply)}`;
        assert.equal(codeOf(reply), s.refuse ? ErrorCode.InvalidParams : undefined, what);
      });
    } finally {
      await server.close();
      await wire.close();
    }
  }
});

Deno.test("modern subscriptions/listen follows no spelling of a denied skill file", async () => {
  const random = seededRandom(SEED + 3);
  for (const [transport, open] of WIRES) {
    const server = await skillDesk();
    const wire = await open(server, "modern");
    try {
      const asked = [...DENIED_FILES, ...ALLOWED_FILES].flatMap((uri) =>
        spellings(uri, random, SPELLINGS, { refusals: false }).map((s) => s.uri)
      );
      wire.open(
        "subscriptions/listen",
        paramsIn("modern", { notifications: { resourceSubscriptions: asked } }),
      );
      const ack = () =>
        wire.received.find((m) => m.method === "notifications/subscriptions/acknowledged");
      await waitFor(() => ack() !== undefined);
      const params = ack()?.params;
      const followed = isRecord(params) && isRecord(params.notifications)
        ? params.notifications.resourceSubscriptions
        : undefined;
      assert.ok(Array.isArray(followed), `${transport}: ${JSON.stringify(ack())}`);
      assert.deepEqual([...followed].sort(), [...ALLOWED_FILES].sort(), transport);
    } finally {
      await server.close();
      await wire.close();
    }
  }
});
