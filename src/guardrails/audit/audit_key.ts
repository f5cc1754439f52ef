/**
 * The audit key as the operator keeps it: a file (`--audit-key-file`),
 * read once at start. Its bytes are the key, a final line feed excepted, so
 * `openssl rand -hex 32 > audit.key` makes a good one.
 *
 * @module
 */

import { keyBytes } from "./chain.ts";

/**
 * Reads an audit key file.
 *
 * @param path The key file.
 * @returns The key's bytes (at least 16).
 * @throws {Error} "Cannot read audit key FILE: reason" when it cannot be read or is too short.
 */
export async function readAuditKey(path: string): Promise<Uint8Array> {
  const { readFile } = await import("node:fs/promises");
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await readFile(path));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`Cannot read audit key ${path}: ${reason}`);
  }
  // An editor's or echo's final line feed is not part of the key.
  let end = bytes.length;
  if (bytes[end - 1] === 0x0a) end--;
  if (bytes[end - 1] === 0x0d) end--;
  try {
    return keyBytes(bytes.subarray(0, end));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`Cannot read audit key ${path}: ${reason}`);
  }
}
