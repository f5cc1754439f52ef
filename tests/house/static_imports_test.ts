/**
 * Every module the library loads is one the module graph can follow: each
 * dynamic `import()` in src/ and in the entry files names a string literal.
 * A specifier built at run time is invisible to `deno compile` (the binary
 * would lack the module), to `deno bundle`, and to JSR (which warns
 * `unanalyzable-dynamic-import`); it also makes Deno ask for read access
 * to Warden's own files. An optional part is reached through its own
 * entry point instead (`@warden/mcp/skills`, `@warden/mcp/store`).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, sourceFiles } from "./source_graph.ts";

/** `import(` and what follows it, up to the end of the line. */
const DYNAMIC = /\bimport\(\s*([^\n]*)/g;

/** Whether `argument` (the text after `import(`) starts with a plain string literal. */
function isLiteral(argument: string): boolean {
  return /^"[^"]*"/.test(argument) || /^'[^']*'/.test(argument) ||
    /^`[^`$]*`/.test(argument);
}

/** The dynamic imports of `file` whose specifier is no literal, as `file:line: text`. */
function unanalyzable(file: string): string[] {
  const found: string[] = [];
  const lines = Deno.readTextFileSync(join(ROOT, file)).split("\n");
  lines.forEach((line, index) => {
    const code = line.trimStart();
    // Comments may name import() in prose.
    if (code.startsWith("*") || code.startsWith("//") || code.startsWith("/*")) return;
    for (const match of line.matchAll(DYNAMIC)) {
      if (!isLiteral(match[1] ?? "")) found.push(`${file}:${index + 1}: ${code}`);
    }
  });
  return found;
}

/** The entry files of deno.json "exports". */
function entryFiles(): string[] {
  const config = JSON.parse(Deno.readTextFileSync(join(ROOT, "deno.json")));
  return Object.values(config.exports as Record<string, string>).map((file) =>
    file.replace(/^\.\//, "")
  );
}

Deno.test("every dynamic import in src/ and the entry files names a string literal", () => {
  const files = [...sourceFiles("src"), ...entryFiles()];
  assert.ok(files.length > 100 && files.includes("skills.ts"), "the scan sees the library");
  assert.deepEqual(files.flatMap(unanalyzable), []);
});

Deno.test("the scan catches a specifier built at run time", () => {
  assert.equal(isLiteral('"npm:js-yaml@^4.1.0")'), true);
  assert.equal(isLiteral("where.href)"), false);
  assert.equal(isLiteral("`./${name}.ts`)"), false);
  assert.equal(isLiteral('new URL("./x.ts", import.meta.url).href)'), false);
});
