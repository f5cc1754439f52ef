/**
 * Counts the redaction scans of one text: the scanner encodes each text it
 * scans once, so counting `encodeInto` calls on exactly that string counts
 * its scans.
 */

/** Runs `body` while counting the encodings of exactly `text`; async when `body` is. */
export function scansOf(text: string, body: () => void): number;
export function scansOf(text: string, body: () => Promise<void>): Promise<number>;
export function scansOf(
  text: string,
  body: () => void | Promise<void>,
): number | Promise<number> {
  const original = TextEncoder.prototype.encodeInto;
  let scans = 0;
  TextEncoder.prototype.encodeInto = function (source, destination) {
    if (source === text) scans++;
    return original.call(this, source, destination);
  };
  const restore = () => {
    TextEncoder.prototype.encodeInto = original;
  };
  let running: void | Promise<void>;
  try {
    running = body();
  } catch (error) {
    restore();
    throw error;
  }
  if (running instanceof Promise) return running.then(() => scans).finally(restore);
  restore();
  return scans;
}
