/**
 * Pieces of generated JavaScript: literals that are safe for any input,
 * JSON paths built only when a violation is reported, and the interface the
 * code generator offers to the files that emit keyword code.
 *
 * Nothing from a schema reaches the generated source except through
 * {@linkcode str} (JSON string literals) and {@linkcode num} (finite
 * numbers); regular expressions, deep-equality constants and large enums
 * are passed in as constants.
 *
 * @module
 */

import type { Schema } from "./_tree.ts";

/**
 * A string as a JavaScript string literal. `JSON.stringify` escapes quotes,
 * backslashes, control characters and lone surrogates; U+2028 and U+2029
 * are escaped too, so the literal is safe in any JavaScript engine.
 */
export function str(text: string): string {
  return JSON.stringify(text).replaceAll("\u2028", "\\u2028").replaceAll("\u2029", "\\u2029");
}

/** A finite number as a parenthesised literal (`(-1)`, `(0.5)`, `(1e+21)`). */
export function num(value: number): string {
  if (!Number.isFinite(value)) {
    throw new RangeError(`Cannot generate a validator: ${value} is not a finite number`);
  }
  return `(${Object.is(value, -0) ? "-0" : String(value)})`;
}

/**
 * A JSON path as a JavaScript expression: the path parameter `p`, then
 * literal steps and steps computed at run time (indexes, dynamic keys).
 * The expression is only evaluated where a violation is pushed.
 */
export class Path {
  readonly #parts: readonly { readonly code: string; readonly literal: boolean }[];

  constructor(parts: readonly { readonly code: string; readonly literal: boolean }[]) {
    this.#parts = parts;
  }

  /** The path held by the variable `name`. */
  static of(name: string): Path {
    return new Path([{ code: name, literal: false }]);
  }

  /** A path known when the code is generated, such as `$`. */
  static literal(text: string): Path {
    return new Path([{ code: text, literal: true }]);
  }

  /** This path followed by fixed text. */
  text(text: string): Path {
    const last = this.#parts.at(-1);
    if (last?.literal) {
      return new Path([...this.#parts.slice(0, -1), { code: last.code + text, literal: true }]);
    }
    return new Path([...this.#parts, { code: text, literal: true }]);
  }

  /** This path followed by the value of an expression (a string or an index). */
  expression(code: string): Path {
    return new Path([...this.#parts, { code, literal: false }]);
  }

  /** The JavaScript expression that builds the path. */
  code(): string {
    return this.#parts.map((part) => part.literal ? str(part.code) : part.code).join(" + ");
  }
}

/** What code for keywords needs from the generator. */
export interface Emitter {
  /** A fresh local name: `prefix` and a number. */
  name(prefix: string): string;
  /** The name of a constant passed into the generated code. */
  constant(value: unknown): string;
  /**
   * Statements that run `fail` (`return false`, `break label`) when the value
   * in variable `value` does not match `schema`. With `call`, a schema object
   * is checked by calling its own function rather than inlined.
   */
  test(schema: Schema, value: string, fail: string, call?: boolean): string;
  /** Statements that run `then` when the value matches `schema`. */
  whenPasses(schema: Schema, value: string, then: string): string;
  /**
   * Statements that add every violation of `schema` by the value to `e`.
   * With `call`, a schema object is reported by its own functions.
   */
  report(schema: Schema, value: string, path: Path, call?: boolean): string;
}

/**
 * A statement that adds one violation to `e`; `message` is an expression.
 * `e` starts as `null` and `add` makes it an array of one: growing an empty
 * array allocates room for 17, which dominates a report of one violation.
 */
export function push(path: Path, keyword: string, message: string): string {
  return `e = add(e, { path: ${path.code()}, keyword: ${str(keyword)}, message: ${message} });`;
}
