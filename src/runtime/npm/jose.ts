/**
 * `jose`, for verifying OAuth access tokens (JWT, JWKS) and DPoP proofs.
 *
 * @module
 */

// The files of this folder are the one place the library names npm packages (see load.ts).
// deno-lint-ignore-file no-import-prefix

import type * as Jose from "npm:jose@^6.1.3";
import { load } from "./load.ts";

/** The `jose` module's type. */
export type JoseModule = typeof Jose;

/** Loads `jose` (only when a server verifies access tokens). */
export function loadJose(): Promise<JoseModule> {
  return load(() => import("npm:jose@^6.1.3"), "jose");
}
