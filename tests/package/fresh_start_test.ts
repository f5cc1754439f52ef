/**
 * What a fresh machine downloads to run the example. Deno installs every npm
 * package of the lockfile in use as soon as a program (or `deno task`) needs
 * any, so the root deno.lock may lock only what the library runs: the npm
 * packages src/runtime/npm.ts names. Test, benchmark and conformance
 * packages live in tests/deno.lock. The example must then start, plain and
 * guarded, from a Deno cache that holds those packages and nothing else
 * (`--cached-only` turns any other download into an error).
 */

import assert from "node:assert/strict";
import { cp, readdir } from "node:fs/promises";
import { join } from "node:path";
import { isRecord } from "../_helpers/helpers.ts";
import { ROOT, runDeno } from "../_helpers/subprocess.ts";

async function readJson(path: string): Promise<Record<string, unknown>> {
  const value: unknown = JSON.parse(await Deno.readTextFile(join(ROOT, path)));
  assert.ok(isRecord(value), `${path} is not a JSON object`);
  return value;
}

/** "@scope/name" or "name" out of "npm:/name@1.2.3/sub", "name@1.2.3_peer@4" or "name". */
function packageName(reference: string): string {
  const bare = reference.replace(/^npm:\/?/, "");
  const at = bare.indexOf("@", 1);
  return at === -1
    ? bare.split("/").slice(0, bare.startsWith("@") ? 2 : 1).join("/")
    : bare.slice(0, at);
}

/** The npm packages the library runs: every `npm:` specifier in src/runtime/npm/. */
async function libraryPackages(): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(join(ROOT, "src/runtime/npm"))) {
    const source = await Deno.readTextFile(join(ROOT, "src/runtime/npm", entry.name));
    for (const match of source.matchAll(/"npm:([^"]+)"/g)) names.push(packageName(match[1] ?? ""));
  }
  assert.ok(names.length > 0, "src/runtime/npm/ names no npm package");
  return [...new Set(names)].sort();
}

/** The names of the npm packages `lock` holds, with those reachable from `roots` apart. */
function lockedPackages(lock: Record<string, unknown>, roots: string[]): {
  all: Set<string>;
  reachable: Set<string>;
} {
  const npm = isRecord(lock.npm) ? lock.npm : {};
  const dependencies = new Map<string, string[]>();
  for (const [key, entry] of Object.entries(npm)) {
    const deps = isRecord(entry) && Array.isArray(entry.dependencies) ? entry.dependencies : [];
    const names = deps.filter((dep): dep is string => typeof dep === "string").map(packageName);
    dependencies.set(packageName(key), [...(dependencies.get(packageName(key)) ?? []), ...names]);
  }
  const reachable = new Set<string>();
  const pending = [...roots];
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (reachable.has(name)) continue;
    reachable.add(name);
    pending.push(...(dependencies.get(name) ?? []));
  }
  return { all: new Set(dependencies.keys()), reachable };
}

Deno.test("the root deno.json maps no import and deno.lock locks only the library's npm packages", async () => {
  const config = await readJson("deno.json");
  assert.deepEqual(config.imports ?? {}, {}, "the root deno.json must map no import");
  const library = await libraryPackages();
  const lock = await readJson("deno.lock");
  const specifiers = isRecord(lock.specifiers) ? Object.keys(lock.specifiers) : [];
  const extra = specifiers.map(packageName).filter((name) => !library.includes(name));
  const { all, reachable } = lockedPackages(lock, library);
  extra.push(...[...all].filter((name) => !reachable.has(name)));
  assert.deepEqual(
    [...new Set(extra)],
    [],
    `deno.lock locks npm packages the library does not run (${
      [...new Set(extra)].join(", ")
    }), which every ` +
      "`deno task` and `deno run examples/orders.ts` would download: a test-side command ran " +
      "without --lock=tests/deno.lock (use the deno.json tasks; restore with `git checkout deno.lock`)",
  );
});

Deno.test("examples/orders.ts's module graph holds no npm package but the library's", async () => {
  const { code, stdout, stderr } = await runDeno(["info", "--json", "examples/orders.ts"]);
  assert.equal(code, 0, stderr);
  const info: unknown = JSON.parse(stdout);
  assert.ok(isRecord(info) && Array.isArray(info.modules), "deno info --json gave no modules");
  const specifiers = info.modules.flatMap((module) =>
    isRecord(module) && typeof module.specifier === "string" ? [module.specifier] : []
  );
  assert.ok(specifiers.some((specifier) => specifier.endsWith("/examples/orders.ts")));
  const npm = [...new Set(specifiers.filter((s) => s.startsWith("npm:")).map(packageName))].sort();
  const library = await libraryPackages();
  assert.deepEqual(npm.filter((name) => !library.includes(name)), [], `graph: ${npm.join(", ")}`);
});

Deno.test("examples/orders.ts starts, plain and guarded, from a cache holding only the library's npm packages", async () => {
  // Make sure the shared cache holds the library's packages (a no-op once it does).
  const cached = await runDeno(["info", "examples/orders.ts"]);
  assert.equal(cached.code, 0, cached.stderr);
  const where = await runDeno(["info", "--json"]);
  const locations: unknown = JSON.parse(where.stdout);
  assert.ok(isRecord(locations) && typeof locations.npmCache === "string", where.stdout);
  const npmCache = locations.npmCache;

  const denoDir = await Deno.makeTempDir({ prefix: "warden-fresh-" });
  const emptyDir = await Deno.makeTempDir({ prefix: "warden-empty-" });
  try {
    let copied = 0;
    // The library's packages and what they depend on (js-yaml needs argparse), as deno.lock says.
    const { reachable } = lockedPackages(await readJson("deno.lock"), await libraryPackages());
    for (const registry of await readdir(npmCache)) {
      for (const name of reachable) {
        const from = join(npmCache, registry, name);
        try {
          await Deno.stat(from);
        } catch (error) {
          if (error instanceof Deno.errors.NotFound) continue;
          throw error;
        }
        await cp(from, join(denoDir, "npm", registry, name), { recursive: true });
        copied++;
      }
    }
    assert.ok(copied > 0, `the library's npm packages are not in ${npmCache}`);

    const plain = ["run", "--cached-only", "examples/orders.ts"];
    const guarded = [
      "run",
      "--cached-only",
      "--allow-read=examples/policy.jsonc",
      "examples/orders.ts",
      "--policy",
      "examples/policy.jsonc",
    ];
    const started = await runDeno(plain, { env: { DENO_DIR: denoDir } });
    assert.equal(started.code, 0, started.stderr);
    assert.match(started.stderr, /ready on stdio .*; 0 guardrails\)/);
    const startedGuarded = await runDeno(guarded, { env: { DENO_DIR: denoDir } });
    assert.equal(startedGuarded.code, 0, startedGuarded.stderr);
    assert.match(startedGuarded.stderr, /ready on stdio .*; 4 guardrails\)/);

    // The control: with nothing cached, --cached-only does refuse to download.
    const refused = await runDeno(guarded, { env: { DENO_DIR: emptyDir } });
    assert.notEqual(refused.code, 0, "--cached-only started with an empty cache");
    assert.match(refused.stderr, /cached-only|not found in cache|cache/i);
  } finally {
    await Deno.remove(denoDir, { recursive: true });
    await Deno.remove(emptyDir, { recursive: true });
  }
});
