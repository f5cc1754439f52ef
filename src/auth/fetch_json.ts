/**
 * Reading a JSON document from an authorization server within bounds: a
 * deadline, a size cap, no redirects, JSON objects only. Whatever goes
 * wrong becomes an {@linkcode UpstreamError}, which the resource server
 * turns into a 503 and one log line: it never hangs and never crashes.
 *
 * @module
 */

import { textOfChunks } from "../runtime/chunks.ts";

/** A failure of an authorization server's endpoint (unreachable, slow, too big, not JSON). */
export class UpstreamError extends Error {
  override name = "UpstreamError";
}

/** Bounds on one upstream fetch. */
export interface FetchBounds {
  /** The deadline, in ms. */
  readonly timeoutMs: number;
  /** The largest body read, in bytes. */
  readonly maxBytes: number;
}

/** Reads `response`'s body, refusing more than `maxBytes`. */
async function readCapped(response: Response, maxBytes: number, url: string): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw new UpstreamError(`${url} answered more than ${maxBytes} bytes`);
  }
  const reader = response.body?.getReader();
  if (reader === undefined) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new UpstreamError(`${url} answered more than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return textOfChunks(chunks, size);
}

/**
 * Fetches `url` (GET, or POST with `body`) and parses a JSON object.
 * `acceptStatus` decides which statuses carry a usable document (200 by
 * default).
 *
 * @throws {UpstreamError} On any failure: network, deadline, status, size, JSON.
 */
export async function fetchJson(
  url: string,
  bounds: FetchBounds,
  init: { body?: URLSearchParams; headers?: Record<string, string> } = {},
): Promise<Record<string, unknown>> {
  const signal = AbortSignal.timeout(bounds.timeoutMs);
  let text: string;
  try {
    const response = await fetch(url, {
      method: init.body === undefined ? "GET" : "POST",
      headers: { accept: "application/json", ...init.headers },
      ...(init.body === undefined ? {} : { body: init.body }),
      redirect: "error",
      signal,
    });
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new UpstreamError(`${url} answered ${response.status}`);
    }
    text = await readCapped(response, bounds.maxBytes, url);
  } catch (error) {
    if (error instanceof UpstreamError) throw error;
    const reason = signal.aborted ? `no answer within ${bounds.timeoutMs} ms` : errorText(error);
    throw new UpstreamError(`${url}: ${reason}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UpstreamError(`${url} did not answer JSON`);
  }
  if (!isRecord(value)) throw new UpstreamError(`${url} did not answer a JSON object`);
  return value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
