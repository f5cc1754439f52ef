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

/** Whether `[start, end)` overlaps a span found already (the run is masked anyway). */
function overlaps(spans: readonly number[], start: number, end: number): boolean {
  for (let index = 0; index < spans.length; index += 2) {
    if ((spans[index] ?? 0) < end && (spans[index + 1] ?? 0) > start) return true;
  }
  return false;
}

/** Whether the first characters of a base64 run decode to printable text. */
function printable(head: string): boolean {
  let decoded: string;
  try {
    decoded = atob(head.replaceAll("-", "+").replaceAll("_", "/"));
  } catch {
    return false;
  }
  for (let index = 0; index < decoded.length; index++) {
    const code = decoded.charCodeAt(index);
    if (code > 126 || (code < 32 && code !== 9 && code !== 10 && code !== 13)) return false;
  }
  return true;
}

/** `text` as decoded base64 (standard or URL-safe), or `undefined` unless it is printable text. */
function base64Text(run: string): string | undefined {
  const bare = run.replace(/=+$/u, "");
  if (bare.length % 4 === 1) return undefined;
  // Most candidates are names and random ids: their first six bytes already give them away.
  if (!printable(bare.slice(0, 8))) return undefined;
  const standard = bare.replaceAll("-", "+").replaceAll("_", "/");
  let decoded: string;
  try {
    decoded = atob(standard + "=".repeat((4 - standard.length % 4) % 4));
  } catch {
    return undefined;
  }
  // Credentials are ASCII: control characters (but tab and line breaks) or high bytes mean binary.
  for (let index = 0; index < decoded.length; index++) {
    const code = decoded.charCodeAt(index);
    if (code > 126 || (code < 32 && code !== 9 && code !== 10 && code !== 13)) return undefined;
  }
  return decoded;
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
  for (let index = 0; index < candidates.length; index += 2) {
    const start = candidates[index] ?? 0;
    let end = candidates[index + 1] ?? 0;
    while (text.charCodeAt(end) === 61 && end - (candidates[index + 1] ?? 0) < 2) end++;
    if (end - start > MAX_ENCODED || overlaps(spans, start, end)) continue;
    const decoded = base64Text(text.slice(start, end));
    if (decoded === undefined) continue;
    inner.length = 0;
    scan(decoded, inner);
    if (inner.length > 0) spans.push(start, end);
  }
  urlEncoded(text, scan, inner, spans);
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
function urlEncoded(text: string, scan: DecodedScan, inner: number[], spans: number[]): void {
  let done = 0;
  for (let at = text.indexOf("%"); at >= 0; at = text.indexOf("%", Math.max(at + 1, done))) {
    if (at < done || !isHex(text.charCodeAt(at + 1)) || !isHex(text.charCodeAt(at + 2))) continue;
    let start = at;
    while (start > 0 && inUrlRun(text.charCodeAt(start - 1))) start--;
    let end = at;
    while (end < text.length && inUrlRun(text.charCodeAt(end))) end++;
    done = end;
    if (end - start < 12 || end - start > MAX_ENCODED || overlaps(spans, start, end)) continue;
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
