/**
 * Generated code for the keywords that apply to any value (`type`, `enum`,
 * `const`, `$ref`, the applicators) and for numbers and strings, mirroring
 * `_keywords.ts`: the same verdicts, and the same violations in the same
 * order.
 *
 * @module
 */

import {
  ANY_OF_MESSAGE,
  boundMessage,
  constMessage,
  enumMessage,
  fewerMessage,
  formatMessage,
  moreMessage,
  multipleOfMessage,
  NOT_MESSAGE,
  patternMessage,
} from "./_messages.ts";
import { type Emitter, num, type Path, push, str } from "./_source.ts";
import type { AnyRule, NumberRule, Schema, StringRule } from "./_tree.ts";
import type { JsonTypeName } from "./types.ts";

/** `type`, by name: expressions on the variable `v`. */
const TYPE_TESTS: Readonly<Record<JsonTypeName, (v: string) => string>> = {
  string: (v) => `typeof ${v} === "string"`,
  // NaN and Infinity are not JSON numbers; 1.0 is an integer.
  number: (v) => `Number.isFinite(${v})`,
  integer: (v) => `Number.isInteger(${v})`,
  boolean: (v) => `typeof ${v} === "boolean"`,
  null: (v) => `${v} === null`,
  array: (v) => `Array.isArray(${v})`,
  object: (v) => `(typeof ${v} === "object" && ${v} !== null && !Array.isArray(${v}))`,
};

/** The kinds of value the typed rule groups apply to, in the order reports visit them. */
export const KINDS = ["string", "number", "array", "object"] as const;
/** A kind of value that has rules of its own. */
export type Kind = typeof KINDS[number];

/** Which kind a value is: the dispatch before typed rules. */
export const KIND_TESTS: Readonly<Record<Kind, (v: string) => string>> = {
  string: (v) => `typeof ${v} === "string"`,
  number: (v) => `typeof ${v} === "number"`,
  array: (v) => `Array.isArray(${v})`,
  object: TYPE_TESTS.object,
};

/** The kind each type name implies, if any. */
export const KIND_OF_TYPE: Readonly<Record<JsonTypeName, Kind | undefined>> = {
  string: "string",
  number: "number",
  integer: "number",
  array: "array",
  object: "object",
  boolean: undefined,
  null: undefined,
};

const BOUND_OPERATORS = {
  minimum: ">=",
  maximum: "<=",
  exclusiveMinimum: ">",
  exclusiveMaximum: "<",
} as const;

/** Statements that run `fail` when the value in variable `v` breaks `rule`. */
export function testAny(emit: Emitter, rule: AnyRule, v: string, fail: string): string {
  switch (rule.kind) {
    case "const":
    case "enum":
      return `if (!(${equals(emit, rule, v)})) ${fail};`;
    case "ref":
      return emit.test(resolved(rule.target), v, fail);
    case "allOf":
      return rule.schemas.map((sub) => emit.test(sub, v, fail)).join("");
    case "anyOf": {
      const label = emit.name("l");
      const branches = rule.schemas.map((sub) => emit.whenPasses(sub, v, `break ${label};`));
      return `${label}: { ${branches.join("")} ${fail}; }`;
    }
    case "oneOf": {
      const count = emit.name("n");
      const branches = rule.schemas.map((sub) =>
        emit.whenPasses(sub, v, `if (++${count} > 1) ${fail};`)
      );
      return `let ${count} = 0; ${branches.join("")} if (${count} !== 1) ${fail};`;
    }
    case "not":
      return emit.whenPasses(rule.schema, v, `${fail};`);
    case "if": {
      // Without `then` and `else`, `if` only annotates.
      if (rule.then === undefined && rule.otherwise === undefined) return "";
      const label = emit.name("l");
      const then = rule.then === undefined ? "" : emit.test(rule.then, v, fail);
      const otherwise = rule.otherwise === undefined ? "" : emit.test(rule.otherwise, v, fail);
      return `${label}: { ${
        emit.whenPasses(rule.condition, v, `${then} break ${label};`)
      } ${otherwise} }`;
    }
  }
}

/** Statements that add the violations of `rule` by the value in variable `v` to `e`. */
export function reportAny(emit: Emitter, rule: AnyRule, v: string, path: Path): string {
  switch (rule.kind) {
    case "const":
      return `if (!(${equals(emit, rule, v)})) ${
        push(path, "const", str(constMessage(rule.value)))
      }`;
    case "enum":
      return `if (!(${equals(emit, rule, v)})) ${
        push(path, "enum", str(enumMessage(rule.members)))
      }`;
    case "ref":
      return emit.report(resolved(rule.target), v, path);
    case "allOf":
      return rule.schemas.map((sub) => emit.report(sub, v, path)).join("");
    case "anyOf": {
      const label = emit.name("l");
      const branches = rule.schemas.map((sub) => emit.whenPasses(sub, v, `break ${label};`));
      return `${label}: { ${branches.join("")} ${push(path, "anyOf", str(ANY_OF_MESSAGE))} }`;
    }
    case "oneOf": {
      const count = emit.name("n");
      const branches = rule.schemas.map((sub) => emit.whenPasses(sub, v, `${count}++;`));
      return `let ${count} = 0; ${branches.join("")} if (${count} !== 1) ${
        push(path, "oneOf", `om(${count})`)
      }`;
    }
    case "not":
      return emit.whenPasses(rule.schema, v, push(path, "not", str(NOT_MESSAGE)));
    case "if": {
      if (rule.then === undefined && rule.otherwise === undefined) return "";
      const label = emit.name("l");
      const then = rule.then === undefined ? "" : emit.report(rule.then, v, path);
      const otherwise = rule.otherwise === undefined ? "" : emit.report(rule.otherwise, v, path);
      return `${label}: { ${
        emit.whenPasses(rule.condition, v, `${then} break ${label};`)
      } ${otherwise} }`;
    }
  }
}

/** An expression: whether the value equals the `const` or one `enum` member. */
/** One Set per `enum`, so that its yes/no code and its report share one constant. */
const memberSets = new WeakMap<object, ReadonlySet<unknown>>();

function equals(
  emit: Emitter,
  rule: Extract<AnyRule, { kind: "const" | "enum" }>,
  v: string,
): string {
  if (rule.kind === "const") {
    const { value } = rule;
    if (typeof value === "object" && value !== null) return `eq(${emit.constant(value)}, ${v})`;
    return `${v} === ${primitive(value) ?? emit.constant(value)}`;
  }
  const primitives = rule.members.filter((member) => typeof member !== "object" || member === null);
  const literals = primitives.map(primitive);
  const terms: string[] = [];
  // `enum` compares primitives as a Set does: NaN matches NaN, so only literals are inlined.
  if (literals.length <= 8 && literals.every((literal) => literal !== undefined)) {
    terms.push(...new Set(literals.map((literal) => `${v} === ${literal}`)));
  } else {
    let members = memberSets.get(rule);
    if (members === undefined) {
      members = new Set(primitives);
      memberSets.set(rule, members);
    }
    terms.push(`${emit.constant(members)}.has(${v})`);
  }
  for (const member of rule.members) {
    if (typeof member === "object" && member !== null) {
      terms.push(`eq(${emit.constant(member)}, ${v})`);
    }
  }
  return terms.length === 0 ? "false" : terms.join(" || ");
}

function resolved(target: Schema | undefined): Schema {
  if (target === undefined) throw new Error("Cannot generate a validator: unresolved $ref");
  return target;
}

/** An expression: whether the value has one of the types. */
export function typeTest(types: readonly JsonTypeName[], v: string): string {
  return types.map((type) => TYPE_TESTS[type](v)).join(" || ");
}

/** A literal for a primitive that `===` compares exactly, or `undefined`. */
function primitive(value: unknown): string | undefined {
  if (typeof value === "string") return str(value);
  if (typeof value === "boolean" || value === null) return String(value);
  if (typeof value === "number" && Number.isFinite(value)) return num(value);
  return undefined;
}

/** An expression: whether a number breaks the rule (NaN breaks every bound). */
export function numberFails(rule: NumberRule, v: string): string {
  if (rule.kind === "multipleOf") return `!mul(${v}, ${num(rule.divisor)})`;
  return `!(${v} ${BOUND_OPERATORS[rule.keyword]} ${num(rule.limit)})`;
}

/** The message of a number rule. */
export function numberMessage(rule: NumberRule): string {
  return rule.kind === "multipleOf"
    ? multipleOfMessage(rule.divisor)
    : boundMessage(rule.keyword, rule.limit);
}

/**
 * An expression: whether a string breaks the rule. Lengths count code
 * points; a string has between half and all of its UTF-16 units' count.
 */
export function stringFails(rule: StringRule, v: string, emit: Emitter): string {
  switch (rule.kind) {
    case "minLength":
      return `(${v}.length < ${num(2 * rule.limit - 1)} && cpl(${v}) < ${num(rule.limit)})`;
    case "maxLength":
      return `(${v}.length > ${num(rule.limit)} && cpl(${v}) > ${num(rule.limit)})`;
    case "pattern": {
      const fails = `!${emit.constant(rule.regex)}.test(${v})`;
      if (rule.maxLength === undefined) return fails;
      // A string over maxLength already fails that: it is never matched.
      const limit = num(rule.maxLength);
      return `((${v}.length <= ${limit} || cpl(${v}) <= ${limit}) && ${fails})`;
    }
    case "format":
      return `!${emit.constant(rule.check)}(${v})`;
  }
}

/** The message of a string rule. */
export function stringMessage(rule: StringRule): string {
  switch (rule.kind) {
    case "minLength":
      return fewerMessage(rule.limit, "character");
    case "maxLength":
      return moreMessage(rule.limit, "character");
    case "pattern":
      return patternMessage(rule.source);
    case "format":
      return formatMessage(rule.name);
  }
}
