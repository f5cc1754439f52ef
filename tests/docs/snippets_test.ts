/**
 * The documentation's code is real: every ```ts block of README.md and of
 * every docs/*.md page type-checks against this checkout, every ```json
 * block parses, every relative link names a file (and heading) that
 * exists, the README's 15-line server is the fixture the house tests run,
 * and docs/layout.md follows the house's layer order. Each ts block is written to its own module in a temporary project
 * whose import map points `@warden/mcp` and each of its subpath exports at
 * this checkout, with the repository's compiler options; `deno check` runs
 * on them all at once, and each error is reported as PAGE:LINE:COLUMN. A
 * block that cannot compile on its own says so in its info string
 * (```ts ignore); that should stay rare.
 */

import assert from "node:assert/strict";
import { dirname, join, normalize } from "node:path";
import { isRecord } from "../_helpers/helpers.ts";
import { ROOT, runDeno } from "../_helpers/subprocess.ts";
import {
  type Block,
  documentationPages,
  fencedBlocks,
  headingAnchors,
  type Page,
  relativeLinks,
} from "../_helpers/markdown.ts";

/** At most this many ```ts ignore blocks in all the pages together. */
const MAX_IGNORED = 3;

/** A block together with the page it is on. */
interface PageBlock {
  page: string;
  block: Block;
}

async function readJson(path: string): Promise<Record<string, unknown>> {
  const value: unknown = JSON.parse(await Deno.readTextFile(path));
  assert.ok(isRecord(value), `${path} is not a JSON object`);
  return value;
}

/** `@warden/mcp` and its subpaths, mapped to this checkout's files as deno.json exports them. */
function importMap(config: Record<string, unknown>): Record<string, string> {
  const name = typeof config.name === "string" ? config.name : "@warden/mcp";
  const exports = isRecord(config.exports) ? config.exports : {};
  const imports: Record<string, string> = {};
  for (const [subpath, target] of Object.entries(exports)) {
    if (typeof target !== "string") continue;
    imports[name + subpath.slice(1)] = new URL(target, `file://${ROOT}`).href;
  }
  assert.ok(imports[name] !== undefined, `deno.json exports no "." entry`);
  return imports;
}

function blocksOf(pages: readonly Page[], language: string): PageBlock[] {
  return pages.flatMap((page) =>
    fencedBlocks(page)
      .filter((block) => block.info[0] === language)
      .map((block) => ({ page: page.path, block }))
  );
}

/**
 * The `@warden/mcp…` imports of a block that deno.json does not export, as
 * PAGE:LINE messages. Such a block is reported here rather than handed to
 * `deno check`, which would stop at the first unresolved import.
 */
function unknownEntries({ page, block }: PageBlock, imports: Record<string, string>): string[] {
  const problems: string[] = [];
  block.code.split("\n").forEach((text, index) => {
    for (const match of text.matchAll(/["'](@warden\/mcp(?:\/[\w./-]*)?)["']/g)) {
      const specifier = match[1] ?? "";
      if (imports[specifier] !== undefined) continue;
      problems.push(
        `${page}:${
          block.line + index + 1
        }: ${specifier} is not an entry point in deno.json "exports"`,
      );
    }
  });
  return problems;
}

/**
 * `deno check`'s diagnostics, one line each, with every block module's
 * position turned back into its page's: `docs/http.md:42:10 TS2305 [ERROR]: …`.
 */
function diagnostics(stderr: string, files: ReadonlyMap<string, PageBlock>): string[] {
  const located = stderr.replace(
    /file:\/\/\S*?\/(block_\d+\.ts):(\d+):(\d+)/g,
    (whole, file: string, line: string, column: string) => {
      const found = files.get(file);
      return found === undefined
        ? whole
        : `${found.page}:${found.block.line + Number(line)}:${column}`;
    },
  );
  const lines: string[] = [];
  for (const chunk of located.split(/\n(?=TS\d+ \[ERROR\]|error: )/)) {
    const message = chunk.split("\n")[0]?.trim() ?? "";
    const at = /^\s+at (\S+:\d+:\d+)$/m.exec(chunk)?.[1];
    if (at !== undefined) lines.push(`${at} ${message}`);
  }
  return lines.length > 0 ? lines : [located];
}

Deno.test("every ```ts block of README.md and docs/*.md type-checks against this checkout", async () => {
  const config = await readJson(join(ROOT, "deno.json"));
  const imports = importMap(config);
  const typescript = blocksOf(await documentationPages(), "ts");
  const ignored = typescript.filter(({ block }) => block.info.includes("ignore"));
  assert.ok(
    ignored.length <= MAX_IGNORED,
    `${ignored.length} blocks are marked ignore; make them compile:\n` +
      ignored.map(({ page, block }) => `${page}:${block.line}`).join("\n"),
  );
  const checked = typescript.filter(({ block }) => !block.info.includes("ignore"));
  assert.ok(checked.length >= 10, `only ${checked.length} blocks to check`);

  const problems = checked.flatMap((found) => unknownEntries(found, imports));
  const resolvable = checked.filter((found) => unknownEntries(found, imports).length === 0);
  const project = await Deno.makeTempDir({ prefix: "warden-docs-" });
  try {
    await Deno.writeTextFile(
      join(project, "deno.json"),
      JSON.stringify({ compilerOptions: config.compilerOptions, imports }),
    );
    const files = new Map<string, PageBlock>();
    for (const found of resolvable) {
      const file = `block_${files.size + 1}.ts`;
      // `export {}` keeps a block without imports a module, so blocks never share names.
      await Deno.writeTextFile(join(project, file), `${found.block.code}\nexport {};\n`);
      files.set(file, found);
    }
    const { code, stderr } = await runDeno(["check", "--quiet", ...files.keys()], {
      cwd: project,
    });
    if (code !== 0) problems.push(...diagnostics(stderr, files));
  } finally {
    await Deno.remove(project, { recursive: true });
  }
  assert.deepEqual(problems, [], `\n${problems.join("\n")}`);
});

Deno.test("every ```json block of README.md and docs/*.md parses", async () => {
  const problems: string[] = [];
  for (const { page, block } of blocksOf(await documentationPages(), "json")) {
    try {
      JSON.parse(block.code);
    } catch (error) {
      problems.push(`${page}:${block.line}: ${error instanceof Error ? error.message : error}`);
    }
  }
  assert.deepEqual(problems, []);
});

Deno.test("every relative link of README.md and docs/*.md names a file and heading that exist", async () => {
  const pages = await documentationPages();
  const byPath = new Map(pages.map((page) => [page.path, page]));
  const problems: string[] = [];
  for (const page of pages) {
    for (const { target, line } of relativeLinks(page)) {
      const [file = "", anchor] = target.split("#");
      const path = file === "" ? page.path : normalize(join(dirname(page.path), file));
      const exists = await Deno.stat(join(ROOT, path)).then(() => true, () => false);
      if (!exists) {
        problems.push(`${page.path}:${line}: ${target} names no file`);
        continue;
      }
      const linked = byPath.get(path);
      if (anchor !== undefined && linked !== undefined && !headingAnchors(linked).has(anchor)) {
        problems.push(`${page.path}:${line}: ${target} names no heading of ${path}`);
      }
    }
  }
  assert.deepEqual(problems, []);
});

/** A module's code without its leading doc comment and trailing `//` comments. */
function codeOnly(text: string): string {
  return text
    .replace(/^\/\*\*[\s\S]*?\*\/\s*/, "")
    .split("\n")
    .map((line) => line.replace(/\s+\/\/ .*$/, ""))
    .join("\n")
    .trim();
}

Deno.test("the README's 15-line server is tests/fixtures/minimal_server.ts, which the house tests run", async () => {
  const [readme] = await documentationPages();
  assert.ok(readme !== undefined);
  const first = fencedBlocks(readme).find((block) => block.info[0] === "ts");
  assert.ok(first !== undefined, "README.md has no ts block");
  const fixture = await Deno.readTextFile(join(ROOT, "tests/fixtures/minimal_server.ts"));
  assert.equal(codeOnly(first.code), codeOnly(fixture).replace('"../../mod.ts"', '"@warden/mcp"'));
  assert.ok(first.code.split("\n").length <= 15, `README.md:${first.line}: more than 15 lines`);
});

Deno.test("docs/layout.md lists the rooms of tests/house/layers_test.ts, in its order", async () => {
  // Read as text: importing the house test would register its tests here too.
  const house = await Deno.readTextFile(join(ROOT, "tests/house/layers_test.ts"));
  const order = /LAYERS[^=]*=\s*\[([\s\S]*?)\];/.exec(house)?.[1] ?? "";
  const rooms = [...order.matchAll(/^\s*"(src\/[^"]+)"/gm)].map((match) => `${match[1]}/`);
  assert.ok(rooms.length > 10, "cannot read LAYERS from tests/house/layers_test.ts");
  const layout = await Deno.readTextFile(join(ROOT, "docs/layout.md"));
  const rows = [...layout.matchAll(/^\| `(src\/[^`]+)`/gm)].map((match) => match[1]);
  assert.deepEqual(rows, rooms);
});
