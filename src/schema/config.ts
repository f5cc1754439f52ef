/**
 * Checking a configuration object once, when its factory runs, against a
 * JSON Schema validated by this library's own compiler: a bad option stops
 * start-up with an error that names its place, e.g. `Invalid rate limits:
 * rules[0].capacity must be > 0, got 0`. Each schema is compiled the first time it
 * is used, so a factory nobody calls costs nothing. Checks a schema cannot
 * express (glob syntax, regular expressions, one value against another)
 * stay with the factory. Internal: not part of the `schema` entry point.
 *
 * @module
 */

import { compileSchema, type SchemaViolation, type Validator } from "./compile.ts";
import type { JsonSchema, JsonSchemaObject } from "./types.ts";
import { preview, propertyStep } from "./_values.ts";

/** One step of a JSON path: a property name or an array index. */
type Step = string | number;

// Keyed by the schema literal, which lives at module level, so each compiles once.
const validators = new WeakMap<JsonSchemaObject, Validator>();

/** Keywords about one value (not a list's length): their messages end with the value. */
const VALUE_KEYWORDS: ReadonlySet<string> = new Set([
  "enum",
  "const",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
]);
/** Keywords that refuse a value of the right type but out of range: a RangeError. */
const RANGE_KEYWORDS: ReadonlySet<string> = new Set([...VALUE_KEYWORDS, "minItems", "maxItems"]);

/**
 * Checks `value` against `schema`, compiling the schema on first use. The
 * first violation is thrown: a `RangeError` for a value out of range
 * (`enum`, bounds, list lengths), a `TypeError` for anything else. The
 * message is `what`, a colon, then the place and the problem:
 * `tools.deny[1] must be string, got number`, or for a key the schema does
 * not list, `unknown key "deney" at tools, expected one of allow, deny`.
 *
 * @param schema A schema literal kept at module level (it is the cache key).
 * @param value The configuration as given.
 * @param what Opens the message, e.g. `Invalid access policy`; empty for none.
 * @param at Where `value` sits in a larger configuration (`audit`), if it does.
 * @throws {TypeError} If the value has the wrong shape.
 * @throws {RangeError} If a value is out of range.
 */
export function checkConfig(
  schema: JsonSchemaObject,
  value: unknown,
  what: string,
  at = "",
): void {
  let validate = validators.get(schema);
  if (validate === undefined) {
    // Closures: a configuration is checked a few times per process, so generating code would not pay.
    validate = compileSchema(schema, {
      label: `Cannot compile the schema for ${what || "a configuration"}`,
      codegen: false,
    });
    validators.set(schema, validate);
  }
  const violation = validate(value)[0];
  if (violation === undefined) return;
  const detail = describe(schema, value, violation, at);
  const message = what === "" ? detail : `${what}: ${detail}`;
  throw RANGE_KEYWORDS.has(violation.keyword) ? new RangeError(message) : new TypeError(message);
}

/**
 * Checks that `value` is plain data, as JSON would give it: objects made by
 * `{}` (or with a null prototype), arrays without holes, no cycles. A schema
 * sees a `Map` or a class instance as an object with no keys, which would
 * let it through as empty rules.
 *
 * @param value The configuration as given.
 * @param what Opens the message, e.g. `Invalid access policy`.
 * @throws {TypeError} Naming the first place that is not plain data.
 */
export function checkPlainData(value: unknown, what: string): void {
  const problem = plainDataProblem(value, "$", []);
  if (problem !== undefined) throw new TypeError(`${what}: ${problem}`);
}

/**
 * A field of a checked configuration, read from the object itself only: the
 * checks saw own properties, so a property on a (polluted) prototype must
 * not pass for a rule they never checked.
 */
export function ownField<T extends object, K extends keyof T>(object: T, key: K): T[K] | undefined {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

function plainDataProblem(value: unknown, path: string, ancestors: object[]): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  if (ancestors.includes(value)) return `${place(path, "")} contains itself`;
  let problem: string | undefined;
  ancestors.push(value);
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length && problem === undefined; index++) {
      const item = `${path}[${index}]`;
      problem = index in value
        ? plainDataProblem(value[index], item, ancestors)
        : `${place(item, "")} is missing (a hole in the list)`;
    }
  } else if (!isPlainObject(value)) {
    problem = `${place(path, "")} must be a plain object, got ${typeName(value)}`;
  } else {
    for (const [key, item] of Object.entries(value)) {
      problem = plainDataProblem(item, `${path}${propertyStep(key)}`, ancestors);
      if (problem !== undefined) break;
    }
  }
  ancestors.pop();
  return problem;
}

function isPlainObject(value: object): boolean {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** The place and the problem, worded for a person. */
function describe(
  schema: JsonSchemaObject,
  value: unknown,
  violation: SchemaViolation,
  at: string,
): string {
  const steps = stepsOf(violation.path);
  const where = place(violation.path, at);
  const found = valueAt(value, steps);
  if (violation.keyword === "type") return `${where} ${violation.message}, got ${typeName(found)}`;
  if (VALUE_KEYWORDS.has(violation.keyword)) {
    return `${where} ${violation.message}, got ${preview(found)}`;
  }
  if (violation.keyword === "additionalProperties") {
    const known = knownKeys(schemaAt(schema, steps));
    const unknown = typeof found === "object" && found !== null
      ? Object.keys(found).find((key) => !known.includes(key))
      : undefined;
    if (unknown !== undefined) {
      const expected = known.length === 0 ? "" : `, expected one of ${known.join(", ")}`;
      return `unknown key ${JSON.stringify(unknown)} at ${where}${expected}`;
    }
  }
  return `${where} ${violation.message}`;
}

/** A violation's JSON path as a person reads it: `tools.deny[1]`, or `the top level`. */
function place(path: string, at: string): string {
  const tail = path.startsWith("$.") ? path.slice(2) : path.slice(1);
  if (at === "") return tail === "" ? "the top level" : tail;
  return tail === "" || tail.startsWith("[") ? `${at}${tail}` : `${at}.${tail}`;
}

// The steps propertyStep writes: `.name`, `["any key"]`, and `[3]` for an index.
const STEP = /\.([A-Za-z_$][A-Za-z0-9_$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/y;

function stepsOf(path: string): Step[] {
  const steps: Step[] = [];
  STEP.lastIndex = 1;
  for (let match = STEP.exec(path); match !== null; match = STEP.exec(path)) {
    const [, name, index, quoted] = match;
    if (name !== undefined) steps.push(name);
    else if (index !== undefined) steps.push(Number(index));
    else if (quoted !== undefined) steps.push(String(JSON.parse(quoted)));
  }
  return steps;
}

function valueAt(value: unknown, steps: readonly Step[]): unknown {
  let node = value;
  for (const step of steps) {
    if (typeof node !== "object" || node === null) return undefined;
    node = Object.getOwnPropertyDescriptor(node, step)?.value;
  }
  return node;
}

/** The subschema for a place, following `properties`, `additionalProperties` and `items`. */
function schemaAt(schema: JsonSchema, steps: readonly Step[]): JsonSchema | undefined {
  let node: JsonSchema | undefined = schema;
  for (const step of steps) {
    if (typeof node !== "object") return undefined;
    if (typeof step === "number") node = node.items;
    else if (node.properties !== undefined && Object.hasOwn(node.properties, step)) {
      node = node.properties[step];
    } else node = node.additionalProperties;
  }
  return node;
}

function knownKeys(schema: JsonSchema | undefined): string[] {
  return typeof schema === "object" && schema.properties !== undefined
    ? Object.keys(schema.properties)
    : [];
}

/** `null`, `array`, `NaN`, a class name such as `Map`, or what `typeof` says. */
function typeName(value: unknown): string {
  if (value === null) return "null";
  // JSON has no NaN or Infinity, so the schema calls them no number: say which they are.
  if (typeof value === "number") return Number.isFinite(value) ? "number" : String(value);
  if (Array.isArray(value)) return "array";
  if (typeof value !== "object") return typeof value;
  const constructor: unknown = Object.getPrototypeOf(value)?.constructor;
  return typeof constructor === "function" && constructor.name !== "" ? constructor.name : "object";
}
