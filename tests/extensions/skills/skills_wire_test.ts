/**
 * Skills over every way in (the memory pair, stdio's path, and Streamable
 * HTTP) in both eras: a skill is got and read with matching digests, every
 * traversal spelling is refused; and what the guardrails do with skills: the
 * audit records each use by URI, the redactor masks a read (so its digest
 * no longer matches, as docs/skills.md says).
 */

import assert from "node:assert/strict";
import { createServer, type Server } from "../../../mod.ts";
import { loadSkill } from "../../../skills.ts";
import { type AuditEntry, auditLog, type AuditSink, redaction } from "../../../guardrails.ts";
import { isRecord } from "../../_helpers/helpers.ts";
import {
  httpWire,
  memoryWire,
  paramsIn,
  type Wire,
  type WireEra,
} from "../../_helpers/wire_clients.ts";

const MANIFEST = "---\nname: demo\ndescription: A demo skill\n---\n# Demo\n";
const SECRET = "ghp_" + "R8vKq2LmT7xWz4NpY6bJc1HdF9sGe3Au0QiO";
const FILES = { "SKILL.md": MANIFEST, "references/KEYS.md": `token ${SECRET}\n` };

const TRICKS = [
  "skill://demo/../demo/SKILL.md",
  "skill://demo/%2e%2e/demo/SKILL.md",
  "skill://demo/%2E./demo/SKILL.md",
  "skill://demo%2FSKILL.md",
  "skill://demo/references/..%2F..%2Fdemo/SKILL.md",
  "skill://demo\\..\\demo/SKILL.md",
  "skill://x/../demo/SKILL.md",
];

async function sha256(bytes: Uint8Array): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as BufferSource));
  return `sha256:${[...hash].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

function errorCode(reply: Record<string, unknown>): number | undefined {
  return isRecord(reply.error) && typeof reply.error.code === "number"
    ? reply.error.code
    : undefined;
}

async function served(entries: AuditEntry[]): Promise<Server> {
  const sink: AuditSink = {
    write: (entry) => void entries.push(entry),
    flush: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
  const server = createServer({
    name: "s",
    version: "1",
    guardrails: [auditLog({ sink }), redaction({ presets: true })],
  });
  server.skill(await loadSkill({ files: FILES }));
  return server;
}

const WAYS: [string, (server: Server, era: WireEra) => Promise<Wire>][] = [
  ["memory pair", memoryWire],
  ["HTTP", httpWire],
];

for (const [way, open] of WAYS) {
  for (const era of ["legacy", "modern"] as const) {
    Deno.test(`${way}, ${era}: skills are got and read, traversals refused, uses audited and reads redacted`, async () => {
      const entries: AuditEntry[] = [];
      const server = await served(entries);
      const wire = await open(server, era);
      try {
        const got = await wire.request(
          "skills/get",
          paramsIn(era, { uri: "skill://demo/SKILL.md" }),
        );
        assert.ok(isRecord(got.result), JSON.stringify(got));
        const skill = got.result.skill as { resources: { uri: string; digest: string }[] };
        const manifest = await wire.request(
          "resources/read",
          paramsIn(era, { uri: "skill://demo/SKILL.md" }),
        );
        const text =
          ((manifest.result as Record<string, unknown>).contents as { text: string }[])[0]!.text;
        assert.equal(skill.resources[0]!.digest, await sha256(new TextEncoder().encode(text)));
        // The redactor masks the key in the read: the published digest (of the file) no longer matches.
        const keys = await wire.request(
          "resources/read",
          paramsIn(era, { uri: "skill://demo/references/KEYS.md" }),
        );
        const masked =
          ((keys.result as Record<string, unknown>).contents as { text: string }[])[0]!.text;
        assert.ok(!masked.includes(SECRET), masked);
        assert.notEqual(skill.resources[1]!.digest, await sha256(new TextEncoder().encode(masked)));
        assert.equal(
          skill.resources[1]!.digest,
          await sha256(new TextEncoder().encode(FILES["references/KEYS.md"])),
        );
        for (const uri of TRICKS) {
          const reply = await wire.request("skills/get", paramsIn(era, { uri }));
          assert.equal(errorCode(reply), -32602, `${uri}: ${JSON.stringify(reply)}`);
          // A read serves a registered file or nothing (a canonicalising core may resolve dots).
          const read = await wire.request("resources/read", paramsIn(era, { uri }));
          if (errorCode(read) === undefined) {
            const text =
              ((read.result as Record<string, unknown>).contents as { text: string }[])[0]?.text;
            assert.equal(text, MANIFEST, `${uri}: ${JSON.stringify(read)}`);
          }
        }
        const audited = entries.map((entry) => `${entry.method} ${entry.name}`);
        assert.ok(audited.includes("skills/get skill://demo/SKILL.md"), audited.join("\n"));
        assert.ok(audited.includes("resources/read skill://demo/references/KEYS.md"));
        // Every refused skills/get is audited as a refusal, whatever name it is logged under.
        const refused = entries.filter((entry) =>
          entry.method === "skills/get" && entry.outcome !== "ok"
        );
        assert.equal(refused.length, TRICKS.length, JSON.stringify(refused));
      } finally {
        await server.close();
        await wire.close();
      }
    });
  }
}
