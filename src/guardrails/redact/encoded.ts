/**
 * Encoded secrets: a base64 or a URL-encoded run long enough to hold a
 * credential is decoded, and when what it decodes to holds a secret the
 * whole encoded run is masked (`dG9rZW49Z2hwX…` is `token=ghp_…`).
 *
 * The main pass only notes candidate runs; they are decoded after it, each
 * once, and the decoded text is scanned without decoding again, so the work
 * stays within a small multiple of the text's length.
 *
 * @module
 */

/** The shortest base64 run decoded: 24 characters hold 18 bytes, the least a credential has. */
export const MIN_ENCODED = 24;
/** The longest run decoded: larger blobs are images and archives, not credentials. */
const MAX_ENCODED = 64 * 1024;

/** Scans decoded text (without decoding again) into its own spans. */
export type DecodedScan = (decoded: string, spans: number[]) => void;

/**
 * The spans found before decoding, ordered by start, with the furthest end reached so far:
 * whether a run overlaps one is a binary search, not a walk over every span per run.
 */
interface SpanIndex {
  readonly starts: number[];
  readonly reach: number[];
  /** Spans from this offset of the flat list on were pushed while decoding: walked instead. */
  readonly from: number;
}

function indexSpans(spans: readonly number[]): SpanIndex {
  const order: number[] = [];
  for (let index = 0; index < spans.length; index += 2) order.push(index);
  order.sort((a, b) => (spans[a] ?? 0) - (spans[b] ?? 0));
  const starts: number[] = [];
  const reach: number[] = [];
  let furthest = -1;
  for (const index of order) {
    starts.push(spans[index] ?? 0);
    furthest = Math.max(furthest, spans[index + 1] ?? 0);
    reach.push(furthest);
  }
  return { starts, reach, from: spans.length };
}

/** Whether `[start, end)` overlaps a span found already (the run is masked anyway). */
function overlaps(index: SpanIndex, spans: readonly number[], start: number, end: number): boolean {
  // The last span starting before `end`: any overlapping one is at or before it.
  let low = 0;
  let high = index.starts.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((index.starts[middle] ?? 0) < end) low = middle + 1;
    else high = middle;
  }
  if (low > 0 && (index.reach[low - 1] ?? 0) > start) return true;
  for (let at = index.from; at < spans.length; at += 2) {
    if ((spans[at] ?? 0) < end && (spans[at + 1] ?? 0) > start) return true;
  }
  return false;
}

/** Each base64 character's six bits (both alphabets), or 64 for any other code unit. */
const SEXTETS = new Uint8Array(128).fill(64);
for (let index = 0; index < 64; index++) {
  SEXTETS["ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".charCodeAt(index)] =
    index;
}
SEXTETS[45] = 62;
SEXTETS[95] = 63;

/** Whether a decoded byte can be in a credential: printable ASCII, tab or a line break. */
function printableByte(byte: number): boolean {
  return byte >= 32 && byte <= 126 || byte === 9 || byte === 10 || byte === 13;
}

let decodedBytes = new Uint8Array(1024);
const ascii = new TextDecoder();

/**
 * `run` decoded as base64 (standard or URL-safe, no padding), or `undefined` unless it is
 * printable text. Decoded by hand so that a run of names or random ids stops at its first
 * byte that is not text, with no exception thrown and no copy made.
 */
function decodeRun(run: string, length: number): string | undefined {
  const size = Math.floor(length * 3 / 4);
  if (decodedBytes.length < size) decodedBytes = new Uint8Array(size);
  const bytes = decodedBytes;
  let bits = 0;
  let count = 0;
  let out = 0;
  try {
    for (let index = 0; index < length; index++) {
      const code = run.charCodeAt(index);
      const sextet = code < 128 ? SEXTETS[code] ?? 64 : 64;
      if (sextet === 64) return undefined;
      bits = (bits << 6) | sextet;
      count += 6;
      if (count >= 8) {
        count -= 8;
        const byte = (bits >> count) & 255;
        if (!printableByte(byte)) return undefined;
        bytes[out++] = byte;
      }
    }
    return ascii.decode(bytes.subarray(0, out));
  } finally {
    // The buffer is reused: it keeps no decoded secret once the run is judged.
    bytes.fill(0, 0, out);
  }
}

/** `text` as decoded base64 (standard or URL-safe), or `undefined` unless it is printable text. */
function base64Text(run: string): string | undefined {
  let length = run.length;
  while (length > 0 && run.charCodeAt(length - 1) === 61) length--;
  if (length % 4 === 1) return undefined;
  return decodeRun(run, length);
}

/**
 * Decodes each candidate base64 run (`start, end` pairs) and every URL-encoded
 * run of `text`, and masks a run whose decoded text holds a secret.
 */
export function decodedSecrets(
  text: string,
  candidates: readonly number[],
  scan: DecodedScan,
  spans: number[],
): void {
  const inner: number[] = [];
  const found = indexSpans(spans);
  for (let index = 0; index < candidates.length; index += 2) {
    const start = candidates[index] ?? 0;
    let end = candidates[index + 1] ?? 0;
    while (text.charCodeAt(end) === 61 && end - (candidates[index + 1] ?? 0) < 2) end++;
    if (end - start > MAX_ENCODED || overlaps(found, spans, start, end)) continue;
    const decoded = base64Text(text.slice(start, end));
    if (decoded === undefined) continue;
    inner.length = 0;
    scan(decoded, inner);
    if (inner.length > 0) spans.push(start, end);
  }
  urlEncoded(text, scan, inner, found, spans);
}

/** Whether a code unit is a hex digit. */
function isHex(code: number): boolean {
  return code >= 48 && code <= 57 || code >= 65 && code <= 70 || code >= 97 && code <= 102;
}

/** Characters of a URL-encoded run: unreserved ones and `%`. */
function inUrlRun(code: number): boolean {
  return code >= 48 && code <= 57 || code >= 65 && code <= 90 || code >= 97 && code <= 122 ||
    code === 37 || code === 45 || code === 46 || code === 95 || code === 126 || code === 43;
}

/** Runs holding `%XX` escapes (`password%3Dhunter2%26…`): decoded and scanned like base64. */
function urlEncoded(
  text: string,
  scan: DecodedScan,
  inner: number[],
  found: SpanIndex,
  spans: number[],
): void {
  let done = 0;
  for (let at = text.indexOf("%"); at >= 0; at = text.indexOf("%", Math.max(at + 1, done))) {
    if (at < done || !isHex(text.charCodeAt(at + 1)) || !isHex(text.charCodeAt(at + 2))) continue;
    let start = at;
    while (start > 0 && inUrlRun(text.charCodeAt(start - 1))) start--;
    let end = at;
    while (end < text.length && inUrlRun(text.charCodeAt(end))) end++;
    done = end;
    if (end - start < 12 || end - start > MAX_ENCODED || overlaps(found, spans, start, end)) {
      continue;
    }
    let decoded: string;
    try {
      decoded = decodeURIComponent(text.slice(start, end).replaceAll("+", " "));
    } catch {
      continue;
    }
    inner.length = 0;
    scan(decoded, inner);
    if (inner.length > 0) spans.push(start, end);
  }
}
