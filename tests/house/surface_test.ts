/**
 * The public surface, as JSR shows it: what `deno doc` reads from each entry
 * in deno.json "exports". The root entry stays small (at most 60 symbols,
 * at most 120 across every entry), every symbol carries a JSDoc summary and
 * an `@example`, and no entry is one of the example scripts.
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

/** The repository root, as a URL (ends with "/"). */
const ROOT = new URL("../../", import.meta.url);

/** The most symbols the root entry may export. */
const ROOT_ENTRY_LIMIT = 60;

/** The most symbols every entry together may export. */
const SURFACE_LIMIT = 120;

/** One public symbol as `deno doc` documents it. */
interface DocSymbol {
  readonly name: string;
  /** The first paragraph of its JSDoc; empty when it has none. */
  readonly summary: string;
  readonly hasExample: boolean;
}

/** One entry of deno.json "exports" and what it exports. */
interface Entry {
  /** The export path, e.g. `.` or `./guardrails`. */
  readonly path: string;
  /** The file it points to, e.g. `./mod.ts`. */
  readonly file: string;
  readonly symbols: readonly DocSymbol[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** deno.json "exports" as export path → file. */
function readExports(): Record<string, string> {
  const config: unknown = JSON.parse(Deno.readTextFileSync(new URL("deno.json", ROOT)));
  if (!isRecord(config)) throw new TypeError("Cannot read deno.json: expected an object");
  const { exports } = config;
  if (typeof exports === "string") return { ".": exports };
  if (!isRecord(exports)) throw new TypeError('Cannot read deno.json: expected "exports"');
  const paths: Record<string, string> = {};
  for (const [path, file] of Object.entries(exports)) {
    if (typeof file !== "string") throw new TypeError(`Cannot read deno.json: exports["${path}"]`);
    paths[path] = file;
  }
  return paths;
}

/** The first paragraph of a JSDoc text. */
function summaryOf(doc: unknown): string {
  return typeof doc === "string" ? (doc.trim().split(/\n\s*\n/)[0] ?? "").trim() : "";
}

/** A symbol of `deno doc --json`: summary and `@example` from any of its public declarations. */
function docSymbol(symbol: unknown): DocSymbol {
  if (!isRecord(symbol) || typeof symbol.name !== "string") {
    throw new TypeError("Cannot read deno doc output: a symbol without a name");
  }
  let summary = "";
  let hasExample = false;
  const declarations = Array.isArray(symbol.declarations) ? symbol.declarations : [];
  for (const declaration of declarations) {
    if (!isRecord(declaration) || declaration.declarationKind === "private") continue;
    const jsDoc = isRecord(declaration.jsDoc) ? declaration.jsDoc : {};
    if (summary === "") summary = summaryOf(jsDoc.doc);
    const tags = Array.isArray(jsDoc.tags) ? jsDoc.tags : [];
    if (tags.some((tag) => isRecord(tag) && tag.kind === "example")) hasExample = true;
  }
  return { name: symbol.name, summary, hasExample };
}

/** Runs `deno doc --json` once over every entry file. */
async function readEntries(): Promise<readonly Entry[]> {
  const exports = readExports();
  const files = Object.values(exports);
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--json", ...files],
    cwd: fileURLToPath(ROOT),
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, `deno doc --json failed:\n${stderr}`);
  const doc: unknown = JSON.parse(new TextDecoder().decode(output.stdout));
  const nodes = isRecord(doc) && isRecord(doc.nodes) ? doc.nodes : {};
  return Object.entries(exports).map(([path, file]) => {
    const node = nodes[new URL(file, ROOT).href];
    if (!isRecord(node) || !Array.isArray(node.symbols)) {
      throw new TypeError(`Cannot read deno doc output: no module for ${file}`);
    }
    return { path, file, symbols: node.symbols.map(docSymbol) };
  });
}

let entries: Promise<readonly Entry[]> | undefined;

/** The entries, read once for every test of this file. */
function surface(): Promise<readonly Entry[]> {
  entries ??= readEntries();
  return entries;
}

function names(symbols: readonly DocSymbol[]): string {
  return symbols.map((symbol) => symbol.name).join(", ");
}

Deno.test("deno.json exports no path into examples/", () => {
  const intoExamples = Object.entries(readExports())
    .filter(([, file]) => new URL(file, ROOT).href.startsWith(new URL("examples/", ROOT).href))
    .map(([path, file]) => `${path} -> ${file}`);
  assert.deepEqual(intoExamples, [], "example scripts are not part of the package's surface");
});

Deno.test(`the root entry exports at most ${ROOT_ENTRY_LIMIT} symbols`, async () => {
  const root = (await surface()).find((entry) => entry.path === ".");
  assert.ok(root !== undefined, 'deno.json "exports" has no "." entry');
  assert.ok(
    root.symbols.length <= ROOT_ENTRY_LIMIT,
    `${root.file} exports ${root.symbols.length} symbols (at most ${ROOT_ENTRY_LIMIT}): ${
      names(root.symbols)
    }`,
  );
});

Deno.test(`all entries together export at most ${SURFACE_LIMIT} symbols`, async () => {
  const all = await surface();
  const total = all.reduce((sum, entry) => sum + entry.symbols.length, 0);
  const byEntry = all.map((entry) =>
    `${entry.file} (${entry.symbols.length}): ${names(entry.symbols)}`
  );
  assert.ok(
    total <= SURFACE_LIMIT,
    `the entries export ${total} symbols (at most ${SURFACE_LIMIT}):\n${byEntry.join("\n")}`,
  );
});

Deno.test("every public symbol has a JSDoc summary and an @example", async () => {
  const missing: string[] = [];
  for (const entry of await surface()) {
    for (const symbol of entry.symbols) {
      const lacks = [
        ...(symbol.summary === "" ? ["a summary"] : []),
        ...(symbol.hasExample ? [] : ["an @example"]),
      ];
      if (lacks.length > 0) {
        missing.push(`${entry.file}: ${symbol.name} lacks ${lacks.join(" and ")}`);
      }
    }
  }
  assert.ok(missing.length === 0, `undocumented public symbols:\n${missing.join("\n")}`);
});
