/**
 * RFC 6570 URI templates for resource templates: compile once, then expand
 * values into URIs and match URIs back into values.
 *
 * Levels 1 to 3 are supported: simple `{x}`, reserved `{+x}`, fragment `{#x}`,
 * label `{.x}`, path `{/x}`, path-parameter `{;x}`, query `{?x}` and query
 * continuation `{&x}` expressions, each with one or more variables. Level 4
 * modifiers (`{x:3}`, `{x*}`) are refused when the template is compiled.
 *
 * @module
 */

import { type MatchItem, matchUri } from "./uri_template_match.ts";

/**
 * A compiled URI template.
 *
 * `match` treats every variable as required and non-empty: a URI matches
 * when the literal text is there exactly (case-sensitive, compared as
 * written, without decoding) and each variable covers one or more characters
 * that may appear in its value. What may appear depends on the operator:
 *
 * | expression | a value never contains |
 * | --- | --- |
 * | `{x}` | `/` `?` `#` |
 * | `{+x}` | `?` `#` |
 * | `{#x}` | `#` |
 * | `{.x}` `{/x}` | `/` `?` `#` |
 * | `{;x}` | `/` `?` `#` `;` |
 * | `{?x}` `{&x}` | `#` `&` |
 *
 * In an expression with several variables the separator (`,` for simple,
 * reserved and fragment expressions, `.` for labels) ends a value too, and
 * named expressions must list every variable, in the template's order, as
 * `name=value`. Where a split is still ambiguous (`{+a}/{+b}`, `{a}{b}`),
 * earlier variables take as much as they can. Values are percent-decoded; a
 * URI whose value is badly encoded or not UTF-8 does not match. Matching
 * takes time proportional to the URI's length times the template's parts,
 * whatever the input, and never throws.
 *
 * `expand` percent-encodes each value as UTF-8 and skips undefined values,
 * following the RFC, with one exception so that `match` reads back what
 * `expand` wrote: `%` is always encoded (values are taken as plain text,
 * never as already encoded), and so is any character that would end the
 * value on match (for example `?` and `#` in `{+x}`, `,` in `{+x,y}`).
 *
 * @example Matching and expanding
 * ```ts
 * import { compileUriTemplate } from "./uri_template.ts";
 * const files = compileUriTemplate("files://{+path}");
 * console.assert(files.match("files://docs/read me.md")?.path === "docs/read me.md");
 * console.assert(files.match("files://") === undefined);
 * console.assert(files.expand({ path: "docs/read me.md" }) === "files://docs/read%20me.md");
 * ```
 */
export interface UriTemplate {
  /** The template as given. */
  readonly template: string;
  /** The variable names, in the order they appear. */
  readonly variables: readonly string[];
  /**
   * Extracts the variables from a URI.
   *
   * @param uri The URI to match; any other value never matches.
   * @returns The decoded value of every variable, or `undefined` when the URI
   * does not match.
   */
  match(uri: string): Record<string, string> | undefined;
  /**
   * Builds a URI from values.
   *
   * @param values The value of each variable; missing and `undefined` ones are skipped.
   * @returns The expanded URI.
   * @throws {TypeError} If a value is neither a string nor `undefined`, or is
   * not well-formed Unicode (it holds a lone surrogate).
   */
  expand(values: Readonly<Record<string, string | undefined>>): string;
}

/** How one operator expands and where its values end on match (RFC 6570 §3.2.1). */
interface Operator {
  readonly first: string;
  readonly separator: string;
  readonly named: boolean;
  /** What follows the name of an empty named value. */
  readonly ifEmpty: string;
  /** Whether reserved characters may stay unencoded. */
  readonly reserved: boolean;
  /** Characters that end a value on match. */
  readonly stops: string;
}

const SIMPLE: Operator = {
  first: "",
  separator: ",",
  named: false,
  ifEmpty: "",
  reserved: false,
  stops: "/?#",
};
const OPERATORS: ReadonlyMap<string, Operator> = new Map([
  ["+", { first: "", separator: ",", named: false, ifEmpty: "", reserved: true, stops: "?#" }],
  ["#", { first: "#", separator: ",", named: false, ifEmpty: "", reserved: true, stops: "#" }],
  [".", { first: ".", separator: ".", named: false, ifEmpty: "", reserved: false, stops: "/?#" }],
  ["/", { first: "/", separator: "/", named: false, ifEmpty: "", reserved: false, stops: "/?#" }],
  [";", { first: ";", separator: ";", named: true, ifEmpty: "", reserved: false, stops: "/?#;" }],
  ["?", { first: "?", separator: "&", named: true, ifEmpty: "=", reserved: false, stops: "#&" }],
  ["&", { first: "&", separator: "&", named: true, ifEmpty: "=", reserved: false, stops: "#&" }],
]);
/** Operators the RFC sets aside for future extensions. */
const RESERVED_OPERATORS = "=,!@|";
const UNRESERVED = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~";
const RESERVED = ":/?#[]@!$&'()*+,;=";
const VARCHAR = /^[A-Za-z0-9_]$/;
const HEX_DIGIT = /^[0-9A-Fa-f]$/;

/** One `{...}` of a template. */
interface Expression {
  readonly operator: Operator;
  readonly names: readonly string[];
  /** Characters that end a value on match. */
  readonly stops: string;
  /** Characters written as they are on expand. */
  readonly allowed: string;
}

/**
 * Compiles an RFC 6570 URI template (levels 1 to 3) for matching and
 * expanding; see {@linkcode UriTemplate} for the rules.
 *
 * @param template The template, e.g. `orders://{id}` or `files://{+path}`.
 * @returns The compiled template.
 * @throws {TypeError} If `template` is not a string, or is not a valid
 * template of levels 1 to 3: unbalanced braces, an empty or invalid variable
 * name, a reserved operator, a level 4 modifier, or a variable named twice.
 * The message gives the index of the offending character.
 *
 * @example Reading variables out of a URI
 * ```ts
 * import { compileUriTemplate } from "./uri_template.ts";
 * const repos = compileUriTemplate("users/{user}/repos/{repo}");
 * const found = repos.match("users/ada/repos/engine%201");
 * console.assert(found?.user === "ada" && found.repo === "engine 1");
 * console.assert(repos.match("users/ada/repos/engine/issues") === undefined);
 * console.assert(repos.expand({ user: "ada", repo: "engine 1" }) === "users/ada/repos/engine%201");
 * ```
 */
export function compileUriTemplate(template: string): UriTemplate {
  if (typeof template !== "string") {
    throw new TypeError(`Invalid URI template: expected a string, got ${typeof template}`);
  }
  const parts = parseTemplate(template);
  const items = matchItems(parts);
  const variables = Object.freeze(
    parts.flatMap((part) => typeof part === "string" ? [] : part.names),
  );
  return Object.freeze({
    template,
    variables,
    match: (uri: string) => typeof uri === "string" ? matchUri(items, uri) : undefined,
    expand: (values: Readonly<Record<string, string | undefined>>) =>
      expandParts(template, parts, values),
  });
}

function parseTemplate(template: string): (string | Expression)[] {
  const fail = (reason: string, index: number): never => {
    throw new TypeError(`Invalid URI template '${template}': ${reason} at ${index}`);
  };
  const parts: (string | Expression)[] = [];
  const seen = new Set<string>();
  let literalStart = 0;
  for (let index = 0; index < template.length; index++) {
    const char = template[index];
    if (char === "}") fail("unmatched '}'", index);
    if (char !== "{") continue;
    const close = template.indexOf("}", index + 1);
    if (close === -1) fail("unclosed '{'", index);
    const nested = template.indexOf("{", index + 1);
    if (nested !== -1 && nested < close) fail("unexpected '{'", nested);
    if (index > literalStart) parts.push(template.slice(literalStart, index));
    parts.push(parseExpression(template, index + 1, close, seen, fail));
    index = close;
    literalStart = close + 1;
  }
  if (literalStart < template.length) parts.push(template.slice(literalStart));
  return parts;
}

function parseExpression(
  template: string,
  start: number,
  end: number,
  seen: Set<string>,
  fail: (reason: string, index: number) => never,
): Expression {
  const first = template[start] ?? "";
  let position = start;
  if (first !== "" && RESERVED_OPERATORS.includes(first)) {
    fail(`unsupported operator '${first}'`, start);
  }
  const operator = OPERATORS.get(first) ?? SIMPLE;
  if (operator !== SIMPLE) position++;
  const names: string[] = [];
  for (;;) {
    const comma = template.indexOf(",", position);
    const nameEnd = comma === -1 || comma > end ? end : comma;
    const name = parseName(template, position, nameEnd, fail);
    if (seen.has(name)) fail(`duplicate variable name '${name}'`, position);
    seen.add(name);
    names.push(name);
    if (nameEnd === end) break;
    position = nameEnd + 1;
  }
  // In a list the separator ends a value, so it must be encoded inside one.
  const stops = operator.stops + (names.length > 1 ? operator.separator : "");
  const allowed = [...UNRESERVED + (operator.reserved ? RESERVED : "")]
    .filter((char) => !stops.includes(char)).join("");
  return { operator, names, stops, allowed };
}

/** Reads `varname` (RFC 6570 §2.3) from `template[start, end)`. */
function parseName(
  template: string,
  start: number,
  end: number,
  fail: (reason: string, index: number) => never,
): string {
  if (start === end) fail("empty variable name", start);
  let position = start;
  while (position < end) {
    const char = template[position] ?? "";
    if (VARCHAR.test(char)) {
      position++;
    } else if (char === "%") {
      const hex = template.slice(position + 1, position + 3);
      if (position + 3 > end || ![...hex].every((digit) => HEX_DIGIT.test(digit))) {
        fail("invalid percent-encoding in variable name", position);
      }
      position += 3;
    } else if (
      char === "." && position > start && position + 1 < end && template[position + 1] !== "."
    ) {
      position++;
    } else if (char === ":") {
      fail(`unsupported prefix modifier '${template.slice(position, end)}'`, position);
    } else if (char === "*") {
      fail("unsupported explode modifier '*'", position);
    } else {
      fail(`invalid character '${char}' in variable name`, position);
    }
  }
  return template.slice(start, end);
}

/** Flattens the template into literals and values, merging adjacent literals. */
function matchItems(parts: readonly (string | Expression)[]): MatchItem[] {
  const items: MatchItem[] = [];
  const pushLiteral = (text: string): void => {
    if (text === "") return;
    const last = items[items.length - 1];
    if (typeof last === "string") items[items.length - 1] = last + text;
    else items.push(text);
  };
  for (const part of parts) {
    if (typeof part === "string") {
      pushLiteral(part);
      continue;
    }
    const { operator, names } = part;
    const stops = [...part.stops].map((char) =>
      `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`
    );
    for (const [index, name] of names.entries()) {
      pushLiteral(
        (index === 0 ? operator.first : operator.separator) + (operator.named ? `${name}=` : ""),
      );
      // A one-class pattern scans in linear time; it is never backtracked into.
      items.push({ name, stops: new RegExp(`[${stops.join("")}]`, "g") });
    }
  }
  return items;
}

/** Expands the parsed template with `values`, encoding each as its operator requires. */
function expandParts(
  template: string,
  parts: readonly (string | Expression)[],
  values: Readonly<Record<string, string | undefined>>,
): string {
  const label = `Cannot expand URI template '${template}'`;
  if (typeof values !== "object" || values === null) {
    throw new TypeError(`${label}: expected an object of values`);
  }
  let uri = "";
  for (const part of parts) {
    if (typeof part === "string") {
      uri += part;
      continue;
    }
    const { operator, names, allowed } = part;
    const pieces: string[] = [];
    for (const name of names) {
      // Own properties only, so `{toString}` or `{__proto__}` never reads Object.prototype.
      const value: unknown = Object.hasOwn(values, name) ? values[name] : undefined;
      if (value === undefined) continue;
      if (typeof value !== "string") {
        throw new TypeError(`${label}: value of '${name}' must be a string, got ${typeof value}`);
      }
      if (!value.isWellFormed()) {
        throw new TypeError(`${label}: value of '${name}' is not well-formed Unicode`);
      }
      const encoded = percentEncode(value, allowed);
      if (!operator.named) pieces.push(encoded);
      else pieces.push(value === "" ? `${name}${operator.ifEmpty}` : `${name}=${encoded}`);
    }
    if (pieces.length > 0) uri += operator.first + pieces.join(operator.separator);
  }
  return uri;
}

/** Percent-encodes as UTF-8 every character not in `allowed`. */
function percentEncode(value: string, allowed: string): string {
  let encoded = "";
  for (const char of value) {
    const code = char.charCodeAt(0);
    if (allowed.includes(char)) encoded += char;
    else if (code >= 128) encoded += encodeURIComponent(char);
    else encoded += `%${code.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return encoded;
}
