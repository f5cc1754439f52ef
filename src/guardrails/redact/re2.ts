/**
 * Translates Go RE2 regular expressions (the syntax of gitleaks rules) into
 * ECMAScript sources for the `u` flag, or refuses what has no faithful
 * translation.
 *
 * Translated: leading `(?flags)` (`i`, `m`, `s`) to flags, inline flags
 * elsewhere to modifier groups `(?i:…)`, `(?P<name>` to `(?<name>`, `\z` and
 * `\A`, `\Q…\E` literals, `\x{…}`, `\pL`, POSIX classes (`[[:alnum:]]`),
 * escaped punctuation that `u` forbids (`\-`, `\'`), and literal braces.
 * Refused: the ungreedy flag `U`, `\C`, negated POSIX classes, octal escapes,
 * and nested unbounded repetition such as `(a+)+`, which RE2 runs in linear
 * time but a backtracking engine may not (unless each repetition starts with
 * a delimiter nothing inside matches, `(?:\.\w+)+`).
 *
 * @module
 */

/** A translated expression. */
export interface Translated {
  /** The ECMAScript source. */
  readonly source: string;
  /** Flags from a leading `(?…)`, beside `u`. */
  readonly flags: string;
}

const POSIX: Readonly<Record<string, string>> = {
  alnum: "A-Za-z0-9",
  alpha: "A-Za-z",
  ascii: "\\x00-\\x7F",
  blank: "\\t ",
  cntrl: "\\x00-\\x1F\\x7F",
  digit: "0-9",
  graph: "!-~",
  lower: "a-z",
  print: " -~",
  punct: "!-\\/:-@\\[-`{-~",
  space: "\\t\\n\\v\\f\\r ",
  upper: "A-Z",
  word: "A-Za-z0-9_",
  xdigit: "0-9A-Fa-f",
};

const SYNTAX = "^$\\.*+?()[]{}|/";
const CATEGORY = /^(?:[LMNPSZC][a-z]?|Any)$/u;

/** An open group: the inline flags to close with it, and whether it repeats without bound inside. */
interface Group {
  readonly modifiers: string[];
  unbounded: boolean;
  /** Where the group's body starts in the output. */
  readonly start: number;
}

/** Where a translation stands. */
interface Translation {
  readonly pattern: string;
  /** The index of the next character to read. */
  at: number;
  /** The ECMAScript source so far. */
  out: string;
  /** The open groups, innermost last; the first stands for the whole expression. */
  readonly groups: Group[];
  /** Whether the group just closed repeats without bound inside, so must not repeat itself. */
  lastGroupUnbounded: boolean;
}

/** Translates the construct that starts with `char` at `state.at`, and moves past it. */
type Handler = (state: Translation, char: string) => void;

/** The constructs that start with a special character; anything else is copied as it is. */
const HANDLERS: ReadonlyMap<string, Handler> = new Map<string, Handler>([
  ["\\", escapeSequence],
  ["[", characterClass],
  ["(", openGroup],
  ["|", alternative],
  [")", closeGroup],
  ["*", repetition],
  ["+", repetition],
  ["{", repetition],
  ["}", literalBracket],
  ["]", literalBracket],
]);

/**
 * Translates one RE2 expression; throws a `SyntaxError` whose message says
 * what cannot be translated (the caller adds the rule id and file).
 *
 * @example
 * ```ts ignore
 * console.assert(translateRe2("(?i)key-(?P<k>[a-z]+)").flags === "i");
 * ```
 */
export function translateRe2(pattern: string): Translated {
  const [flags, start] = leadingFlags(pattern);
  const state: Translation = {
    pattern,
    at: start,
    out: "",
    groups: [{ modifiers: [], unbounded: false, start: 0 }],
    lastGroupUnbounded: false,
  };
  while (state.at < pattern.length) {
    const char = pattern[state.at] ?? "";
    (HANDLERS.get(char) ?? literal)(state, char);
  }
  if (state.groups.length !== 1) throw new SyntaxError("missing ')'");
  const source = state.out + ")".repeat(state.groups[0]?.modifiers.length ?? 0);
  return { source, flags };
}

/** The flags of a leading `(?flags)`, and the length it takes (none: `""` and 0). */
function leadingFlags(pattern: string): [string, number] {
  const leading = /^\(\?([imsU]+)\)/u.exec(pattern);
  if (leading === null) return ["", 0];
  const given = leading[1] ?? "";
  if (given.includes("U")) {
    throw new SyntaxError("the ungreedy flag (?U) has no ECMAScript equivalent");
  }
  return [[...new Set(given)].join(""), leading[0].length];
}

/** Any other character, as it is; a `?` right after a group leaves its mark for what follows. */
function literal(state: Translation, char: string): void {
  state.out += char;
  state.at++;
  if (char !== "?") state.lastGroupUnbounded = false;
}

/** `\…`, outside a class. */
function escapeSequence(state: Translation): void {
  const [text, length] = escape(state.pattern, state.at, false);
  state.out += text;
  state.at += length;
  state.lastGroupUnbounded = false;
}

/** `[…]`. */
function characterClass(state: Translation): void {
  const [text, length] = charClass(state.pattern, state.at);
  state.out += text;
  state.at += length;
  state.lastGroupUnbounded = false;
}

/** `(`: inline flags `(?i)`, a flag group `(?i:`, a named group `(?P<`, or a plain group. */
function openGroup(state: Translation): void {
  const { pattern, at } = state;
  const inline = /^\(\?([ims]*(?:-[ims]+)?)\)/u.exec(pattern.slice(at));
  if (inline !== null && inline[1] !== "") {
    // Flags from here to the end of the enclosing group: a modifier group closed with it.
    state.out += `(?${inline[1]}:`;
    state.groups.at(-1)?.modifiers.push(inline[1] ?? "");
    state.at += inline[0].length;
    return;
  }
  const scoped = /^\(\?[ims]*(?:-[ims]+)?:/u.exec(pattern.slice(at));
  if (scoped !== null && scoped[0] !== "(?:") {
    state.out += scoped[0];
    state.at += scoped[0].length;
    state.groups.push({ modifiers: [], unbounded: false, start: state.out.length });
    return;
  }
  if (/^\(\?[^:P<!=]/u.test(pattern.slice(at))) {
    throw new SyntaxError(`unsupported group syntax at ${at + 1}`);
  }
  const named = pattern.startsWith("(?P<", at);
  state.out += named ? "(?<" : "(";
  state.at += named ? 4 : 1;
  state.groups.push({ modifiers: [], unbounded: false, start: state.out.length });
}

/** `|`: inline flags last to the end of the group, across alternatives: close and reopen them. */
function alternative(state: Translation): void {
  const modifiers = state.groups.at(-1)?.modifiers ?? [];
  state.out += ")".repeat(modifiers.length) + "|" +
    modifiers.map((flags) => `(?${flags}:`).join("");
  state.at++;
  state.lastGroupUnbounded = false;
}

/** `)`: closes the group's modifier groups too, and passes its unbounded mark to the parent. */
function closeGroup(state: Translation): void {
  const { groups } = state;
  const group = groups.pop();
  if (group === undefined || groups.length === 0) {
    throw new SyntaxError(`unmatched ')' at ${state.at + 1}`);
  }
  const body = state.out.slice(group.start);
  state.out += ")".repeat(group.modifiers.length) + ")";
  state.lastGroupUnbounded = group.unbounded && !delimited(body);
  const parent = groups.at(-1);
  if (parent !== undefined) parent.unbounded ||= group.unbounded;
  state.at++;
}

/**
 * `*`, `+` or `{n,m}` (lazy or not); refuses an unbounded one right after a
 * group that repeats without bound inside. A `{` that starts no repetition
 * is a literal brace.
 */
function repetition(state: Translation): void {
  const { pattern, at } = state;
  const repeat = /^(?:\*|\+|\{(\d+)(?:(,)(\d*))?\})\??/u.exec(pattern.slice(at));
  if (repeat === null) {
    state.out += "\\{";
    state.at++;
    return;
  }
  const unbounded = repeat[0][0] !== "{" || (repeat[2] === "," && repeat[3] === "");
  if (unbounded && state.lastGroupUnbounded) {
    throw new SyntaxError(
      `nested repetition '${
        pattern.slice(Math.max(0, at - 12), at + repeat[0].length)
      }' can take exponential time outside RE2`,
    );
  }
  const top = state.groups.at(-1);
  if (top !== undefined && unbounded) top.unbounded = true;
  state.out += repeat[0];
  state.at += repeat[0].length;
  state.lastGroupUnbounded = false;
}

/**
 * Whether a group's body starts with a punctuation literal that nothing after it can match
 * (`\.[A-Za-z]\w+` in `(?:\.[A-Za-z]\w+)+`): each repetition then begins where the last one
 * ended, at that literal, and a backtracking engine has one way to split the input, as RE2 does.
 * The rest may only hold letters, digits, `_`, `\w`, `\d`, classes of those and repeats.
 */
function delimited(body: string): boolean {
  const bare = body.replace(/^\?(?::|<[A-Za-z_]\w*>)/u, "");
  const lead = /^(?:\\[.\-\/:,@#=+]|[\/:,@#=-])/u.exec(bare);
  if (lead === null) return false;
  const rest = bare.slice(lead[0].length);
  return /^(?:\\[wd]|\[(?:[A-Za-z0-9_]|[A-Za-z0-9]-[A-Za-z0-9]|\\[wd])+\]|[A-Za-z0-9_]|[*+?]|\{\d+(?:,\d*)?\})*$/u
    .test(rest);
}

/** A lone `}` or `]`, escaped as the `u` flag requires. */
function literalBracket(state: Translation, char: string): void {
  state.out += `\\${char}`;
  state.at++;
}

/** One escape at `at`; returns its translation and the length it used. */
function escape(pattern: string, at: number, inClass: boolean): [string, number] {
  const next = pattern[at + 1];
  if (next === undefined) throw new SyntaxError("trailing backslash");
  if (next === "Q") {
    const end = pattern.indexOf("\\E", at + 2);
    const literal = pattern.slice(at + 2, end === -1 ? pattern.length : end);
    const escaped = Array.from(
      literal,
      (char) => SYNTAX.includes(char) || char === "-" && inClass ? `\\${char}` : char,
    ).join("");
    return [escaped, (end === -1 ? pattern.length : end + 2) - at];
  }
  if (next === "z") return ["(?![\\s\\S])", 2];
  if (next === "A") return ["(?<![\\s\\S])", 2];
  if (next === "C") throw new SyntaxError("\\C (any byte) has no ECMAScript equivalent");
  if (next === "a") return ["\\x07", 2];
  if (next === "x" && pattern[at + 2] === "{") {
    const end = pattern.indexOf("}", at + 3);
    const hex = pattern.slice(at + 3, end);
    if (end === -1 || !/^[0-9A-Fa-f]{1,6}$/u.test(hex)) {
      throw new SyntaxError(`bad \\x{…} escape at ${at + 1}`);
    }
    return [`\\u{${hex}}`, end + 1 - at];
  }
  if (next === "p" || next === "P") {
    let name: string;
    let length: number;
    if (pattern[at + 2] === "{") {
      const end = pattern.indexOf("}", at + 3);
      if (end === -1) throw new SyntaxError(`bad \\${next}{…} escape at ${at + 1}`);
      name = pattern.slice(at + 3, end);
      length = end + 1 - at;
    } else {
      name = pattern[at + 2] ?? "";
      length = 3;
    }
    const negated = name.startsWith("^");
    if (negated) name = name.slice(1);
    const kind = negated === (next === "P") ? "p" : "P";
    if (name === "Any") return [kind === "p" ? "[\\s\\S]" : "[^\\s\\S]", length];
    return [`\\${kind}{${CATEGORY.test(name) ? name : `Script=${name}`}}`, length];
  }
  if (/[0-7]/u.test(next) && next !== "0") {
    throw new SyntaxError(`octal escape '\\${next}' at ${at + 1}: write \\x{…}`);
  }
  if (/[A-Za-z0-9]/u.test(next)) return [`\\${next}`, 2];
  // RE2 lets any punctuation be escaped; the u flag only its syntax characters.
  if (SYNTAX.includes(next) || (inClass && next === "-")) return [`\\${next}`, 2];
  return [next, 2];
}

/** A character class at `at`, with POSIX classes expanded. */
function charClass(pattern: string, at: number): [string, number] {
  let out = "[";
  let i = at + 1;
  if (pattern[i] === "^") {
    out += "^";
    i++;
  }
  if (pattern[i] === "]") {
    out += "\\]";
    i++;
  }
  while (i < pattern.length && pattern[i] !== "]") {
    const char = pattern[i] ?? "";
    if (char === "[" && pattern[i + 1] === ":") {
      const end = pattern.indexOf(":]", i + 2);
      const name = pattern.slice(i + 2, end);
      if (name.startsWith("^")) {
        throw new SyntaxError(`negated POSIX class [:${name}:] is not supported`);
      }
      const range = Object.hasOwn(POSIX, name) ? POSIX[name] : undefined;
      if (end === -1 || range === undefined) {
        throw new SyntaxError(`unknown POSIX class at ${i + 1}`);
      }
      out += range;
      i = end + 2;
      continue;
    }
    if (char === "\\") {
      const [text, length] = escape(pattern, i, true);
      out += text;
      i += length;
      continue;
    }
    out += char === "[" ? "\\[" : char;
    i++;
  }
  if (i >= pattern.length) throw new SyntaxError("missing ']'");
  return [`${out}]`, i + 1 - at];
}
