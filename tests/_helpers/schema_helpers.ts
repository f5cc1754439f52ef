/**
 * What the schema test files share: the two validator backends every case
 * runs on, a schema parsed from JSON text, and an object that counts reads.
 */

import { type CompileOptions, loadGenerator } from "../../src/schema/compile.ts";
import type { JsonSchema } from "../../src/schema/types.ts";

// The code generator loads on a validator's first call; the generated backend is tested once it has.
await loadGenerator();

/** The validator backends: generated code (the default) and closures. */
export const BACKENDS: readonly (readonly [string, CompileOptions])[] = [
  ["generated code", {}],
  ["closures", { codegen: false }],
];

/** A schema from JSON text, as a server would read it from a file. */
export function parsed(json: string): JsonSchema {
  return JSON.parse(json);
}

/** An object whose property `key` counts how often a validator reads it. */
export function counting(
  key: string,
  value: unknown,
): { object: Record<string, unknown>; reads(): number } {
  let reads = 0;
  const object: Record<string, unknown> = {};
  Object.defineProperty(object, key, {
    enumerable: true,
    get() {
      reads++;
      return value;
    },
  });
  return { object, reads: () => reads };
}
