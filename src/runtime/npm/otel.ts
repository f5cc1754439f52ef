/**
 * `@opentelemetry/api`, the package Deno's built-in OpenTelemetry registers
 * its providers with.
 *
 * @module
 */

// The files of this folder are the one place the library names npm packages (see load.ts).
// deno-lint-ignore-file no-import-prefix

import type * as OtelApi from "npm:@opentelemetry/api@^1.9.0";

/** The OpenTelemetry API's module type. */
export type OtelApiModule = typeof OtelApi;

/**
 * Loads `@opentelemetry/api`, the package Deno's built-in OpenTelemetry
 * registers its tracer and meter providers with (only when telemetry is on).
 */
export function loadOtelApi(): Promise<OtelApiModule> {
  return import("npm:@opentelemetry/api@^1.9.0");
}
