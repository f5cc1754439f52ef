/**
 * Reads Warden's own source the way a reader does: every module specifier a
 * file names (value imports, `import type`, re-exports, dynamic `import()`
 * and `import("…")` type queries), and every function with its length. The
 * house tests judge the layer order and the function sizes from this.
 *
 * @module
 */

// A test dependency, locked in tests/deno.lock like the SDKs.
// deno-lint-ignore no-import-prefix
import ts from "npm:typescript@5.9.3";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const ROOT: string = fileURLToPath(new URL("../../", import.meta.url));

/** One import of one file. */
export interface SourceImport {
  /** The importing file, relative to the root (`src/core/tools.ts`). */
  readonly from: string;
  /** The specifier as written. */
  readonly specifier: string;
  /** The imported file relative to the root, for relative specifiers. */
  readonly to: string | undefined;
  /** 1-based line of the specifier. */
  readonly line: number;
}

/** One function-like body and its length in lines. */
export interface SourceFunction {
  /** The file, relative to the root. */
  readonly file: string;
  /** A name for the report (`(anonymous)` when it has none). */
  readonly name: string;
  /** 1-based first line. */
  readonly line: number;
  /** Lines from its first to its last. */
  readonly lines: number;
}

/** The `.ts` files below `folder` (relative to the root), sorted. */
export function sourceFiles(folder: string): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of Deno.readDirSync(join(ROOT, dir))) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) walk(path);
      else if (entry.name.endsWith(".ts")) found.push(path);
    }
  };
  walk(folder);
  return found.sort();
}

function parse(file: string): ts.SourceFile {
  const text = Deno.readTextFileSync(join(ROOT, file));
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
}

function specifierOf(node: ts.Node): ts.StringLiteral | undefined {
  if (
    (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier &&
    ts.isStringLiteral(node.moduleSpecifier)
  ) return node.moduleSpecifier;
  if (
    ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword &&
    node.arguments[0] !== undefined && ts.isStringLiteral(node.arguments[0])
  ) return node.arguments[0];
  if (
    ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) &&
    ts.isStringLiteral(node.argument.literal)
  ) return node.argument.literal;
  return undefined;
}

/** Every import `file` makes, type-only ones included. */
export function importsOf(file: string): SourceImport[] {
  const source = parse(file);
  const found: SourceImport[] = [];
  const visit = (node: ts.Node): void => {
    const literal = specifierOf(node);
    if (literal !== undefined) {
      const specifier = literal.text;
      const to = specifier.startsWith(".")
        ? relative(ROOT, resolve(ROOT, dirname(file), specifier))
        : undefined;
      const line = source.getLineAndCharacterOfPosition(literal.getStart(source)).line + 1;
      found.push({ from: file, specifier, to, line });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function nameOf(node: ts.Node, source: ts.SourceFile): string {
  const named = (node as { name?: ts.Node }).name;
  if (named !== undefined) return named.getText(source);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) {
    return parent.name.getText(source);
  }
  return "(anonymous)";
}

/** Every function, method, accessor and arrow with a body in `file`. */
export function functionsOf(file: string): SourceFunction[] {
  const source = parse(file);
  const found: SourceFunction[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body !== undefined) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.end).line;
      found.push({ file, name: nameOf(node, source), line: first + 1, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}
