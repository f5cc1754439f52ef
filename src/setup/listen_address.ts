/**
 * The `--http [HOST:]PORT` value: where a server script listens.
 *
 * @module
 */

/** `PORT`, `HOST:PORT` or `[IPV6]:PORT` as a hostname and port; undefined when malformed. */
export function parseListenAddress(value: string): { hostname: string; port: number } | undefined {
  const colon = value.lastIndexOf(":");
  const host = colon === -1 ? "127.0.0.1" : value.slice(0, colon).replace(/^\[(.*)\]$/, "$1");
  const portText = colon === -1 ? value : value.slice(colon + 1);
  const port = Number(portText);
  if (!/^[0-9]+$/.test(portText) || port > 65535 || host.length === 0) return undefined;
  return { hostname: host, port };
}
