/**
 * No spelling of a denied resource gets through: over the memory pair
 * (stdio's path) and Streamable HTTP, in both eras, random spellings of
 * every denied and allowed URI (percent-escapes in either hex case, dot
 * segments, scheme and host case, mixed) are read, completed and subscribed
 * to. A denied URI is refused and its handler never runs; an allowed one
 * reaches the handler in the same form as its canonical spelling, or is
 * refused with -32602 when it cannot be normalised safely; the audit entry
 * names the canonical URI.
 */

import assert from "node:assert/strict";
import { createServer, ErrorCode, ModernErrorCode, type Server } from "../../../mod.ts";
import { type AuditEntry, createGuardrails, type GuardrailsConfig } from "../../../guardrails.ts";
import { isRecord } from "../../_helpers/helpers.ts";
import { memorySink } from "../../_helpers/guarded_desk.ts";
import { canonicalUri, decodedUri, foldedHost } from "../../../src/core/canonical_uri.ts";
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

const DENY = [
  "file:///data/secret*",
  "file:///data/private/*",
  "https://docs.example/secret*",
  "notes://internal/*",
  "vault://*",
];

/** URIs the deny list covers; their spellings may vary the host's case too. */
const DENIED = [
  "file:///data/secret.txt",
  "file:///data/secret-plans.md",
  "file:///data/private/keys.txt",
  "https://docs.example/secret-page",
  "notes://internal/memo",
  "vault://keys/root",
];

/** URIs open to all, and what their handler is given. */
const ALLOWED: [uri: string, handled: string][] = [
  ["file:///data/public/readme.txt", "readme file:///data/public/readme.txt"],
  ["file:///data/public/a,b;c.txt", "data public/a,b;c.txt"],
  ["https://docs.example/welcome", "docs welcome"],
  ["notes://shared/memo", "notes shared/memo"],
];

const SPELLINGS = 12;

interface FileDesk {
  server: Server;
  /** What the handlers were given, in order. */
  handled: string[];
  /** The completers' calls. */
  completed: string[];
  entries: AuditEntry[];
}

function fileDesk(rateLimit?: GuardrailsConfig["rateLimit"]): FileDesk {
  const handled: string[] = [];
  const completed: string[] = [];
  const { sink, entries } = memorySink();
  const record = (what: string, text: string): string => (handled.push(what), text);
  const complete = (what: string, values: string[]): string[] => (completed.push(what), values);
  const server = createServer({
    name: "files",
    version: "1.0.0",
    guardrails: createGuardrails({
      access: { resources: { deny: DENY } },
      audit: sink,
      ...(rateLimit === undefined ? {} : { rateLimit }),
    }),
    resources: [
      {
        uri: "file:///data/secret.txt",
        name: "secret",
        read: (c) => record(`secret ${c.uri}`, "S"),
      },
      {
        uri: "file:///data/public/readme.txt",
        name: "readme",
        read: (c) => record(`readme ${c.uri}`, "R"),
      },
    ],
    resourceTemplates: [
      {
        uriTemplate: "file:///data/{+path}",
        name: "data",
        complete: { path: (prefix) => complete(`data ${prefix}`, ["public/a.txt"]) },
        read: ({ path }) => record(`data ${path}`, `path=${path}`),
      },
      {
        uriTemplate: "https://docs.example/{+page}",
        name: "docs",
        read: ({ page }) => record(`docs ${page}`, `page=${page}`),
      },
      {
        uriTemplate: "notes://{+rest}",
        name: "notes",
        read: ({ rest }) => record(`notes ${rest}`, `rest=${rest}`),
      },
      {
        uriTemplate: "vault://keys/{+key}",
        name: "vault",
        complete: { key: (prefix) => complete(`vault ${prefix}`, ["root"]) },
        read: ({ key }) => record(`vault ${key}`, `key=${key}`),
      },
    ],
  });
  return { server, handled, completed, entries };
}

/** Runs `body` on a fresh desk for every transport and era. */
async function everyWire(
  body: (desk: FileDesk, wire: Wire, era: WireEra, label: string) => Promise<void>,
): Promise<void> {
  for (const [transport, open] of WIRES) {
    for (const era of ERAS) {
      const desk = fileDesk();
      const wire = await open(desk.server, era);
      try {
        await body(desk, wire, era, `${transport}/${era}`);
      } finally {
        await desk.server.close();
        await wire.close();
      }
    }
  }
}

/**
 * Checks a refusal: access denied, or -32602 for a spelling that cannot be
 * normalised (unless a deny glob already matches it as sent).
 */
function assertRefused(reply: Message, spelling: Spelling, era: WireEra, label: string): void {
  const code = codeOf(reply);
  const expected = spelling.refuse ? [ErrorCode.InvalidParams, deniedCode(era)] : [deniedCode(era)];
  assert.ok(expected.includes(code ?? 0), `${label}: ${spelling.uri} got ${JSON.stringify(reply)}`);
}

/**
 * The form two spellings share when they name the same thing: the host's
 * case (RFC 3986 calls it case-insensitive; a custom scheme's keeps its case
 * in the canonical form) and the escapes of reserved characters (kept in the
 * canonical form, decoded by a template) aside.
 */
function sameAs(canonical: unknown): string {
  assert.equal(typeof canonical, "string");
  return decodedUri(foldedHost(canonical as string));
}

Deno.test("no spelling of a denied resource URI is read, on any transport, in either era", async () => {
  const random = seededRandom(2201);
  await everyWire(async (desk, wire, era, label) => {
    for (const target of DENIED) {
      for (const spelling of spellings(target, random, SPELLINGS, { hostCase: true })) {
        const reply = await wire.request("resources/read", paramsIn(era, { uri: spelling.uri }));
        assertRefused(reply, spelling, era, label);
        if (!spelling.refuse) {
          const name = desk.entries.at(-1)?.name;
          assert.equal(name, canonicalUri(name ?? ""), `${label}: audited in canonical form`);
          assert.equal(sameAs(name), target, `${label}: ${spelling.uri} audited as ${name}`);
        }
      }
    }
    assert.deepEqual(desk.handled, [], `${label}: a denied resource's handler ran`);
  });
});

Deno.test("every safe spelling of an allowed URI reaches the handler as its canonical form does", async () => {
  const random = seededRandom(2202);
  await everyWire(async (desk, wire, era, label) => {
    for (const [target, handled] of ALLOWED) {
      // A custom scheme's host is an identifier: its case is not varied here.
      for (
        const spelling of spellings(target, random, SPELLINGS, {
          hostCase: !target.startsWith("notes:"),
        })
      ) {
        const before = desk.handled.length;
        const reply = await wire.request("resources/read", paramsIn(era, { uri: spelling.uri }));
        const what = `${label}: ${spelling.uri} got ${JSON.stringify(reply)}`;
        if (spelling.refuse) {
          assert.equal(codeOf(reply), ErrorCode.InvalidParams, what);
          assert.equal(desk.handled.length, before, what);
          continue;
        }
        assert.ok(isRecord(reply.result), what);
        const [contents] = reply.result.contents as Record<string, unknown>[];
        assert.deepEqual(desk.handled.slice(before), [handled], what);
        const name = desk.entries.at(-1)?.name;
        assert.equal(name, canonicalUri(spelling.uri), `${label}: audited in canonical form`);
        assert.equal(contents?.uri, name, `${label}: the handler saw what was audited`);
        assert.equal(sameAs(name), target, what);
      }
    }
  });
});

Deno.test("the reported bypass: file:///data/%73ecret.txt is refused like file:///data/secret.txt", async () => {
  await everyWire(async (desk, wire, era, label) => {
    for (
      const uri of [
        "file:///data/secret.txt",
        "file:///data/%73ecret.txt",
        "file:///data/%73%65cret-plans.md",
      ]
    ) {
      const reply = await wire.request("resources/read", paramsIn(era, { uri }));
      assert.equal(codeOf(reply), deniedCode(era), `${label}: ${uri}`);
    }
    assert.deepEqual(desk.handled, [], label);
  });
});

Deno.test("every spelling of a URI draws from the same rate-limit bucket", async () => {
  const random = seededRandom(2206);
  for (const [transport, open] of WIRES) {
    for (const era of ERAS) {
      const desk = fileDesk({
        rules: [{
          scope: "tool",
          kinds: ["resource"],
          match: ["FILE:///data/%70ublic/*"],
          capacity: 3,
          refillPerSecond: 0.001,
        }],
      });
      const wire = await open(desk.server, era);
      const safe = spellings("file:///data/public/readme.txt", random, 40, { hostCase: true })
        .filter((spelling) => !spelling.refuse).slice(0, 6);
      const codes: (number | undefined)[] = [];
      for (const { uri } of safe) {
        codes.push(codeOf(await wire.request("resources/read", paramsIn(era, { uri }))));
      }
      const limited = era === "legacy" ? ErrorCode.RateLimited : ModernErrorCode.RateLimited;
      assert.deepEqual(
        codes,
        [undefined, undefined, undefined, limited, limited, limited],
        `${transport}/${era}`,
      );
      await desk.server.close();
      await wire.close();
    }
  }
});

/** Spellings of a template: its literal text spelt, its expression kept. */
function templateSpellings(literal: string, expression: string, random: () => number): Spelling[] {
  return spellings(literal, random, SPELLINGS, { hostCase: true }).map(({ uri, refuse }) => ({
    uri: `${uri}${expression}`,
    refuse,
  }));
}

Deno.test("completion refs to a denied template are refused in every spelling, allowed ones complete", async () => {
  const random = seededRandom(2203);
  await everyWire(async (desk, wire, era, label) => {
    const ask = (uri: string, name: string) =>
      wire.request(
        "completion/complete",
        paramsIn(era, {
          ref: { type: "ref/resource", uri },
          argument: { name, value: "r" },
        }),
      );
    for (const spelling of templateSpellings("vault://keys/", "{+key}", random)) {
      assertRefused(await ask(spelling.uri, "key"), spelling, era, label);
    }
    for (const spelling of templateSpellings("file:///data/", "{+path}", random)) {
      const reply = await ask(spelling.uri, "path");
      const what = `${label}: ${spelling.uri} got ${JSON.stringify(reply)}`;
      if (spelling.refuse) assert.equal(codeOf(reply), ErrorCode.InvalidParams, what);
      else {
        assert.ok(isRecord(reply.result) && isRecord(reply.result.completion), what);
        assert.deepEqual(reply.result.completion.values, ["public/a.txt"], what);
      }
    }
    assert.ok(desk.completed.every((call) => call.startsWith("data ")), label);
  });
});

Deno.test("legacy subscriptions: no spelling of a denied URI subscribes, allowed ones are kept canonical", async () => {
  const random = seededRandom(2204);
  for (const [transport, open] of WIRES) {
    const desk = fileDesk();
    const wire = await open(desk.server, "legacy");
    const label = `${transport}/legacy`;
    for (const target of DENIED) {
      for (const spelling of spellings(target, random, SPELLINGS, { hostCase: true })) {
        const reply = await wire.request("resources/subscribe", { uri: spelling.uri });
        assertRefused(reply, spelling, "legacy", label);
      }
    }
    const [target] = ALLOWED[0] ?? [];
    assert.ok(target !== undefined);
    const allowed = spellings(target, random, SPELLINGS, { hostCase: true });
    for (const spelling of allowed) {
      const reply = await wire.request("resources/subscribe", { uri: spelling.uri });
      assert.equal(codeOf(reply), spelling.refuse ? ErrorCode.InvalidParams : undefined, label);
    }
    // Over HTTP a legacy session hears notifications on a GET stream this client does not open.
    if (transport === "http") {
      await desk.server.close();
      await wire.close();
      continue;
    }
    for (const uri of [...DENIED, target]) desk.server.notifyResourceUpdated(uri);
    // The spelling the server uses when it notifies is canonicalised too.
    desk.server.notifyResourceUpdated("FILE:///data/x/../public/%72eadme.txt");
    const updated = () =>
      wire.received.filter((m) => m.method === "notifications/resources/updated")
        .map((m) => (m.params as Record<string, unknown>).uri);
    await waitFor(() => updated().length >= 2);
    assert.deepEqual(updated(), [target, target], label);
    // Any spelling unsubscribes.
    const last = allowed.findLast((spelling) => !spelling.refuse);
    assert.equal(
      codeOf(await wire.request("resources/unsubscribe", { uri: last?.uri })),
      undefined,
    );
    desk.server.notifyResourceUpdated(target);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(updated().length, 2, label);
    await desk.server.close();
    await wire.close();
  }
});

Deno.test("modern subscriptions/listen follows only the canonical form of allowed spellings", async () => {
  const random = seededRandom(2205);
  for (const [transport, open] of WIRES) {
    const desk = fileDesk();
    const wire = await open(desk.server, "modern");
    const [target] = ALLOWED[1] ?? [];
    assert.ok(target !== undefined);
    const asked = [...DENIED, target].flatMap((uri) =>
      spellings(uri, random, SPELLINGS, { hostCase: true, refusals: false }).map((s) => s.uri)
    );
    wire.open(
      "subscriptions/listen",
      paramsIn("modern", { notifications: { resourceSubscriptions: asked } }),
    );
    const ack = () =>
      wire.received.find((m) => m.method === "notifications/subscriptions/acknowledged");
    await waitFor(() => ack() !== undefined);
    const notifications = (ack()?.params as Record<string, Record<string, unknown>>).notifications;
    const followed = notifications?.resourceSubscriptions;
    assert.ok(Array.isArray(followed) && followed.includes(target), transport);
    assert.deepEqual(followed.filter((uri) => sameAs(uri) !== target), [], transport);
    assert.equal(
      new Set(followed).size,
      followed.length,
      `${transport}: one entry per canonical URI`,
    );
    await desk.server.close();
    await wire.close();
  }
});
