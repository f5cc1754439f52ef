/**
 * Warden's JSON Schema 2020-12 support on its own: compiling a schema
 * literal into a validator, and the types that infer a value's type from it.
 *
 * @example Validating a value
 * ```ts
 * import { compileSchema } from "@warden/mcp/schema";
 * const validate = compileSchema({ type: "object", required: ["id"] });
 * console.assert(validate({}).length === 1);
 * ```
 *
 * @module
 */

export {
  type CompileOptions,
  compileSchema,
  type SchemaViolation,
  type Validator,
} from "./src/schema/compile.ts";
export type { Infer, JsonSchema, JsonSchemaObject, JsonValue } from "./src/schema/types.ts";
