/**
 * Verifies an audit log written as hash chains: every line's hash, every
 * chain's `seq` and `prev` links, each run's continuation of the one before,
 * and that each chain ends with a checkpoint (or is continued by a later
 * run). It stops at the first line that fails, and says which and why. Lines
 * of several chains may interleave (two instances appending to one file);
 * each chain is followed on its own.
 *
 * @module
 */

import {
  HASH_SUFFIX_LENGTH,
  keyBytes,
  keyId,
  type LineHasher,
  lineHasher,
  NO_PREVIOUS,
} from "./chain.ts";

/** What verification found (the return type of {@linkcode verifyAuditLog}). */
export type AuditVerification = ReturnType<typeof verifyAuditLog>;

/** What is known of one chain so far. */
interface ChainState {
  readonly keyed: boolean;
  seq: number;
  hash: string;
  /** The line number of its last line. */
  line: number;
  entries: number;
  checkpointed: boolean;
  /** The highest `seq` a later run continues from (to say why a chain without a checkpoint is open). */
  continuedAt: number;
  /** Recent hashes by seq, for a run that continued this chain while it was still being written. */
  readonly recent: Map<number, string>;
}

const RECENT = 256;
const HEX64 = /^[0-9a-f]{64}$/;

class Failure extends Error {}

function fail(reason: string): never {
  throw new Failure(reason);
}

/** A parsed line: its fields, the chain fields checked, and the hash it claims. */
interface Line {
  readonly fields: Readonly<Record<string, unknown>>;
  readonly chain: string;
  readonly seq: number;
  readonly prev: string;
  readonly body: string;
  readonly hash: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function parseLine(text: string): Line {
  if (text === "") fail("empty line");
  const hash = text.slice(-HASH_SUFFIX_LENGTH + 9, -2);
  if (
    !text.endsWith('"}') ||
    text.slice(-HASH_SUFFIX_LENGTH, -HASH_SUFFIX_LENGTH + 9) !== ',"hash":"' ||
    !HEX64.test(hash)
  ) fail("not a chained audit line: it does not end with its hash");
  const body = `${text.slice(0, -HASH_SUFFIX_LENGTH)}}`;
  let fields: unknown;
  try {
    fields = JSON.parse(body);
  } catch {
    fail("not valid JSON");
  }
  if (!isRecord(fields)) fail("not a JSON object");
  const { chain, seq, prev } = fields;
  if (typeof chain !== "string" || chain === "") fail("no chain id");
  if (typeof seq !== "number" || !Number.isSafeInteger(seq)) fail("no seq");
  if (typeof prev !== "string" || !HEX64.test(prev)) fail("no prev hash");
  return { fields, chain, seq, prev, body, hash };
}

const PLAIN: LineHasher = lineHasher(undefined);
/** One hasher per key, so its padded keys are prepared once per verification. */
const keyedHashers = new WeakMap<Uint8Array, LineHasher>();

function hasherFor(key: Uint8Array): LineHasher {
  let hasher = keyedHashers.get(key);
  if (hasher === undefined) {
    hasher = lineHasher(key);
    keyedHashers.set(key, hasher);
  }
  return hasher;
}

/** Checks a line's hash under its chain's algorithm. */
function checkHash(line: Line, keyed: boolean, key: Uint8Array | undefined): void {
  const hash = keyed && key !== undefined ? hasherFor(key) : PLAIN;
  if (hash(line.body) !== line.hash) {
    fail(
      keyed
        ? "its hash does not match its content: the line was changed, or not signed with this key"
        : "its hash does not match its content: the line was changed",
    );
  }
}

/** Starts a chain at its genesis line, checking what it continues. */
function genesis(
  line: Line,
  chains: Map<string, ChainState>,
  key: Uint8Array | undefined,
): ChainState {
  const { fields, chain: id, seq } = line;
  if (chains.has(id)) fail(`a second genesis for chain ${id}`);
  const keyed = fields.alg === "hmac-sha256";
  if (!keyed && fields.alg !== "sha256") {
    fail(`unknown hash algorithm ${JSON.stringify(fields.alg)}`);
  }
  if (keyed && key === undefined) fail(`chain ${id} is keyed (hmac-sha256): give its key`);
  if (!keyed && key !== undefined) {
    fail(`chain ${id} is not keyed, but a key was given: anyone could have written it`);
  }
  if (keyed && key !== undefined && fields.key_id !== keyId(key)) {
    fail(`chain ${id} was signed with another key (key_id ${JSON.stringify(fields.key_id)})`);
  }
  checkHash(line, keyed, key);
  const continues = fields.continues;
  if (continues === null) {
    if (line.prev !== NO_PREVIOUS || seq !== 0) {
      fail("a genesis that continues nothing must have seq 0 and no prev hash");
    }
  } else checkContinuation(continues, seq, line.prev, chains);
  return {
    keyed,
    seq,
    hash: line.hash,
    line: 0,
    entries: 0,
    checkpointed: false,
    continuedAt: 0,
    recent: new Map(),
  };
}

function checkContinuation(
  continues: unknown,
  seq: number,
  prev: string,
  chains: Map<string, ChainState>,
): void {
  if (typeof continues !== "object" || continues === null) fail("a malformed continues field");
  const chain: unknown = Reflect.get(continues, "chain");
  const at: unknown = Reflect.get(continues, "seq");
  const hash: unknown = Reflect.get(continues, "hash");
  const earlier = typeof chain === "string" ? chains.get(chain) : undefined;
  if (earlier === undefined || typeof at !== "number" || earlier.recent.get(at) !== hash) {
    fail(
      `it continues chain ${String(chain)} at seq ${
        String(at)
      }, which is not earlier in the log: lines are missing before it`,
    );
  }
  if (prev !== hash || seq !== at + 1) fail("its prev and seq do not follow the line it continues");
  earlier.continuedAt = Math.max(earlier.continuedAt, at);
}

/** Checks a line that follows its chain's previous line. */
function follow(line: Line, state: ChainState, key: Uint8Array | undefined): void {
  const { fields, seq } = line;
  checkHash(line, state.keyed, key);
  if (seq !== state.seq + 1) {
    const expected = state.seq + 1;
    fail(
      `expected seq ${expected} of chain ${line.chain}, found ${seq}: a line is missing, repeated or out of order`,
    );
  }
  if (line.prev !== state.hash) {
    fail(`its prev is not the hash of the chain's previous line (line ${state.line})`);
  }
  if (fields.event === "checkpoint") {
    if (fields.entries !== state.entries) {
      fail(
        `the checkpoint counts ${String(fields.entries)} entries, the chain holds ${state.entries}`,
      );
    }
    state.checkpointed = true;
  } else if (fields.event !== undefined) {
    fail(`an unexpected event ${JSON.stringify(fields.event)}`);
  } else {
    state.entries++;
    state.checkpointed = false;
  }
  state.seq = seq;
  state.hash = line.hash;
}

function remember(state: ChainState, lineNumber: number): void {
  state.line = lineNumber;
  state.recent.set(state.seq, state.hash);
  if (state.recent.size > RECENT) state.recent.delete(state.seq - RECENT);
}

/**
 * Verifies an audit log written by Warden's stderr or file sink (a copy is
 * as good as the original): each line's hash, each chain's sequence and
 * links, and a checkpoint at the end of each chain. Stops at the first bad
 * line: changed, missing, repeated, reordered, truncated, spliced from
 * another chain, or signed with another key.
 *
 * @param log The log's bytes, or its text.
 * @param options The key of a keyed log (as given to `auditLog({ key })`);
 *   `open: true` accepts chains without a final checkpoint (a log still being written, or a
 *   run that crashed, even when a later run continued it).
 * @returns What was verified, and the first bad line if any.
 *
 * @example Verifying a log file
 * ```ts
 * import { verifyAuditLog } from "@warden/mcp/audit";
 * const report = verifyAuditLog(new TextEncoder().encode(""));
 * console.assert(report.ok && report.entries === 0);
 * ```
 */
export function verifyAuditLog(
  log: Uint8Array | string,
  options: { key?: Uint8Array | string; open?: boolean } = {},
): {
  /** Whether the whole log verified. */
  ok: boolean;
  /** Lines verified (before the first bad one, when there is one). */
  lines: number;
  /** Call entries among them (genesis and checkpoint lines not counted). */
  entries: number;
  /** Chains seen. */
  chains: number;
  /** Whether every chain ends with a checkpoint (one continued by a later run included). */
  checkpoint: boolean;
  /** The first bad line (1-based) and why; absent when `ok`. */
  error?: { line: number; reason: string };
} {
  const key = options.key === undefined ? undefined : keyBytes(options.key);
  const { lines: texts, complete } = splitLines(log);
  const chains = new Map<string, ChainState>();
  const report: AuditVerification = { ok: true, lines: 0, entries: 0, chains: 0, checkpoint: true };
  for (let i = 0; i < texts.length; i++) {
    const text = texts[i];
    try {
      if (!complete && i === texts.length - 1) {
        fail("it is cut short (no line feed at its end): the log was truncated");
      }
      if (text === undefined) fail("not valid UTF-8");
      verifyLine(parseLine(text), chains, key, i + 1);
    } catch (error) {
      if (!(error instanceof Failure)) throw error;
      return finish(report, chains, { line: i + 1, reason: error.message });
    }
    report.lines++;
  }
  return finish(report, chains, options.open === true ? undefined : openChain(chains));
}

function verifyLine(
  line: Line,
  chains: Map<string, ChainState>,
  key: Uint8Array | undefined,
  lineNumber: number,
): void {
  const id = line.chain;
  let state = chains.get(id);
  if (line.fields.event === "genesis") {
    state = genesis(line, chains, key);
    chains.set(id, state);
  } else if (state === undefined) {
    fail(`chain ${id} has no genesis line before this one: lines are missing before it`);
  } else follow(line, state, key);
  remember(state, lineNumber);
}

/**
 * The first chain that does not end with a checkpoint. A later run that
 * continued it does not close it: a run continues whatever line the file
 * ends with, so lines removed while no server ran would be taken over
 * unnoticed; a crash looks the same, and is accepted only with `open`.
 */
function openChain(chains: Map<string, ChainState>): { line: number; reason: string } | undefined {
  let first: { line: number; reason: string } | undefined;
  for (const [id, state] of chains) {
    if (state.checkpointed) continue;
    if (first === undefined || state.line < first.line) {
      const why = state.continuedAt >= state.seq
        ? " and a later run continued it: lines after it were removed, or its server stopped without shutting down (a crash, a kill)"
        : ": lines after it are missing, or its server did not shut down cleanly";
      first = { line: state.line, reason: `chain ${id} ends here without a checkpoint${why}` };
    }
  }
  return first;
}

function finish(
  report: AuditVerification,
  chains: Map<string, ChainState>,
  error: { line: number; reason: string } | undefined,
): AuditVerification {
  report.chains = chains.size;
  for (const state of chains.values()) {
    report.entries += state.entries;
    if (!state.checkpointed) report.checkpoint = false;
  }
  if (error !== undefined) {
    report.ok = false;
    report.error = error;
  }
  return report;
}

/**
 * The log's lines, and whether the last ends with a line feed (if not, it
 * is what follows the last one). A line that is not UTF-8 is undefined.
 */
function splitLines(
  log: Uint8Array | string,
): { lines: (string | undefined)[]; complete: boolean } {
  if (typeof log === "string") return dropEmptyEnd(log.split("\n"));
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const lines: (string | undefined)[] = [];
  let start = 0;
  for (;;) {
    const end = log.indexOf(0x0a, start);
    const bytes = log.subarray(start, end === -1 ? log.length : end);
    try {
      lines.push(decoder.decode(bytes));
    } catch {
      lines.push(undefined);
    }
    if (end === -1) break;
    start = end + 1;
  }
  return dropEmptyEnd(lines);
}

function dropEmptyEnd(
  lines: (string | undefined)[],
): { lines: (string | undefined)[]; complete: boolean } {
  const complete = lines.at(-1) === "";
  if (complete) lines.pop();
  return { lines, complete };
}
