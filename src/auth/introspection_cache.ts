/**
 * The cache of token introspection answers (RFC 7662 section 4 lets a
 * resource server cache them): an opaque token used on every request
 * costs the authorization server one call per `maxAgeMs`, not one per
 * request. An active answer is kept until the token's `exp` or `maxAgeMs`,
 * whichever comes first; an inactive one for `NEGATIVE_MS` at most, so a
 * client retrying a dead token does not hammer the server while a token
 * the server was slow to learn is not refused for long. The answer, not
 * the verdict, is kept: expiry and the other checks run again on each use.
 * Entries are keyed by the token's SHA-256, so no token is held; the size
 * is bounded, the oldest entry leaving first. Concurrent lookups of one
 * token share one call; a failed call is not cached.
 *
 * @module
 */

/** How long an inactive answer is kept at most, in ms. */
export const NEGATIVE_MS = 5_000;

/** One cached answer, or the call that will give it. */
interface Entry {
  readonly answer: Promise<Record<string, unknown>>;
  /** When it stops being used, in ms; Infinity while the call is pending. */
  expiresAt: number;
}

/** A bounded cache of introspection answers. */
export class IntrospectionCache {
  readonly #entries = new Map<string, Entry>();
  readonly #maxAgeMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;

  /**
   * @param maxAgeMs The longest an active answer is kept (0: no cache).
   * @param maxEntries The most answers kept.
   * @param now The clock, in ms.
   */
  constructor(maxAgeMs: number, maxEntries: number, now: () => number) {
    this.#maxAgeMs = maxAgeMs;
    this.#maxEntries = maxEntries;
    this.#now = now;
  }

  /** The number of entries (pending calls included). */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * The answer for `token`: cached, or from `ask` (then cached as its
   * `active` and `exp` allow).
   *
   * @throws What `ask` throws; nothing is cached then.
   */
  async answer(
    token: string,
    ask: () => Promise<Record<string, unknown>>,
  ): Promise<Record<string, unknown>> {
    if (this.#maxAgeMs === 0) return await ask();
    const key = await digest(token);
    const found = this.#entries.get(key);
    if (found !== undefined && found.expiresAt > this.#now()) return await found.answer;
    if (found !== undefined) this.#entries.delete(key);
    const entry: Entry = { answer: ask(), expiresAt: Infinity };
    this.#makeRoom();
    this.#entries.set(key, entry);
    try {
      const answer = await entry.answer;
      entry.expiresAt = this.#expiry(answer);
      return answer;
    } catch (error) {
      if (this.#entries.get(key) === entry) this.#entries.delete(key);
      throw error;
    }
  }

  /** When an answer stops being used: never past the token's `exp` or the cache's bounds. */
  #expiry(answer: Record<string, unknown>): number {
    const now = this.#now();
    if (answer.active !== true) return now + Math.min(NEGATIVE_MS, this.#maxAgeMs);
    const exp = typeof answer.exp === "number" ? answer.exp * 1000 : now;
    return Math.min(now + this.#maxAgeMs, exp);
  }

  /** Drops expired entries, then the oldest ones, until one more fits. */
  #makeRoom(): void {
    if (this.#entries.size < this.#maxEntries) return;
    const now = this.#now();
    for (const [key, entry] of this.#entries) {
      if (entry.expiresAt <= now) this.#entries.delete(key);
    }
    for (const key of this.#entries.keys()) {
      if (this.#entries.size < this.#maxEntries) break;
      this.#entries.delete(key);
    }
  }
}

/** The hex SHA-256 of `token`: the key, so the cache holds no token. */
async function digest(token: string): Promise<string> {
  const bytes = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token)),
  );
  let hex = "";
  for (const byte of bytes) hex += byte.toString(16).padStart(2, "0");
  return hex;
}
