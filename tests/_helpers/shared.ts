/**
 * Material from outside the repository, such as the official JSON Schema
 * Test Suite, found through one environment variable: `WARDEN_SHARED`, the
 * path of the shared folder (`.ci/run` sets it). A user's clone has no such
 * folder, so when the variable is unset the tests that need it are ignored
 * and one note per kind of material says so, once per run.
 *
 * @module
 */

/** The environment variable that names the shared folder. */
export const SHARED_ENV = "WARDEN_SHARED";

/**
 * What has been noted as skipped in this run, one item a line. `deno test`
 * runs each test file in a worker of its own, so a module variable would
 * note once per file; the environment belongs to the whole process.
 */
const NOTED_ENV = "WARDEN_SHARED_NOTED";

/**
 * The path of `relative` inside the shared folder, or `undefined` when
 * `WARDEN_SHARED` is unset; then prints, once per run, that the tests
 * described by `skipped` are skipped and how to run them.
 *
 * @param relative A path inside the shared folder (`json-schema-test-suite`).
 * @param skipped What is skipped without it (`JSON Schema suite tests`).
 * @returns The path to read, or `undefined` to skip.
 * @throws {Error} When `WARDEN_SHARED` is set but holds no `relative`: a
 * gap there must fail, never pass as a skip.
 */
export function sharedPath(relative: string, skipped: string): string | undefined {
  const shared = Deno.env.get(SHARED_ENV);
  if (shared === undefined || shared === "") {
    noteSkipped(skipped);
    return undefined;
  }
  const path = `${shared.replace(/\/+$/, "")}/${relative}`;
  try {
    Deno.statSync(path);
  } catch (error) {
    throw new Error(`Cannot find ${relative} in ${SHARED_ENV}: no ${path}`, { cause: error });
  }
  return path;
}

/** Prints that `skipped` is skipped, unless this run has said so already. */
function noteSkipped(skipped: string): void {
  const noted = (Deno.env.get(NOTED_ENV) ?? "").split("\n");
  if (noted.includes(skipped)) return;
  Deno.env.set(NOTED_ENV, [...noted, skipped].join("\n"));
  console.warn(`note: ${skipped} skipped; set ${SHARED_ENV}=../shared to run them`);
}
