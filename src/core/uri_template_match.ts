/**
 * Matching a URI against a parsed template without regex backtracking: the
 * URI is walked back from its end once to record where the rest of the
 * template can match, then values are read left to right, so adversarial
 * URIs cost linear time.
 *
 * @module
 */

/** One step of matching: literal text, or a variable's value. */
export type MatchItem = string | { readonly name: string; readonly stops: RegExp };

/**
 * Matches without backtracking. Working back from the end, `rest[j]` collects
 * the positions from which items `j..` match the rest of the URI exactly:
 * a literal adds where it occurs before a position of `rest[j + 1]`; a value
 * adds, in each run of characters it may contain, every position before the
 * run's last position in `rest[j + 1]`. Values are then read left to right,
 * each taking the longest run after which the rest still matches.
 */
export function matchUri(
  items: readonly MatchItem[],
  uri: string,
): Record<string, string> | undefined {
  const first = items[0];
  const last = items[items.length - 1];
  if (typeof first === "string" && !uri.startsWith(first)) return undefined;
  if (typeof last === "string" && !uri.endsWith(last)) return undefined;
  const rest: PositionSet[] = [];
  let next = new PositionSet(uri.length);
  next.add(uri.length);
  rest[items.length] = next;
  for (let index = items.length - 1; index >= 0; index--) {
    const item = items[index] ?? "";
    const current = new PositionSet(uri.length);
    let found = false;
    if (typeof item === "string") {
      for (let at = uri.indexOf(item); at !== -1; at = uri.indexOf(item, at + 1)) {
        if (next.has(at + item.length)) found = current.add(at);
      }
    } else {
      for (let at = 0; at < uri.length; at++) {
        const stop = nextStop(item.stops, uri, at);
        const end = next.lastIn(at, stop);
        if (end !== -1) found = current.addRange(at, end);
        at = stop;
      }
    }
    if (!found) return undefined;
    rest[index] = next = current;
  }
  if (!next.has(0)) return undefined;
  const result: Record<string, string> = {};
  let position = 0;
  for (const [index, item] of items.entries()) {
    if (typeof item === "string") {
      position += item.length;
      continue;
    }
    const end = rest[index + 1]?.lastIn(position, nextStop(item.stops, uri, position)) ?? -1;
    const value = end === -1 ? undefined : percentDecode(uri.slice(position, end));
    if (value === undefined) return undefined;
    // A plain assignment to "__proto__" would set the prototype instead.
    Object.defineProperty(result, item.name, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
    position = end;
  }
  return result;
}

/** The index of the first stop character at or after `from`, or the URI's length. */
function nextStop(stops: RegExp, uri: string, from: number): number {
  stops.lastIndex = from;
  return stops.test(uri) ? stops.lastIndex - 1 : uri.length;
}

/** A set of positions in a string, one bit each, so long URIs stay cheap. */
class PositionSet {
  readonly #words: Uint32Array;

  constructor(length: number) {
    this.#words = new Uint32Array((length >>> 5) + 1);
  }

  has(at: number): boolean {
    return (((this.#words[at >>> 5] ?? 0) >>> (at & 31)) & 1) === 1;
  }

  /** Adds `at`; returns `true` for the caller's bookkeeping. */
  add(at: number): true {
    this.#words[at >>> 5] = (this.#words[at >>> 5] ?? 0) | (1 << (at & 31));
    return true;
  }

  /** Adds every position from `from` up to, not including, `to` (`from < to`). */
  addRange(from: number, to: number): true {
    for (let at = from; at < to;) {
      const offset = at & 31;
      const count = Math.min(32 - offset, to - at);
      const mask = count === 32 ? 0xffffffff : ((1 << count) - 1) << offset;
      this.#words[at >>> 5] = (this.#words[at >>> 5] ?? 0) | mask;
      at += count;
    }
    return true;
  }

  /** The largest position in the set after `from` and at most `to`, or -1. */
  lastIn(from: number, to: number): number {
    if (to <= from) return -1;
    let word = to >>> 5;
    let bits = (this.#words[word] ?? 0) & (0xffffffff >>> (31 - (to & 31)));
    while (bits === 0) {
      if (word * 32 <= from) return -1;
      word--;
      bits = this.#words[word] ?? 0;
    }
    const at = word * 32 + 31 - Math.clz32(bits);
    return at > from ? at : -1;
  }
}

/**
 * Decodes `%XX` escapes; `undefined` for a bad escape, bytes that are not
 * UTF-8, or a lone surrogate, which no UTF-8 URI can hold either.
 */
function percentDecode(text: string): string | undefined {
  if (!text.isWellFormed()) return undefined;
  if (!text.includes("%")) return text;
  try {
    return decodeURIComponent(text);
  } catch (error) {
    if (error instanceof URIError) return undefined;
    throw error;
  }
}
