/**
 * A plain server stays plain: a server that imports only the root entry
 * reaches no npm package and none of the optional integrations (Redis,
 * Deno KV, OpenTelemetry, TOML, JSONC), runs on an empty cache with nothing
 * to download, and bundles for Node in a fresh consumer project.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT } from "./source_graph.ts";

const SERVER = join(ROOT, "tests/fixtures/minimal_server.ts");

/** Files of src/ only optional integrations use; a plain server's graph holds none of them. */
const OPTIONAL: readonly string[] = [
  "src/runtime/npm/",
  "src/store/redis_store.ts",
  "src/store/kv_store.ts",
  "src/store/open_store.ts",
  "src/guardrails/telemetry/",
  "src/guardrails/redact/gitleaks.ts",
  "src/setup/",
];

/** One initialize request and one tools/call, as newline-delimited JSON. */
const SESSION = [
  {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "t", version: "1" },
    },
  },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  {
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "forecast", arguments: { city: "Oslo" } },
  },
].map((message) => JSON.stringify(message)).join("\n") + "\n";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
  input = "",
): Promise<Run> {
  const child = new Deno.Command(command, {
    args,
    cwd,
    env: { NO_COLOR: "1", ...env },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(input));
  await writer.close();
  const { code, stdout, stderr } = await child.output();
  const decoder = new TextDecoder();
  return { code, stdout: decoder.decode(stdout), stderr: decoder.decode(stderr) };
}

/** A fresh consumer project: its own deno.json and a server importing Warden by path. */
async function consumerProject(): Promise<{ dir: string; cache: string }> {
  const dir = await Deno.makeTempDir({ prefix: "warden-consumer-" });
  const cache = await Deno.makeTempDir({ prefix: "warden-empty-cache-" });
  const source = (await Deno.readTextFile(SERVER)).replace(
    '"../../mod.ts"',
    JSON.stringify(new URL("../../mod.ts", import.meta.url).href),
  );
  await Deno.writeTextFile(join(dir, "server.ts"), source);
  await Deno.writeTextFile(join(dir, "deno.json"), "{}\n");
  return { dir, cache };
}

/** Every file below `dir` (none when it does not exist). */
function* walk(dir: string): Generator<string> {
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(dir)];
  } catch {
    return;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* walk(path);
    else yield path;
  }
}

function assertAnswered(output: Run): void {
  assert.equal(output.code, 0, output.stderr);
  const replies = output.stdout.trim().split("\n").map((line) => JSON.parse(line));
  assert.equal(replies.length, 2, output.stdout);
  assert.equal(replies[1].result.content[0].text, "Sunny in Oslo");
}

Deno.test("a server that imports only the root entry has no npm package and no optional integration in its graph", async () => {
  const output = await run(Deno.execPath(), ["info", "--json", SERVER], ROOT, {});
  assert.equal(output.code, 0, output.stderr);
  const graph: { modules: { specifier: string; dependencies?: { specifier: string }[] }[] } = JSON
    .parse(output.stdout);
  const specifiers = graph.modules.flatMap((module) => [
    module.specifier,
    ...(module.dependencies ?? []).map((dependency) => dependency.specifier),
  ]);
  assert.deepEqual(specifiers.filter((specifier) => specifier.startsWith("npm:")), []);
  const root = new URL("../../", import.meta.url).href;
  const reached = graph.modules.map((module) => module.specifier.replace(root, ""));
  assert.ok(reached.includes("src/server/create_server.ts"), "the graph was not read");
  assert.deepEqual(
    reached.filter((file) => OPTIONAL.some((prefix) => file.startsWith(prefix))),
    [],
  );
});

Deno.test("the 15-line server runs on an empty cache in a fresh project and downloads nothing", async () => {
  const { dir, cache } = await consumerProject();
  try {
    // A plain run, as a user's would be: --cached-only would hide a download by skipping it.
    const output = await run(
      Deno.execPath(),
      ["run", "server.ts"],
      dir,
      { DENO_DIR: cache },
      SESSION,
    );
    assertAnswered(output);
    // Deno makes an empty npm folder in any cache; a download would fill it.
    const npm = join(cache, "npm");
    const downloaded = [...walk(npm)];
    assert.deepEqual(downloaded, [], "the run downloaded npm packages");
    const lock = await Deno.readTextFile(join(dir, "deno.lock")).catch(() => "{}");
    assert.ok(
      !lock.includes("npm:"),
      `the run pinned npm packages in the user's lock file: ${lock}`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(cache, { recursive: true });
  }
});

Deno.test("deno bundle --platform node of the 15-line server works on an empty cache, and Node runs it", async () => {
  const { dir, cache } = await consumerProject();
  try {
    const bundled = await run(
      Deno.execPath(),
      ["bundle", "--platform", "node", "-o", "server.mjs", "server.ts"],
      dir,
      { DENO_DIR: cache },
    );
    assert.equal(bundled.code, 0, bundled.stderr);
    const bundle = await Deno.readTextFile(join(dir, "server.mjs"));
    for (
      const marker of ["@redis/client", "@opentelemetry/api", "smol-toml", "jsonc-parser", "openKv"]
    ) {
      assert.ok(!bundle.includes(marker), `the bundle contains ${marker}`);
    }
    const node = await run("node", ["server.mjs"], dir, {}, SESSION).catch(() => undefined);
    if (node === undefined) {
      console.log("note: node not found; the bundle was built but not run");
      return;
    }
    assertAnswered(node);
  } finally {
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(cache, { recursive: true });
  }
});
