/**
 * A benign corpus of real text gathered at test time from what is on the
 * machine: the sources, manifests and lock files of the npm packages in
 * Deno's cache and in node's global `node_modules`, and the system's
 * installed documentation (`/usr/share/doc`, gzip included). It is text
 * people wrote for other purposes, so a mask in it is a false positive to
 * look at. Secret scanners' own packages (whose fixtures hold real-format
 * keys on purpose) and Warden's own files are left out.
 *
 * Files are read in a stable order, each up to `MAX_FILE` bytes, until the
 * corpus holds `target` bytes.
 *
 * @module
 */

import { join } from "node:path";

/** One file of the corpus. */
export interface BenignFile {
  readonly path: string;
  readonly text: string;
}

const MAX_FILE = 256 * 1024;
const TEXT_NAME =
  /\.(?:[cm]?js|[cm]?ts|jsx|tsx|json|jsonc|md|markdown|txt|html?|ya?ml|toml|lock|css|map|d\.ts|py|sh|c|h|rst|xml|ini|cfg|conf)(?:\.gz)?$|(?:^|\/)(?:README|LICENSE|COPYING|NEWS|changelog|copyright|AUTHORS|THANKS|TODO)[^/]*$/iu;
/** Packages whose purpose is holding or detecting secrets: their fixtures are meant to look real. */
const EXCLUDED = /secretlint|gitleaks|detect-secrets|trufflehog|credsweeper|\/warden|\/wt-/iu;

/** The places looked in, in order; those missing are skipped. */
export function benignRoots(): string[] {
  const home = Deno.env.get("HOME") ?? "/root";
  const denoDir = Deno.env.get("DENO_DIR") ?? join(home, ".cache", "deno");
  return [
    join(denoDir, "npm"),
    "/usr/lib/node_modules",
    "/usr/local/lib/node_modules",
    "/usr/share/doc",
  ];
}

function* walk(dir: string): Generator<string> {
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(dir)];
  } catch {
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* walk(path);
    else if (entry.isFile && TEXT_NAME.test(path) && !EXCLUDED.test(path)) yield path;
  }
}

async function readText(path: string): Promise<string | undefined> {
  let bytes: Uint8Array;
  try {
    const info = Deno.statSync(path);
    if (info.size === 0 || info.size > (path.endsWith(".gz") ? MAX_FILE / 2 : MAX_FILE)) {
      return undefined;
    }
    bytes = Deno.readFileSync(path);
    if (path.endsWith(".gz")) {
      const stream = new Blob([new Uint8Array(bytes)]).stream().pipeThrough(
        new DecompressionStream("gzip"),
      );
      bytes = new Uint8Array(await new Response(stream).arrayBuffer());
      if (bytes.length > MAX_FILE) return undefined;
    }
  } catch {
    return undefined;
  }
  // Binary files (a NUL byte early on) are not text.
  if (bytes.subarray(0, 4096).includes(0)) return undefined;
  return new TextDecoder().decode(bytes);
}

/** At least `target` bytes of real text (fewer only when the machine has less), in a stable order. */
export async function benignCorpus(target = 56 * 1024 * 1024): Promise<BenignFile[]> {
  const files: BenignFile[] = [];
  // Each root gives a share, so no one kind of text (minified JS, say) fills the corpus.
  const roots = benignRoots();
  const share = target / roots.length;
  let carry = 0;
  for (const root of roots) {
    let taken = 0;
    const want = share + carry;
    for (const path of walk(root)) {
      if (taken >= want) break;
      const text = await readText(path);
      if (text === undefined) continue;
      files.push({ path, text });
      taken += text.length;
    }
    carry = Math.max(0, want - taken);
  }
  return files;
}
