/**
 * Which runtime hosts the server (Deno, Bun or Node), detected once, and the
 * few host services Warden needs from it: the program's arguments, its exit,
 * its stdin and stdout as web streams, and reading a file it was pointed at. Deno's own APIs are used on Deno,
 * so Node compatibility is never loaded there; `node:` modules are imported
 * lazily, only on Node and Bun.
 *
 * @module
 */

/** The runtimes Warden serves on. */
export type RuntimeName = "deno" | "bun" | "node";

function detect(): RuntimeName {
  // Bun first: it defines no `Deno`, but a Deno program may define `Bun` by hand less often than not.
  if ("Bun" in globalThis) return "bun";
  if ("Deno" in globalThis) return "deno";
  return "node";
}

/**
 * The runtime this module was loaded on.
 *
 * @example
 * ```ts
 * import { runtime } from "./host.ts";
 * console.assert(runtime === "deno");
 * ```
 */
export const runtime: RuntimeName = detect();

/**
 * The program's own arguments (without the runtime and the script path).
 *
 * @returns `Deno.args` on Deno, `process.argv.slice(2)` on Node and Bun.
 *
 * @example
 * ```ts
 * import { hostArgs } from "./host.ts";
 * console.assert(Array.isArray(await hostArgs()));
 * ```
 */
export async function hostArgs(): Promise<string[]> {
  if (runtime === "deno") return [...Deno.args];
  const process = (await import("node:process")).default;
  return process.argv.slice(2);
}

/**
 * Reads a UTF-8 text file, for configuration the user names by path.
 *
 * @param path The file.
 * @param what What the file is, for the error ("policy", "gitleaks rules").
 * @returns Its text.
 * @throws {Error} "Cannot read policy FILE: reason" when it cannot be read.
 *
 * @example
 * ```ts ignore
 * import { readTextFile } from "./host.ts";
 * const text = await readTextFile("policy.jsonc", "policy");
 * ```
 */
export async function readTextFile(path: string, what: string): Promise<string> {
  const { readFile } = await import("node:fs/promises");
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`Cannot read ${what} ${path}: ${reason}`);
  }
}

/**
 * Ends the process with `code`.
 *
 * @param code The exit status.
 * @returns Never: the process is gone.
 *
 * @example
 * ```ts ignore
 * import { exitProcess } from "./host.ts";
 * await exitProcess(0);
 * ```
 */
export async function exitProcess(code: number): Promise<never> {
  if (runtime === "deno") return Deno.exit(code);
  const process = (await import("node:process")).default;
  return process.exit(code);
}

/**
 * The process's stdin as a web stream: `Deno.stdin.readable` on Deno, the
 * `node:stream` web adapter of `process.stdin` on Node and Bun. Created only
 * when called, since adapting stdin starts reading it.
 *
 * @returns The bytes from stdin.
 *
 * @example
 * ```ts ignore
 * import { hostStdin } from "./host.ts";
 * const input = await hostStdin();
 * ```
 */
export async function hostStdin(): Promise<ReadableStream<Uint8Array>> {
  if (runtime === "deno") return Deno.stdin.readable;
  const process = (await import("node:process")).default;
  const { Readable } = await import("node:stream");
  const input: unknown = Readable.toWeb(process.stdin);
  if (!isByteReadable(input)) {
    throw new TypeError("Cannot serve stdio: this runtime's stdin is not a web stream");
  }
  return input;
}

/**
 * The process's stdout as a web stream for a stdio transport: undefined on
 * Deno (the transport writes `Deno.stdout` itself and releases it without
 * closing it), the `node:stream` web adapter of `process.stdout` on Node and
 * Bun.
 *
 * @returns The stream to pass as the transport's output, if any.
 *
 * @example
 * ```ts
 * import { hostStdout } from "./host.ts";
 * console.assert(await hostStdout() === undefined);
 * ```
 */
export async function hostStdout(): Promise<WritableStream<Uint8Array> | undefined> {
  if (runtime === "deno") return undefined;
  const process = (await import("node:process")).default;
  const { Writable } = await import("node:stream");
  return Writable.toWeb(process.stdout);
}

/** Node types `Readable.toWeb` loosely; its chunks are Buffers, which are Uint8Arrays. */
function isByteReadable(stream: unknown): stream is ReadableStream<Uint8Array> {
  return stream instanceof ReadableStream;
}
