/**
 * Reading the repository's documentation for its tests: which pages there
 * are (README.md and docs/*.md), their fenced blocks with the line each
 * starts on, their relative links, and the anchors their headings make.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT } from "./subprocess.ts";

/** One documentation page: its path from the repository root, and its text. */
export interface Page {
  /** E.g. `README.md` or `docs/http.md`, as errors name it. */
  path: string;
  /** The Markdown text. */
  text: string;
}

/** One fenced block: the info string's words, the code, and the page line of its opening fence. */
export interface Block {
  /** The info string split on spaces: `["ts"]`, `["ts", "ignore"]`, `["json"]`. */
  info: string[];
  /** The lines between the fences. */
  code: string;
  /** The 1-based line of the opening fence: code line N is page line `line + N`. */
  line: number;
}

/** README.md and every page under docs/, README first, the rest sorted. */
export async function documentationPages(): Promise<Page[]> {
  const paths = ["README.md"];
  const docs: string[] = [];
  for await (const entry of Deno.readDir(join(ROOT, "docs"))) {
    if (entry.isFile && entry.name.endsWith(".md")) docs.push(`docs/${entry.name}`);
  }
  paths.push(...docs.sort());
  return await Promise.all(
    paths.map(async (path) => ({ path, text: await Deno.readTextFile(join(ROOT, path)) })),
  );
}

/** The fenced blocks of a page, in order. */
export function fencedBlocks(page: Page): Block[] {
  const blocks: Block[] = [];
  const lines = page.text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})(.*)$/.exec(lines[i] ?? "");
    if (open === null) continue;
    const fence = open[1] ?? "```";
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !(lines[i] ?? "").startsWith(fence); i++) {
      body.push(lines[i] ?? "");
    }
    assert.ok(i < lines.length, `${page.path}:${start + 1}: the block opened here is never closed`);
    blocks.push({
      info: (open[2] ?? "").trim().split(/\s+/),
      code: body.join("\n"),
      line: start + 1,
    });
  }
  return blocks;
}

/** The page's lines outside fenced blocks, as [1-based line, text] pairs. */
function proseLines(page: Page): [number, string][] {
  const prose: [number, string][] = [];
  let fence: string | undefined;
  page.text.split("\n").forEach((text, index) => {
    const marker = /^(`{3,})/.exec(text)?.[1];
    if (fence === undefined && marker !== undefined) fence = marker;
    else if (fence !== undefined && text.startsWith(fence)) fence = undefined;
    else if (fence === undefined) prose.push([index + 1, text]);
  });
  return prose;
}

/**
 * The anchors a page's headings make, as GitHub spells them: lower case,
 * punctuation dropped, spaces turned into hyphens.
 */
export function headingAnchors(page: Page): Set<string> {
  const anchors = new Set<string>();
  for (const [, text] of proseLines(page)) {
    const heading = /^#{1,6}\s+(.*)$/.exec(text)?.[1];
    if (heading === undefined) continue;
    anchors.add(heading.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-"));
  }
  return anchors;
}

/** A link of a page to a repository file, with the line it is on. */
export interface RelativeLink {
  /** The link's target as written, e.g. `docs/http.md#security`. */
  target: string;
  /** The page line it is on. */
  line: number;
}

/** The links of a page that point into the repository (not to a URL), outside code blocks. */
export function relativeLinks(page: Page): RelativeLink[] {
  const links: RelativeLink[] = [];
  for (const [line, text] of proseLines(page)) {
    for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1] ?? "";
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) links.push({ target, line });
    }
  }
  return links;
}
