/**
 * Joining the chunks of a body read with a byte bound into its text: the
 * HTTP endpoint's request bodies and the resource server's upstream
 * answers both read chunk by chunk, counting, and decode once at the end.
 *
 * @module
 */

/** One decoder for every body: decoding without `stream` keeps no state between calls. */
const decoder = new TextDecoder();

/** The UTF-8 text of `chunks`, whose byte lengths add up to `size`. */
export function textOfChunks(chunks: readonly Uint8Array[], size: number): string {
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return decoder.decode(bytes);
}
