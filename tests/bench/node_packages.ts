/**
 * The official SDKs for the Node columns, installed with npm beside their
 * servers (tests/bench/servers/node_modules, ignored by git) on first use,
 * at the versions the Deno columns load, so both runtimes run the same code.
 *
 * @module
 */

/** The SDK v1 version every v1 server runs. */
export const SDK1 = "1.32.2";
/** The SDK v2 (`@modelcontextprotocol/server`) version every v2 server runs. */
export const SDK2 = "2.4.0";
/** The zod deno.lock resolves for the SDKs. */
const ZOD = "4.6.7";
const SERVERS = "tests/bench/servers";
const decoder = new TextDecoder();

/** What is installed for Node: its version, or undefined when there is no Node. */
export interface NodeVersions {
  /** `node --version`, or undefined. */
  readonly node: string | undefined;
}

/** Runs a command to completion; its trimmed stdout, or undefined when it fails or is missing. */
export async function outputOf(command: string, args: string[]): Promise<string | undefined> {
  try {
    const { success, stdout } = await new Deno.Command(command, { args, stderr: "null" }).output();
    return success ? decoder.decode(stdout).trim() : undefined;
  } catch {
    return undefined;
  }
}

async function installedVersion(root: string, name: string): Promise<string | undefined> {
  try {
    const path = `${root}${SERVERS}/node_modules/${name}/package.json`;
    const manifest: unknown = JSON.parse(await Deno.readTextFile(path));
    return typeof manifest === "object" && manifest !== null && "version" in manifest
      ? String(manifest.version)
      : undefined;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

/** Installs both SDKs for Node unless they are there; `node: undefined` when there is no Node. */
export async function ensureNodePackages(
  root: string,
  log: (message: string) => void,
): Promise<NodeVersions> {
  const node = await outputOf("node", ["--version"]);
  if (node === undefined) {
    log("node not found: the Node columns are skipped");
    return { node: undefined };
  }
  const wanted: [string, string][] = [
    ["@modelcontextprotocol/sdk", SDK1],
    ["@modelcontextprotocol/server", SDK2],
    ["zod", ZOD],
  ];
  const missing = [];
  for (const [name, version] of wanted) {
    if (await installedVersion(root, name) !== version) missing.push(`${name}@${version}`);
  }
  if (missing.length === 0) return { node };
  log(`installing ${missing.join(" ")} for Node into ${SERVERS}/node_modules`);
  const { success } = await new Deno.Command("npm", {
    args: [
      "install",
      "--no-save",
      "--no-audit",
      "--no-fund",
      "--prefix",
      SERVERS,
      ...wanted.map(([name, version]) => `${name}@${version}`),
    ],
    cwd: root,
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!success) {
    throw new Error(`Cannot install the SDKs for Node: npm install failed in ${SERVERS}`);
  }
  return { node };
}
