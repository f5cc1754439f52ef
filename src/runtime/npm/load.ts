/**
 * How Warden loads an npm package it names: by full `npm:` specifier with a
 * version range, so that its modules resolve when imported by path, URL or
 * JSR with no import map from the consumer, and only when a feature needs
 * it, never at start-up. Each package has a file of its own in this folder,
 * so an entry point's module graph names only the packages it can use.
 *
 * @module
 */

/**
 * Imports an npm package: by its `npm:` specifier on Deno (and in a bundle
 * Deno made, which inlines it), by its bare name on Bun, which resolves
 * bare names from the project's node_modules but cannot load `npm:`.
 */
export function load<T>(onDeno: () => Promise<T>, bare: string): Promise<T> {
  // Bun's import.meta.require takes a bare name without Deno treating it as an import.
  const bunRequire = (import.meta as { require?: (id: string) => unknown }).require;
  if ("Bun" in globalThis && typeof bunRequire === "function") {
    return Promise.resolve().then(() => bunRequire(bare) as T);
  }
  return onDeno();
}
