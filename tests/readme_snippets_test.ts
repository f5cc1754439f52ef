/**
 * Every ```ts block of README.md compiles: each is written to its own module
 * in a temporary project whose import map points `@warden/mcp` (and each of
 * its subpath exports) at this checkout, with the repository's compiler
 * options, and `deno check` runs on them all at once. A block that is not
 * meant to compile on its own says so in its info string: ```ts ignore.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { isRecord } from "./helpers.ts";
import { ROOT } from "./subprocess.ts";

/** One fenced block: the info string's words, the code, and the README line it starts on. */
interface Block {
  info: string[];
  code: string;
  line: number;
}

/** The fenced blocks of a Markdown text, in order. */
function fencedBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})(.*)$/.exec(lines[i] ?? "");
    if (open === null) continue;
    const fence = open[1] ?? "```";
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !(lines[i] ?? "").startsWith(fence); i++) {
      body.push(lines[i] ?? "");
    }
    assert.ok(i < lines.length, `README.md:${start + 1}: the block opened here is never closed`);
    blocks.push({
      info: (open[2] ?? "").trim().split(/\s+/),
      code: body.join("\n"),
      line: start + 1,
    });
  }
  return blocks;
}

async function readJson(path: string): Promise<Record<string, unknown>> {
  const value: unknown = JSON.parse(await Deno.readTextFile(path));
  assert.ok(isRecord(value), `${path} is not a JSON object`);
  return value;
}

/** `@warden/mcp` and its subpaths, mapped to this checkout's files as deno.json exports them. */
async function importMap(): Promise<Record<string, string>> {
  const config = await readJson(join(ROOT, "deno.json"));
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

Deno.test("every ```ts block of README.md type-checks against this checkout", async () => {
  const blocks = fencedBlocks(await Deno.readTextFile(join(ROOT, "README.md")));
  const typescript = blocks.filter((block) => block.info[0] === "ts");
  const checked = typescript.filter((block) => !block.info.includes("ignore"));
  assert.ok(checked.length >= 5, `only ${checked.length} README blocks to check`);

  const config = await readJson(join(ROOT, "deno.json"));
  const project = await Deno.makeTempDir({ prefix: "warden-readme-" });
  try {
    await Deno.writeTextFile(
      join(project, "deno.json"),
      JSON.stringify({ compilerOptions: config.compilerOptions, imports: await importMap() }),
    );
    const files: string[] = [];
    for (const block of checked) {
      const file = `readme_line_${block.line}.ts`;
      // `export {}` keeps a block without imports a module, so blocks never share names.
      await Deno.writeTextFile(join(project, file), `${block.code}\nexport {};\n`);
      files.push(file);
    }
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["check", "--quiet", ...files],
      cwd: project,
      env: { NO_COLOR: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    // The errors name readme_line_N.ts, N being the README line the block starts on.
    assert.equal(code, 0, new TextDecoder().decode(stderr));
  } finally {
    await Deno.remove(project, { recursive: true });
  }
});
