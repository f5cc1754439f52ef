/**
 * The MIME type of a skill file, by its extension, and whether it is served
 * as text or as a base64 blob. A short table of what skills hold (markdown,
 * scripts, templates, data, images) rather than a registry of every type:
 * anything else is `text/plain` when it is UTF-8 and octets otherwise.
 *
 * @module
 */

const BY_EXTENSION: Readonly<Record<string, string>> = {
  md: "text/markdown",
  markdown: "text/markdown",
  txt: "text/plain",
  html: "text/html",
  htm: "text/html",
  css: "text/css",
  csv: "text/csv",
  js: "text/javascript",
  mjs: "text/javascript",
  ts: "text/typescript",
  py: "text/x-python",
  sh: "text/x-shellscript",
  json: "application/json",
  yaml: "application/yaml",
  yml: "application/yaml",
  toml: "application/toml",
  xml: "application/xml",
  svg: "image/svg+xml",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  pdf: "application/pdf",
  zip: "application/zip",
};

const TEXTUAL = /^(?:text\/|application\/(?:json|yaml|toml|xml)$|image\/svg\+xml$)/;

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * A file's MIME type and its text, when it is sent as text: a textual type
 * whose bytes are valid UTF-8 (kept byte for byte, a byte order mark
 * included, so that the digest of what the client receives is the digest
 * published).
 */
export function fileMedia(
  path: string,
  bytes: Uint8Array,
): { mimeType: string; text: string | undefined } {
  const dot = path.lastIndexOf(".");
  const slash = path.lastIndexOf("/");
  const extension = dot > slash + 1 ? path.slice(dot + 1).toLowerCase() : "";
  const known = Object.hasOwn(BY_EXTENSION, extension) ? BY_EXTENSION[extension] : undefined;
  let text: string | undefined;
  try {
    text = STRICT_UTF8.decode(bytes);
  } catch {
    text = undefined;
  }
  const mimeType = known ?? (text === undefined ? "application/octet-stream" : "text/plain");
  return { mimeType, text: TEXTUAL.test(mimeType) ? text : undefined };
}
