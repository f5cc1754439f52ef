/**
 * Reads one schema object's keyword values for the compiler, refusing any
 * value of the wrong shape, so that nothing is silently left unvalidated.
 *
 * @module
 */

import type { JsonTypeName } from "./types.ts";
import { pointerToken } from "./_registry.ts";
import type { Schema, SchemaNode } from "./_tree.ts";
import { isJsonObject, type JsonObject } from "./_values.ts";

/** What a reader needs from the compiler. */
export interface ReaderHost {
  /** Compiles a subschema at `location`; `sameValue` marks an applicator (for loop detection). */
  compile(schema: unknown, location: string, owner: SchemaNode, sameValue: boolean): Schema;
  /** Throws the compiler's `TypeError`; `hint` follows the location. */
  fail(location: string, detail: string, hint?: string): never;
}

const TYPE_NAMES: ReadonlySet<string> = new Set<JsonTypeName>(
  ["string", "number", "integer", "boolean", "null", "array", "object"],
);

function isTypeName(value: unknown): value is JsonTypeName {
  return typeof value === "string" && TYPE_NAMES.has(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

/** Typed, validated access to the keywords of one schema object. */
export class SchemaReader {
  readonly #host: ReaderHost;
  /** The schema object read. */
  readonly schema: JsonObject;
  /** Where it is, as a JSON pointer fragment (`#/properties/a`). */
  readonly location: string;
  /** The node it compiles into. */
  readonly node: SchemaNode;

  constructor(host: ReaderHost, schema: JsonObject, location: string, node: SchemaNode) {
    this.#host = host;
    this.schema = schema;
    this.location = location;
    this.node = node;
  }

  /** Whether the keyword is present (an `undefined` value counts as absent). */
  has(keyword: string): boolean {
    return this.schema[keyword] !== undefined;
  }

  /** The location of a keyword's value. */
  at(keyword: string, ...keys: string[]): string {
    return [this.location, keyword, ...keys].map((key, i) => i === 0 ? key : pointerToken(key))
      .join("/");
  }

  /** Throws for a keyword whose value is malformed. */
  refuse(keyword: string, expected: string): never {
    return this.#host.fail(this.location, `'${keyword}' must be ${expected}`);
  }

  /** A finite number. */
  number(keyword: string): number | undefined {
    const value = this.schema[keyword];
    if (value === undefined) return undefined;
    if (typeof value !== "number" || !Number.isFinite(value)) this.refuse(keyword, "a number");
    return value;
  }

  /** A non-negative integer (2.0 included). */
  count(keyword: string): number | undefined {
    const value = this.schema[keyword];
    if (value === undefined) return undefined;
    if (!Number.isInteger(value) || typeof value !== "number" || value < 0) {
      this.refuse(keyword, "a non-negative integer");
    }
    return value;
  }

  /** A boolean. */
  boolean(keyword: string): boolean | undefined {
    const value = this.schema[keyword];
    if (value === undefined) return undefined;
    if (typeof value !== "boolean") this.refuse(keyword, "a boolean");
    return value;
  }

  /** A string. */
  string(keyword: string): string | undefined {
    const value = this.schema[keyword];
    if (value === undefined) return undefined;
    if (typeof value !== "string") this.refuse(keyword, "a string");
    return value;
  }

  /** An array of strings. */
  strings(keyword: string): string[] | undefined {
    const value = this.schema[keyword];
    if (value === undefined) return undefined;
    if (!isStringArray(value)) this.refuse(keyword, "an array of strings");
    return value;
  }

  /** Any array. */
  array(keyword: string): unknown[] | undefined {
    const value = this.schema[keyword];
    if (value === undefined) return undefined;
    if (!Array.isArray(value)) this.refuse(keyword, "an array");
    return value;
  }

  /** `type`: one name or a non-empty list of names. */
  types(): JsonTypeName[] | undefined {
    const value = this.schema.type;
    if (value === undefined) return undefined;
    const names: unknown[] = Array.isArray(value) ? value : [value];
    const valid = names.filter(isTypeName);
    if (names.length === 0 || valid.length !== names.length) {
      this.refuse("type", `${[...TYPE_NAMES].join(", ")}, or a non-empty array of them`);
    }
    return valid;
  }

  /** A regular expression, compiled with the `u` flag. */
  regex(keyword: string, source: string, location = this.location): RegExp {
    try {
      return new RegExp(source, "u");
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return this.#host.fail(
        location,
        `'${keyword}' must be a valid regular expression (${reason})`,
      );
    }
  }

  /** A subschema. */
  subschema(keyword: string, sameValue = false): Schema | undefined {
    const value = this.schema[keyword];
    if (value === undefined) return undefined;
    return this.#host.compile(value, this.at(keyword), this.node, sameValue);
  }

  /** A non-empty array of subschemas. */
  subschemas(keyword: string, sameValue = false): Schema[] | undefined {
    const value = this.schema[keyword];
    if (value === undefined) return undefined;
    if (!Array.isArray(value) || value.length === 0) {
      this.refuse(keyword, "a non-empty array of schemas");
    }
    return value.map((item, i) =>
      this.#host.compile(item, this.at(keyword, String(i)), this.node, sameValue)
    );
  }

  /** An object whose values are subschemas, as entries. */
  subschemaMap(keyword: string, sameValue = false): [string, Schema][] | undefined {
    const value = this.schema[keyword];
    if (value === undefined) return undefined;
    if (!isJsonObject(value)) this.refuse(keyword, "an object of schemas");
    return Object.keys(value).map((key) => [
      key,
      this.#host.compile(value[key], this.at(keyword, key), this.node, sameValue),
    ]);
  }

  /** An object whose values are arrays of strings, as entries. */
  stringListMap(keyword: string): [string, string[]][] | undefined {
    const value = this.schema[keyword];
    if (value === undefined) return undefined;
    if (!isJsonObject(value)) this.refuse(keyword, "an object of string arrays");
    return Object.keys(value).map((key) => {
      const list = value[key];
      return [key, isStringArray(list) ? list : this.refuse(keyword, "an object of string arrays")];
    });
  }
}
