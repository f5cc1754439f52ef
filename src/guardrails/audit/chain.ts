/**
 * The audit log's hash chain: how a line is sealed. Each line carries the
 * id of its chain, the hash of the chain's previous line (`prev`) and its own
 * (`hash`, last): SHA-256 of the line's bytes up to the hash field, or
 * HMAC-SHA-256 under the audit key when one is configured. The hash covers
 * the exact bytes written, so a reader needs no canonical form of JSON to
 * check it: it cuts the hash field off and hashes what is left.
 *
 * @module
 */

import { createHash, type Hash } from "node:crypto";

/** How a chain's hashes are made: plain SHA-256, or HMAC-SHA-256 under the audit key. */
export type ChainAlgorithm = "sha256" | "hmac-sha256";

/** The `prev` of a chain's first line when it continues nothing. */
export const NO_PREVIOUS = "0".repeat(64);

/** What a line's end looks like: `,"hash":"<64 hex>"}`. */
export const HASH_SUFFIX_LENGTH = ',"hash":"'.length + 64 + '"}'.length;

/** The shortest audit key accepted, in bytes. */
export const MIN_KEY_BYTES = 16;

/** A line of a chain, as the next run or a continuing chain names it. */
export interface ChainLink {
  /** The chain's id. */
  readonly chain: string;
  /** The line's `seq`. */
  readonly seq: number;
  /** The line's `hash`. */
  readonly hash: string;
}

/**
 * An audit key as bytes: a string is taken as UTF-8.
 *
 * @throws {RangeError} The key is shorter than {@linkcode MIN_KEY_BYTES} bytes.
 */
export function keyBytes(key: Uint8Array | string): Uint8Array {
  const bytes = typeof key === "string" ? new TextEncoder().encode(key) : key;
  if (bytes.length < MIN_KEY_BYTES) {
    throw new RangeError(
      `Invalid audit key: expected at least ${MIN_KEY_BYTES} bytes, got ${bytes.length}`,
    );
  }
  return bytes;
}

/**
 * A short public name of a key, so a verifier can tell "another key" from "changed":
 * the first 16 hex digits of SHA-256 over a fixed label and the key.
 */
export function keyId(key: Uint8Array): string {
  return createHash("sha256").update("warden-audit-key-id\0").update(key).digest("hex").slice(
    0,
    16,
  );
}

/** Hashes a line's body (the line up to its hash field, closed with `}`) to hex. */
export type LineHasher = (body: string) => string;

const SHA256_BLOCK_BYTES = 64;

/**
 * The hasher of a chain: SHA-256, or HMAC-SHA-256 (RFC 2104) under `key`. The
 * HMAC's padded keys are hashed once and their states copied for each line,
 * which halves the cost of `createHmac` per line (its key set-up dominates
 * lines this short); a test holds it equal to `createHmac`.
 */
export function lineHasher(key: Uint8Array | undefined): LineHasher {
  if (key === undefined) return (body) => createHash("sha256").update(body, "utf8").digest("hex");
  const block = new Uint8Array(SHA256_BLOCK_BYTES);
  block.set(key.length > SHA256_BLOCK_BYTES ? createHash("sha256").update(key).digest() : key);
  const inner: Hash = createHash("sha256").update(block.map((byte) => byte ^ 0x36));
  const outer: Hash = createHash("sha256").update(block.map((byte) => byte ^ 0x5c));
  return (body) => {
    const digest = inner.copy().update(body, "utf8").digest();
    return outer.copy().update(digest).digest("hex");
  };
}

/** The hash of one line's body; {@linkcode lineHasher} for many lines. */
export function hashBody(body: string, key: Uint8Array | undefined): string {
  return lineHasher(key)(body);
}

/**
 * One chain of one run: its id, the last `seq` and `hash`, and the key.
 * It only builds lines; writing them is the sink's business.
 */
export class AuditChain {
  /** This chain's id, a random UUID: two runs or instances never share one. */
  readonly id: string = crypto.randomUUID();
  /** How this chain hashes. */
  readonly algorithm: ChainAlgorithm;
  /** The `seq` of the last line sealed. */
  seq: number;
  /** Call entries sealed since the chain began. */
  entries = 0;
  readonly #key: Uint8Array | undefined;
  readonly #hash: LineHasher;
  #prev: string;

  /**
   * @param key The audit key, or none for plain SHA-256.
   * @param continues The line this chain continues (the last of a file), if any.
   */
  constructor(key: Uint8Array | undefined, continues: ChainLink | undefined) {
    this.#key = key;
    this.#hash = lineHasher(key);
    this.algorithm = key === undefined ? "sha256" : "hmac-sha256";
    // A chain that continues nothing starts at seq 0, so its entries count from 1.
    this.seq = continues?.seq ?? -1;
    this.#prev = continues?.hash ?? NO_PREVIOUS;
  }

  /** Seals an object's JSON text (which must end in `}`) as the chain's next line. */
  seal(json: string): string {
    const body = `${json.slice(0, -1)},"chain":"${this.id}","prev":"${this.#prev}"}`;
    const hash = this.#hash(body);
    this.#prev = hash;
    return `${body.slice(0, -1)},"hash":"${hash}"}`;
  }

  /** The next `seq`, taken. */
  nextSeq(): number {
    return ++this.seq;
  }

  /**
   * The chain's first line: how it hashes, with which key, and what it
   * continues (`null` for nothing: a new file, or a per-process chain).
   */
  genesis(
    now: number,
    scope: "file" | "process",
    maxLineBytes: number,
    continues: ChainLink | undefined,
  ): string {
    return this.seal(JSON.stringify({
      seq: this.nextSeq(),
      time: new Date(now).toISOString(),
      event: "genesis",
      alg: this.algorithm,
      key_id: this.#key === undefined ? null : keyId(this.#key),
      scope,
      max_line_bytes: maxLineBytes,
      continues: continues === undefined
        ? null
        : { chain: continues.chain, seq: continues.seq, hash: continues.hash },
    }));
  }

  /** A checkpoint: how many entries the chain holds, sealed (signed when keyed) like every line. */
  checkpoint(now: number): string {
    return this.seal(JSON.stringify({
      seq: this.nextSeq(),
      time: new Date(now).toISOString(),
      event: "checkpoint",
      entries: this.entries,
    }));
  }
}
