/**
 * The code-generating backend: compiles a schema tree once into JavaScript
 * source and builds it with `new Function`, as fast validators do. Each
 * schema becomes straight-line code inlined into its parent; the root, every
 * `$ref` target and every schema object used twice get their own functions
 * (`t3` answers yes or no, `r3` reports), so recursion works and code does
 * not grow with sharing.
 *
 * Like the closures, a validator runs the yes/no code on every call, which
 * allocates nothing, and the report code only after it said no. Reports walk
 * the value once and build a JSON path only for a violation they push.
 *
 * @module
 */

import type { SchemaViolation, Validator } from "./compile.ts";
import { reportArray, testArray } from "./_codegen_arrays.ts";
import { reportObject, testObject } from "./_codegen_objects.ts";
import {
  type Kind,
  KIND_OF_TYPE,
  KIND_TESTS,
  KINDS,
  numberFails,
  numberMessage,
  reportAny,
  stringFails,
  stringMessage,
  testAny,
  typeTest,
} from "./_codegen_rules.ts";
import {
  additionalMessage,
  duplicateMessage,
  FALSE_MESSAGE,
  oneOfMessage,
  propertyNameMessage,
  SCHEMA_MESSAGE,
  typeMessage,
  unevaluatedMessage,
} from "./_messages.ts";
import type { Node } from "./_checks.ts";
import { ClosureBuilder } from "./_closures.ts";
import { type Emitter, Path, push, str } from "./_source.ts";
import { needsAnnotations, type Schema, type SchemaNode } from "./_tree.ts";
import {
  codePointLength,
  findDuplicate,
  hasProperty,
  isMultipleOf,
  jsonEqual,
  propertyStep,
} from "./_values.ts";

/** What the generated code calls, bound to short local names once per validator. */
const HELPERS = {
  eq: jsonEqual,
  cpl: codePointLength,
  mul: isMultipleOf,
  has: hasProperty,
  dup: findDuplicate,
  st: propertyStep,
  om: oneOfMessage,
  dm: duplicateMessage,
  pnm: propertyNameMessage,
  am: additionalMessage,
  um: unevaluatedMessage,
  rc: reportClosure,
};

/**
 * Reports with a closure node: schemas whose `unevaluated*` need run-time
 * annotations are delegated to the closures (`_annotations.ts`), so that
 * both backends share one implementation of annotation collection.
 */
function reportClosure(
  node: Node,
  value: unknown,
  path: string,
  e: SchemaViolation[] | null,
): SchemaViolation[] | null {
  const out = e ?? [];
  node.report(value, path, out);
  return out.length === 0 ? e : out;
}

const PRELUDE = `"use strict"; const { ${Object.keys(HELPERS).join(", ")} } = h; ` +
  "const PLAIN = Object; " +
  "function add(e, violation) { if (e === null) return [violation]; e.push(violation); return e; }";

/** Whether the factory returned a function (the validator it builds). */
function isValidator(value: unknown): value is Validator {
  return typeof value === "function";
}

/** Whether this host refuses to build functions from source (CSP, eval-free sandboxes). */
function evalForbidden(): boolean {
  try {
    new Function("return true");
    return false;
  } catch {
    return true;
  }
}

/**
 * Generates the validator of a compiled schema, or returns `undefined` where
 * `new Function` is forbidden, so that the caller falls back to closures.
 * `valid` is the shared result for valid values.
 *
 * The validator itself is generated too: a wrapper shared by all validators
 * would see a different `t0` at each call and could not inline it.
 */
export function generateValidator(
  root: Schema,
  valid: readonly SchemaViolation[],
): Validator | undefined {
  const generator = new CodeGenerator(root);
  const source = generator.source();
  generator.closures.finish();
  let made: unknown;
  try {
    made = new Function("c", "h", "VALID", source)(generator.constants, HELPERS, valid);
  } catch (error) {
    // Building is the probe: fall back only where every source is refused,
    // so that a mistake in the generated code cannot hide behind closures.
    if (evalForbidden()) return undefined;
    throw error;
  }
  if (!isValidator(made)) throw new TypeError("Cannot generate a validator: unexpected factory");
  return made;
}

/** Builds the source of one validator; use once. */
class CodeGenerator implements Emitter {
  readonly constants: unknown[] = [];
  /** Closures for the schemas that collect annotations at run time. */
  readonly closures: ClosureBuilder = new ClosureBuilder();
  readonly #constantNames = new Map<unknown, string>();
  readonly #root: Schema;
  /** Schemas that get functions of their own, by number: `t3` tests, `r3` reports. */
  readonly #functions = new Map<Schema, number>();
  readonly #emitted = new Set<string>();
  readonly #queue: [Schema, "t" | "r"][] = [];
  /**
   * Schemas that must not be inlined: `$ref` targets and those used more
   * than once (the root only if a `$ref` names it).
   */
  readonly #shared = new Set<Schema>();
  #names = 0;
  /** Whether subschemas are called rather than inlined (see `source`). */
  #calling = false;

  constructor(root: Schema) {
    this.#root = root;
    this.#findShared(root);
  }

  /** The factory's body: helpers, constants, functions; returns the validator. */
  source(): string {
    // The root is inlined into `validate`, where its path is the constant "$".
    const root = this.#root;
    const top = Path.literal("$");
    const valid = this.name("l");
    const inline = typeof root !== "boolean" && !needsAnnotations(root);
    const test = inline
      ? this.#testNode(root, "v", `break ${valid}`)
      : this.test(root, "v", `break ${valid}`);
    const report = inline ? this.#reportNode(root, "v", top) : this.report(root, "v", top);
    let functions = "";
    const maps: string[] = [];
    for (let next = this.#queue.shift(); next !== undefined; next = this.#queue.shift()) {
      const [schema, kind] = next;
      const id = this.#functions.get(schema);
      // Functions of schemas that are not shared serve only objects that are
      // not plain; calling their subschemas keeps code linear in the depth.
      this.#calling = typeof schema !== "boolean" && !this.#shared.has(schema);
      const memo = typeof schema !== "boolean" && schema.memo;
      if (kind === "t") {
        const body = typeof schema === "boolean"
          ? this.test(schema, "v", "return false")
          : this.#testNode(schema, "v", "return false");
        if (memo) {
          // Verdicts remembered by value for the rest of the validation (`SchemaNode.memo`).
          const map = `m${id}`;
          maps.push(map);
          functions += `const ${map} = new Map(); function t${id}(v) { let x = ${map}.get(v); ` +
            `if (x === undefined) { x = u${id}(v); ${map}.set(v, x); } return x; }\n` +
            `function u${id}(v) { ${body} return true; }\n`;
        } else {
          functions += `function t${id}(v) { ${body} return true; }\n`;
        }
      } else {
        const body = typeof schema === "boolean"
          ? this.report(schema, "v", Path.of("p"))
          : this.#reportNode(schema, "v", Path.of("p"));
        // Reported once per value and path for the rest of the validation.
        const map = `n${id}`;
        if (memo) maps.push(map);
        const once = memo
          ? `let s = ${map}.get(v); if (s === undefined) { s = new Set(); ${map}.set(v, s); } ` +
            `if (s.has(p)) return e; s.add(p); `
          : "";
        functions += `${
          memo ? `const ${map} = new Map(); ` : ""
        }function r${id}(v, p, e) { ${once}${body} return e; }\n`;
      }
    }
    const sessions = maps.length > 0 || this.closures.usesSessions;
    const session = sessions ? this.constant(this.closures) : "";
    const constants = this.constants.map((_, i) => `const c${i} = c[${i}];`).join(" ");
    // A check whose report disagreed with its test must not turn a failure into a pass.
    const fallback = push(top, "schema", str(SCHEMA_MESSAGE));
    const body = `${valid}: { ${test} return VALID; } let e = null; ${report} ` +
      `if (e === null) ${fallback} return e;`;
    if (!sessions) {
      return `${PRELUDE}${constants}\n${functions}return function validate(v) { ${body} };`;
    }
    // One session per validation: what was remembered is forgotten after it.
    return `${PRELUDE}${constants}\n${functions}function check(v) { ${body} }\n` +
      `return function validate(v) { ${session}.enter(); try { return check(v); } finally { ` +
      `${maps.map((map) => `${map}.clear();`).join(" ")} ${session}.exit(); } };`;
  }

  name(prefix: string): string {
    return `${prefix}${this.#names++}`;
  }

  constant(value: unknown): string {
    let name = this.#constantNames.get(value);
    if (name === undefined) {
      name = `c${this.constants.length}`;
      this.constants.push(value);
      this.#constantNames.set(value, name);
    }
    return name;
  }

  test(schema: Schema, v: string, fail: string, call = false): string {
    if (schema === true) return "";
    if (schema === false) return `${fail};`;
    if (needsAnnotations(schema)) return `if (!${this.#closure(schema)}.test(${v})) ${fail};`;
    if (call || this.#calling || this.#shared.has(schema)) {
      return `if (!t${this.#function(schema, "t")}(${v})) ${fail};`;
    }
    return this.#testNode(schema, v, fail);
  }

  whenPasses(schema: Schema, v: string, then: string): string {
    if (schema === true) return then;
    if (schema === false) return "";
    if (needsAnnotations(schema)) return `if (${this.#closure(schema)}.test(${v})) { ${then} }`;
    if (this.#calling || this.#shared.has(schema)) {
      return `if (t${this.#function(schema, "t")}(${v})) { ${then} }`;
    }
    const label = this.name("l");
    return `${label}: { ${this.#testNode(schema, v, `break ${label}`)} ${then} }`;
  }

  report(schema: Schema, v: string, path: Path, call = false): string {
    if (schema === true) return "";
    if (schema === false) return push(path, "false", str(FALSE_MESSAGE));
    if (needsAnnotations(schema)) {
      const node = this.#closure(schema);
      return `if (!${node}.test(${v})) e = rc(${node}, ${v}, ${path.code()}, e);`;
    }
    if (call || this.#calling || this.#shared.has(schema)) {
      const id = this.#function(schema, "t");
      this.#function(schema, "r");
      return `if (!t${id}(${v})) e = r${id}(${v}, ${path.code()}, e);`;
    }
    return this.#reportNode(schema, v, path);
  }

  /** The constant holding a schema's closure node. */
  #closure(schema: Schema): string {
    return this.constant(this.closures.node(schema));
  }

  /** The number of a schema's functions, queueing the one of `kind` on first use. */
  #function(schema: Schema, kind: "t" | "r"): number {
    let id = this.#functions.get(schema);
    if (id === undefined) {
      id = this.#functions.size;
      this.#functions.set(schema, id);
    }
    if (!this.#emitted.has(`${kind}${id}`)) {
      this.#emitted.add(`${kind}${id}`);
      this.#queue.push([schema, kind]);
    }
    return id;
  }

  /** Marks `$ref` targets and schemas reached more than once as shared. */
  #findShared(root: Schema): void {
    const seen = new Set<SchemaNode>();
    const visit = (schema: Schema | undefined, viaRef = false): void => {
      // Schemas that collect annotations run as closures: nothing below them is generated.
      if (schema === undefined || typeof schema === "boolean" || needsAnnotations(schema)) return;
      if (viaRef || seen.has(schema) || schema.memo) this.#shared.add(schema);
      if (seen.has(schema)) return;
      seen.add(schema);
      for (const rule of schema.any) {
        switch (rule.kind) {
          case "ref":
            visit(rule.target, true);
            break;
          case "allOf":
          case "anyOf":
          case "oneOf":
            rule.schemas.forEach((sub) => visit(sub));
            break;
          case "not":
            visit(rule.schema);
            break;
          case "if":
            [rule.condition, rule.then, rule.otherwise].forEach((sub) => visit(sub));
            break;
        }
      }
      for (const rule of schema.array) {
        if (rule.kind === "items") [...rule.prefix, rule.rest].forEach((sub) => visit(sub));
        if (rule.kind === "contains") visit(rule.schema);
      }
      for (const rule of schema.object) {
        if (rule.kind === "keys") {
          rule.properties.forEach(([, sub]) => visit(sub));
          rule.patterns.forEach(({ schema: sub }) => visit(sub));
          visit(rule.additional);
          visit(rule.names);
        }
        if (rule.kind === "dependentSchemas") rule.rules.forEach(([, sub]) => visit(sub));
      }
    };
    visit(root);
  }

  #testNode(node: SchemaNode, v: string, fail: string): string {
    const { types } = node;
    let code = types === undefined ? "" : `if (!(${typeTest(types, v)})) ${fail};`;
    for (const rule of node.any) code += testAny(this, rule, v, fail);
    for (const kind of KINDS) {
      const rules = this.#kindCode(node, kind, v, fail);
      if (rules === "") continue;
      const kinds = types?.map((type) => KIND_OF_TYPE[type]);
      // After `type` passed, rules for kinds it excludes cannot apply, and a
      // single kind needs no dispatch.
      if (kinds !== undefined && !kinds.includes(kind)) continue;
      code += kinds?.every((other) => other === kind)
        ? rules
        : `if (${KIND_TESTS[kind](v)}) { ${rules} }`;
    }
    return code;
  }

  #kindCode(node: SchemaNode, kind: Kind, v: string, fail: string): string {
    switch (kind) {
      case "string":
        return node.string.map((rule) => `if (${stringFails(rule, v, this)}) ${fail};`).join("");
      case "number":
        return node.number.map((rule) => `if (${numberFails(rule, v)}) ${fail};`).join("");
      case "array":
        return node.array.map((rule) => testArray(this, rule, v, fail)).join("");
      case "object":
        return node.object.map((rule) => testObject(this, rule, v, fail)).join("");
    }
  }

  #reportNode(node: SchemaNode, v: string, path: Path): string {
    const { types } = node;
    const typeViolation = types === undefined ? "" : push(path, "type", str(typeMessage(types)));
    let code = types === undefined ? "" : `if (!(${typeTest(types, v)})) ${typeViolation}`;
    for (const rule of node.any) code += reportAny(this, rule, v, path);
    // Unlike the yes/no pass, reports check a value's kind even when `type` failed.
    const groups: Record<Kind, string> = {
      string: node.string.map((rule) =>
        `if (${stringFails(rule, v, this)}) ${push(path, rule.kind, str(stringMessage(rule)))}`
      ).join(""),
      number: node.number.map((rule) =>
        `if (${numberFails(rule, v)}) ${
          push(path, rule.kind === "bound" ? rule.keyword : rule.kind, str(numberMessage(rule)))
        }`
      ).join(""),
      array: node.array.map((rule) => reportArray(this, rule, v, path)).join(""),
      object: node.object.map((rule) => reportObject(this, rule, v, path)).join(""),
    };
    const dispatch = (kinds: readonly Kind[]) =>
      kinds.filter((kind) => groups[kind] !== "").map((kind) =>
        `if (${KIND_TESTS[kind](v)}) { ${groups[kind]} }`
      ).join("");
    const [only] = types ?? [];
    const kind = only === undefined ? undefined : KIND_OF_TYPE[only];
    // `type: "string"` (or array, object) tests exactly the kind: one test serves both.
    if (types?.length === 1 && node.any.length === 0 && kind !== undefined && kind !== "number") {
      return `if (${KIND_TESTS[kind](v)}) { ${groups[kind]} } else { ${typeViolation} ${
        dispatch(KINDS.filter((other) => other !== kind))
      } }`;
    }
    return code + dispatch(KINDS);
  }
}
