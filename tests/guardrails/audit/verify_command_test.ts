/**
 * The `verify` command as an operator runs it on a copy of the log
 * (`deno run --allow-read audit.ts verify FILE [--key-file K]`), and the
 * `--audit-key-file` flag that makes a server sign its chain.
 */

import assert from "node:assert/strict";
import { createServer } from "../../../mod.ts";
import { parseServerFlags, setupFromFlags } from "../../../src/setup/flags.ts";
import { echoFixtures, initialize, request } from "../../_helpers/helpers.ts";
import { runServer } from "../../_helpers/audit_chain.ts";

const AUDIT_ENTRY = new URL("../../../audit.ts", import.meta.url).pathname;

/** Runs the command with read permission only, as the docs say. */
async function verify(
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-lock", "--allow-read", AUDIT_ENTRY, ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

Deno.test("verify exits 0 on a good log and 1 naming the first bad line, 2 on usage errors", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/audit.jsonl`;
  await runServer(path, ["a", "b"]);
  const good = await verify("verify", path);
  assert.equal(good.code, 0, good.stderr);
  assert.match(
    good.stdout,
    /verified 4 lines, 2 call entries, 1 chain; final checkpoint present/,
  );
  const lines = (await Deno.readTextFile(path)).split("\n");
  lines[2] = (lines[2] ?? "").replace('"text":"b"', '"text":"B"');
  await Deno.writeTextFile(`${dir}/tampered.jsonl`, lines.join("\n"));
  const bad = await verify("verify", `${dir}/tampered.jsonl`);
  assert.equal(bad.code, 1);
  assert.match(bad.stdout, /FAILED at line 3: its hash does not match its content/);
  assert.match(bad.stdout, /verified before it: 2 lines, 1 call entry, 1 chain/);
  assert.equal((await verify("verify")).code, 2);
  assert.equal((await verify("check", path)).code, 2);
  const missing = await verify("verify", `${dir}/missing.jsonl`);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /Cannot read audit log .*missing\.jsonl/);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("--audit-key-file signs the chain; verify needs the key file to pass", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/audit.jsonl`;
  const keyFile = `${dir}/audit.key`;
  await Deno.writeTextFile(keyFile, "0123456789abcdef0123456789abcdef\n");
  const parsed = await parseServerFlags(
    ["--audit", path, "--audit-key-file", keyFile],
    { name: "t", version: "1" },
  );
  assert.ok(parsed.action === "run");
  assert.equal(parsed.flags.auditKeyFile, keyFile);
  const setup = await setupFromFlags(parsed.flags);
  const server = createServer({ name: "t", version: "1", ...echoFixtures(), ...setup });
  await server.handle(initialize());
  await server.handle(request(2, "tools/call", { name: "echo", arguments: { text: "x" } }));
  await server.close();
  const genesis = JSON.parse((await Deno.readTextFile(path)).split("\n")[0] ?? "");
  assert.equal(genesis.alg, "hmac-sha256");
  const keyed = await verify("verify", path, "--key-file", keyFile);
  assert.equal(keyed.code, 0, keyed.stdout + keyed.stderr);
  const unkeyed = await verify("verify", path);
  assert.equal(unkeyed.code, 1);
  assert.match(unkeyed.stdout, /FAILED at line 1: .* is keyed .* give its key/);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("--audit-key-file is refused without an audit log, and with a short or missing key", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/short.key`, "too short\n");
  await assert.rejects(
    setupFromFlags({ auditKeyFile: `${dir}/short.key` }),
    /--audit-key-file needs an audit log to a file or stderr/,
  );
  await assert.rejects(
    setupFromFlags({ audit: "-", auditKeyFile: `${dir}/short.key` }),
    /Cannot read audit key .*short\.key: Invalid audit key: expected at least 16 bytes, got 9/,
  );
  await assert.rejects(
    setupFromFlags({ audit: "-", auditKeyFile: `${dir}/none.key` }),
    /Cannot read audit key .*none\.key/,
  );
  const empty = await parseServerFlags(["--audit-key-file", ""], { name: "t", version: "1" });
  assert.equal(empty.action, "error");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("verify on an empty log says there was nothing to verify, not that a checkpoint is present", async () => {
  const { describeVerification } = await import("../../../src/guardrails/audit/verify_command.ts");
  const { verifyAuditLog } = await import("../../../src/guardrails/audit/verify.ts");
  const text = describeVerification("audit.jsonl", verifyAuditLog(new Uint8Array(0)));
  assert.doesNotMatch(text, /checkpoint present/);
  assert.match(text, /audit\.jsonl: no audit line to verify: the log is empty/);
});
