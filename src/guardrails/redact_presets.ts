/**
 * The redactor's rules: the built-in secret detectors, the default list of
 * sensitive keys, and the checks every rule passes before use.
 *
 * Every pattern is written to run in linear time on long input: a pattern
 * starts only at a literal prefix or a word start, its repeated parts are
 * single character classes that cannot overlap with what follows them, and
 * the lead-in parts that could rescan text are bounded. When a pattern has a
 * group named `secret`, only that group is masked and the rest of the match
 * (a key name, `Bearer `, a host name) stays readable. Each pattern sits
 * behind a hint, a literal it cannot match without, so that most text is
 * never scanned by the patterns at all.
 *
 * @module
 */

/**
 * The name of a built-in secret detector.
 *
 * - `aws`: access key ids (`AKIA`/`ASIA` and 16 upper-case letters or digits)
 *   and `aws_secret_access_key = <40 characters>` assignments.
 * - `github`: `ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_` tokens (36 or more
 *   characters after the prefix) and fine-grained `github_pat_` tokens.
 * - `slack`: `xoxa-`, `xoxb-`, `xoxe-`, `xoxp-`, `xoxr-`, `xoxs-` and `xapp-`
 *   tokens, and the secret path of `hooks.slack.com` webhook URLs.
 * - `openai`: `sk-` keys of 20 or more characters with a digit, including
 *   `sk-proj-` keys.
 * - `anthropic`: `sk-ant-` keys.
 * - `jwt`: three base64url segments, the first two starting with `eyJ`.
 * - `bearer`: the token after the word `Bearer` (8 or more token characters
 *   with a digit, or 20 or more without one, so prose is left alone).
 * - `pem`: whole PEM private key blocks, from `BEGIN` to `END`, or to the end
 *   of the base64 body when the block was cut short.
 * - `url`: the password in `scheme://user:password@host` URLs.
 * - `keyvalue`: the value after a sensitive key written as text
 *   (`"password": "…"`, `token=…`, `Authorization: Basic …`), using the same
 *   key list as structured redaction; a bare `key: value` is masked to the end
 *   of the line.
 *
 * @example Choosing presets
 * ```ts
 * import { compileRedactor, type RedactPreset } from "@warden/mcp/guardrails";
 * const presets: RedactPreset[] = ["github", "jwt"];
 * const redactor = compileRedactor({ presets });
 * ```
 */
export type RedactPreset =
  | "aws"
  | "github"
  | "slack"
  | "openai"
  | "anthropic"
  | "jwt"
  | "bearer"
  | "pem"
  | "url"
  | "keyvalue";

/**
 * Every built-in preset, in the order they run.
 *
 * @example Every preset except one
 * ```ts
 * import { compileRedactor, REDACT_PRESETS } from "@warden/mcp/guardrails";
 * const redactor = compileRedactor({
 *   presets: REDACT_PRESETS.filter((preset) => preset !== "url"),
 * });
 * ```
 */
export const REDACT_PRESETS: readonly RedactPreset[] = Object.freeze([
  "aws",
  "github",
  "slack",
  "openai",
  "anthropic",
  "jwt",
  "bearer",
  "pem",
  "url",
  "keyvalue",
]);

/**
 * The keys whose values are masked when `defaultKeys` is on, in normalised
 * form (lower case, without `-`, `_` and spaces): `apikey` stands for
 * `api_key`, `API-Key` and `apiKey`. Matching is exact on that form, so
 * `tokens_used` and `token_count` are not masked: counters named after tokens
 * are common in MCP results and hold no secret.
 *
 * @example Extending the list
 * ```ts
 * import { compileRedactor, DEFAULT_REDACT_KEYS } from "@warden/mcp/guardrails";
 * const redactor = compileRedactor({ keys: [...DEFAULT_REDACT_KEYS, "pin"], defaultKeys: false });
 * ```
 */
export const DEFAULT_REDACT_KEYS: readonly string[] = Object.freeze([
  "password",
  "passwd",
  "passphrase",
  "secret",
  "clientsecret",
  "apisecret",
  "token",
  "accesstoken",
  "refreshtoken",
  "idtoken",
  "authtoken",
  "xauthtoken",
  "sessiontoken",
  "apikey",
  "xapikey",
  "authorization",
  "proxyauthorization",
  "privatekey",
  "awssecretaccesskey",
  "credentials",
  "cookie",
  "setcookie",
  "session",
  "sessionid",
]);

/**
 * Rules behind a hint: a cheap pattern that matches somewhere in every text
 * any rule of the group matches (a literal the rules cannot match without,
 * with their case folding). Text the hint does not match is not scanned by
 * the rules, which is most text: the literals are rare and the rules are the
 * costly part.
 */
export interface RuleGroup {
  /** Matches every text the rules match, and more. */
  readonly hint: RegExp;
  /** A second such pattern, tried after `hint`, or `undefined`. */
  readonly confirm: RegExp | undefined;
  /** The rules, in order. */
  readonly patterns: readonly RegExp[];
}

function group(hint: RegExp, ...patterns: RegExp[]): RuleGroup {
  return { hint, confirm: undefined, patterns };
}

const STATIC_GROUPS: Readonly<Record<Exclude<RedactPreset, "keyvalue">, readonly RuleGroup[]>> = {
  aws: [
    group(
      /AKIA|ASIA/u,
      /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/u,
    ),
    group(
      /aws/iu,
      /aws[_-]?secret[_-]?(?:access[_-]?)?key["']?\s{0,16}[:=]\s{0,16}["']?(?<secret>[A-Za-z0-9\/+]{40})(?![A-Za-z0-9\/+=])/iu,
    ),
  ],
  github: [
    group(/gh[pousr]_/u, /(?<![A-Za-z0-9])gh[pousr]_[A-Za-z0-9]{36,}/u),
    group(
      /github_pat_/u,
      /(?<![A-Za-z0-9])github_pat_[A-Za-z0-9]{22,}_[A-Za-z0-9]{30,}/u,
    ),
  ],
  slack: [
    group(
      /xox|xapp/u,
      /(?<![A-Za-z0-9-])(?:xox[abeprs]|xapp)-(?=[A-Za-z-]*[0-9])[A-Za-z0-9-]{10,}/u,
    ),
    group(
      /hooks\.slack\.com\//u,
      /hooks\.slack\.com\/(?:services|workflows|triggers)\/(?<secret>[A-Za-z0-9_-]+\/[A-Za-z0-9_\/-]+)/u,
    ),
  ],
  // The digit requirement keeps long hyphenated slugs such as "sk-learn-…" unmasked.
  openai: [
    group(
      /sk-/u,
      /(?<![A-Za-z0-9_-])sk-(?!ant-)(?=[A-Za-z_-]*[0-9])[A-Za-z0-9_-]{20,}/u,
    ),
  ],
  anthropic: [group(/sk-ant-/u, /(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,}/u)],
  jwt: [
    group(
      /eyJ/u,
      /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/u,
    ),
  ],
  bearer: [
    group(
      /bearer/iu,
      /\bbearer[ \t]+(?<secret>(?=[A-Za-z._~+\/-]*[0-9])[A-Za-z0-9._~+\/-]{8,}=*|[A-Za-z0-9._~+\/-]{20,}=*)/iu,
    ),
  ],
  // The body (base64, header lines, JSON-escaped line breaks) runs up to the next five dashes,
  // so a block cut short before its END line is still masked up to where it stops.
  pem: [
    group(
      /-----BEGIN /u,
      /-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----(?:[A-Za-z0-9+\/=\s:,.\\]|-(?!----))*(?:-----END (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----)?/u,
    ),
  ],
  url: [
    group(
      /:\/\//u,
      /(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,31}:\/\/[^\s:\/?#@"'<>]*:(?<secret>[^\s\/?#@"'<>]+)@/u,
    ),
  ],
};

const SYNTAX_CHARACTER = /[\\^$.*+?()[\]{}|\/]/gu;

/** A regular expression source matching any of `keys` written with `-` or `_` between letters. */
function keyAlternation(keys: readonly string[]): string {
  const written = keys.map((key) =>
    Array.from(key, (char) => char.replace(SYNTAX_CHARACTER, "\\$&")).join("[-_]?")
  );
  // Longer keys first, so "secretkey" is tried before its prefix "secret".
  return written.sort((a, b) => b.length - a.length).join("|");
}

/** The `keyvalue` rules for one key list (normalised keys); none when the list is empty. */
function keyValueGroups(keys: readonly string[]): readonly RuleGroup[] {
  if (keys.length === 0) return [];
  const name = `(?:${keyAlternation(keys)})`;
  // Every rule needs a `:` or `=`, and a key name before it.
  const hint = /[:=]/u;
  const confirm = new RegExp(name, "iu");
  const bareKey = `(?<![\\w-])${name}`;
  // Quotes may be escaped once, for JSON text inside a JSON string.
  const quotableKey = `(?<![\\w-])(?<kq>(?:\\\\?["'])?)${name}\\k<kq>`;
  const quotedKey = `(?<![\\w-])(?<kq>\\\\?["'])${name}\\k<kq>`;
  const separator = "\\s{0,16}[:=]\\s{0,16}";
  const bareValue = `[^\\s\\\\"',;&()[\\]{}<>]+`;
  const scheme = "(?:(?:basic|bearer|digest|negotiate|token)[ \\t]+)?";
  const quotedValue = `(?<vq>\\\\?["'])(?<secret>(?:(?!\\k<vq>)(?:[^\\\\\\r\\n]|\\\\[\\s\\S]))*)` +
    `(?:\\k<vq>|(?=[\\r\\n])|$)`;
  return [{
    hint,
    confirm,
    patterns: [
      // "password": "hunter2", token='abc' (a value cut off by a line end is masked up to it).
      new RegExp(`${quotableKey}${separator}${quotedValue}`, "iu"),
      // "token": 12345 in JSON or a Python dict.
      new RegExp(`${quotedKey}${separator}(?<secret>${bareValue})`, "iu"),
      // token=abc in environment files, query strings and logs.
      new RegExp(`${bareKey}[ \\t]{0,16}=[ \\t]{0,16}(?<secret>${bareValue})`, "iu"),
      // Authorization: Basic abc, password: hunter2 (headers and YAML, masked to the line end).
      new RegExp(
        `${bareKey}[ \\t]{0,16}:[ \\t]{0,16}${scheme}(?<secret>[^\\s"'](?:[^\\r\\n"'\\\\]|\\\\(?![nr]))*)`,
        "iu",
      ),
    ],
  }];
}

/**
 * The rules of one preset with their triggers (internal to the guardrails).
 * `keys` are the redactor's normalised sensitive keys, which the `keyvalue`
 * preset looks for in text. The returned expressions are shared: compile
 * copies before use.
 */
export function presetGroups(preset: RedactPreset, keys: readonly string[]): readonly RuleGroup[] {
  return preset === "keyvalue" ? keyValueGroups(keys) : STATIC_GROUPS[preset];
}

/** The patterns of one preset, without triggers (internal to the guardrails). */
export function presetPatterns(preset: RedactPreset, keys: readonly string[]): readonly RegExp[] {
  return presetGroups(preset, keys).flatMap((rules) => rules.patterns);
}

/** A key in the form sensitive keys are compared in: lower case, no `-`, `_` or spaces. */
export function normaliseKey(key: string): string {
  return key.toLowerCase().replace(/[\s_-]/gu, "");
}

function describe(pattern: string | RegExp): string {
  return typeof pattern === "string" ? `'${pattern}'` : String(pattern);
}

/**
 * A private copy of a built-in rule (internal to the guardrails), made like
 * {@linkcode compileRule} makes one, without its checks: the built-in rules
 * are known to compile and never to match the empty string (the tests hold
 * them to it), and checking them would compile each twice more at start-up.
 */
export function compilePresetRule(pattern: RegExp): RegExp {
  const flags = pattern.flags.replace(/[dgy]/gu, "");
  const secret = pattern.source.includes("(?<secret>");
  return new RegExp(pattern.source, secret ? `${flags}dg` : `${flags}g`);
}

/**
 * Checks one rule and returns a private copy that always scans globally, and
 * reports group positions when it has a group named `secret` (internal to the
 * guardrails; the `d` flag costs on every scan, so only those rules get it).
 */
export function compileRule(pattern: string | RegExp): RegExp {
  if (typeof pattern !== "string" && !(pattern instanceof RegExp)) {
    throw new TypeError(
      `Invalid redaction pattern: expected a string or RegExp, got ${typeof pattern}`,
    );
  }
  const source = typeof pattern === "string" ? pattern : pattern.source;
  const flags = typeof pattern === "string" ? "u" : pattern.flags.replace(/[dgy]/gu, "");
  let probe: RegExp;
  try {
    probe = new RegExp(source, flags);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new SyntaxError(`Cannot compile redaction pattern ${describe(pattern)}: ${detail}`);
  }
  if (probe.test("")) {
    throw new TypeError(
      `Invalid redaction pattern ${describe(pattern)}: it matches the empty string`,
    );
  }
  return new RegExp(source, hasSecretGroup(source, flags) ? `${flags}dg` : `${flags}g`);
}

/**
 * Whether a pattern has a group named `secret`. An empty alternative makes
 * it match the empty string, and a match lists every named group of the
 * pattern, matched or not, however the name was written.
 */
function hasSecretGroup(source: string, flags: string): boolean {
  const groups = new RegExp(`(?:${source})|`, flags).exec("")?.groups;
  return groups !== undefined && Object.hasOwn(groups, "secret");
}
