/**
 * Key context: which key names say their value is secret, and whether a
 * value next to such a key looks like a secret rather than prose, code or a
 * placeholder.
 *
 * A key is split into words (`GITHUB_TOKEN`, `apiToken`, `db-password`,
 * `spring.datasource.password`). It is `strong` when a word names a secret
 * outright (password, secret, token, credentials, api key, private key, …)
 * and `weak` when it only may (session, auth, cookie, signature, a key with
 * a qualifier such as `license_key`). A strong key's quoted value is masked
 * unless it is a placeholder; an unquoted one must not read as a word or as
 * code. A weak key's value must look random. Names that describe a secret
 * rather than hold it (`token_count`, `max_tokens`, `password_policy`) are
 * not secret keys.
 *
 * @module
 */

/** How strongly a key name says its value is secret. */
export type KeyStrength = "none" | "weak" | "strong";

const STRONG_WORDS: ReadonlySet<string> = new Set([
  "password",
  "passwd",
  "pwd",
  "passphrase",
  "passcode",
  "secret",
  "secrets",
  "token",
  "apikey",
  "apitoken",
  "credential",
  "credentials",
  "creds",
  "authorization",
  "privatekey",
  "accesskey",
  "secretkey",
  "accesstoken",
  "refreshtoken",
  "authtoken",
  "idtoken",
  "bearer",
  "clientsecret",
  "apisecret",
  "xapikey",
  "cookie",
  "setcookie",
  "sessiontoken",
  "sessionkey",
  "connectionstring",
  "dsn",
  "pat",
  "pass",
]);

const WEAK_WORDS: ReadonlySet<string> = new Set([
  "session",
  "sessionid",
  "sid",
  "auth",
  "sig",
  "signature",
  "tokens",
  "otp",
  "pin",
  "hmac",
  "salt",
  "nonce",
  "cert",
  "license",
  "webhook",
  "hook",
  "sas",
  "jwt",
  "csrf",
  "xsrf",
  "csrftoken",
]);

/** Qualifiers that make a trailing `key` word a secret key (`api_key`, `account_key`). */
const KEY_QUALIFIERS: ReadonlySet<string> = new Set([
  "api",
  "secret",
  "access",
  "private",
  "app",
  "application",
  "account",
  "admin",
  "signing",
  "encryption",
  "master",
  "license",
  "client",
  "auth",
  "service",
  "shared",
  "storage",
  "subscription",
  "ssh",
  "gpg",
  "pgp",
  "session",
  "consumer",
  "webhook",
  "write",
  "read",
  "ingest",
  "sdk",
  "server",
  "dd",
  "search",
  "primary",
  "secondary",
  "sharedaccess",
  "hmac",
  "crypt",
  "decryption",
  "cipher",
  "jwt",
  "token",
  "root",
  "user",
  "deploy",
  "integration",
  "rest",
]);

/** Last words that describe a secret instead of holding one. */
const META_WORDS: ReadonlySet<string> = new Set([
  "count",
  "counts",
  "used",
  "type",
  "types",
  "length",
  "len",
  "limit",
  "limits",
  "max",
  "min",
  "url",
  "uri",
  "endpoint",
  "name",
  "names",
  "path",
  "file",
  "expiry",
  "expires",
  "expiration",
  "exp",
  "ttl",
  "policy",
  "hint",
  "label",
  "required",
  "enabled",
  "format",
  "version",
  "prefix",
  "suffix",
  "size",
  "field",
  "kind",
  "status",
  "param",
  "env",
  "var",
  "id",
  "ids",
  "arn",
  "header",
  "location",
  "rotation",
  "strength",
  "changed",
  "created",
  "updated",
  "at",
  "reset",
  "manager",
  "store",
  "provider",
  "validator",
  "validation",
  "usage",
  "budget",
  "estimate",
  "estimator",
  "cost",
  "price",
  "rate",
  "index",
  "position",
  "placeholder",
  "regex",
  "pattern",
  "mode",
  "algorithm",
  "alg",
  "scheme",
  "scope",
  "scopes",
  "audience",
  "issuer",
  "lifetime",
]);

/** First words that describe an amount of tokens, not a token (`max_tokens`). */
const META_LEADS: ReadonlySet<string> = new Set([
  "max",
  "min",
  "num",
  "total",
  "input",
  "output",
  "prompt",
  "completion",
  "cached",
  "reasoning",
  "is",
  "has",
  "use",
  "show",
  "forgot",
  "reset",
  "new",
  "confirm",
  "allow",
  "require",
  "no",
]);

/** Splits a key into lower-case words at `_ - . space` and camelCase boundaries. */
export function keyWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/gu, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/gu, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/u)
    .filter((word) => word.length > 0);
}

/** A key in the form exact keys are compared in: lower case, no `-`, `_` or spaces. */
export function normaliseKey(key: string): string {
  return key.toLowerCase().replace(/[\s_-]/gu, "");
}

/**
 * How strongly a key name says its value is secret (see the module doc).
 *
 * @example
 * ```ts ignore
 * console.assert(classifyKey("STRIPE_SECRET_KEY") === "strong");
 * console.assert(classifyKey("max_tokens") === "none");
 * ```
 */
export function classifyKey(key: string): KeyStrength {
  const words = keyWords(key);
  const last = words.at(-1);
  if (last === undefined) return "none";
  if (META_WORDS.has(last) && !(last === "id" && words.includes("session"))) return "none";
  if (words.length > 1 && META_LEADS.has(words[0] ?? "")) return "none";
  const joined = words.join("");
  if (STRONG_WORDS.has(joined)) return "strong";
  let strength: KeyStrength = "none";
  for (let index = 0; index < words.length; index++) {
    const word = words[index] ?? "";
    const pair = word + (words[index + 1] ?? "");
    if (STRONG_WORDS.has(word) || (index + 1 < words.length && STRONG_WORDS.has(pair))) {
      if (word === "pass" && index + 1 < words.length) continue;
      return "strong";
    }
    // Words run together: `dbpassword`, `accesstoken`, `appsecret`.
    if (/pass(?:word|wd|phrase)|credential|apikey|(?:token|secret)$/u.test(word)) return "strong";
    if (WEAK_WORDS.has(word)) strength = "weak";
  }
  if (last === "key" && words.length > 1) {
    return KEY_QUALIFIERS.has(words.at(-2) ?? "") ? "strong" : "weak";
  }
  if (last === "key" || last === "keys") return strength === "none" ? "weak" : strength;
  return strength;
}

const PLACEHOLDER = new RegExp(
  String
    .raw`^(?:\$\{[^}]*\}|\$\(|\$[A-Za-z_]|%[A-Za-z_][\w]*%|\{\{|<[^>]*>$|\[[^\]]*\]$|\*{3,}|x{3,}$|X{3,}$|\.{3})` +
    String
      .raw`|example|placeholder|your[_-]?|changeme|change[_-]me|redacted|dummy|sample|insert[_-]|replace[_-]?me|xxxx|XXXX|\*\*\*`,
  "iu",
);
const LITERALS: ReadonlySet<string> = new Set([
  "null",
  "nil",
  "none",
  "undefined",
  "true",
  "false",
  "string",
  "str",
  "int",
  "number",
  "bool",
  "boolean",
  "object",
  "required",
  "optional",
  "secret",
  "password",
  "token",
  "empty",
  "unset",
  "todo",
  "tbd",
  "n/a",
  "na",
  "hidden",
  "masked",
  "omitted",
  "env",
  "process",
]);

/**
 * Whether a value is a placeholder or documentation sample rather than a
 * secret: `${API_KEY}`, `$TOKEN`, `<YOUR_KEY>`, `xxxx…`, `****`, anything
 * saying example/your/changeme/redacted, literal type names and a run of few
 * distinct characters.
 *
 * @example
 * ```ts ignore
 * console.assert(isPlaceholder("${API_KEY}") && !isPlaceholder("hunter2"));
 * ```
 */
export function isPlaceholder(value: string): boolean {
  if (value.length === 0 || LITERALS.has(value.toLowerCase())) return true;
  if (PLACEHOLDER.test(value)) return true;
  return fewDistinct(value) || sequential(value);
}

/** At most 3 distinct characters in 8 or more: `aaaaaaaa`, `0000-0000`. */
export function fewDistinct(value: string): boolean {
  if (value.length < 8) return false;
  const seen = new Set<number>();
  for (let index = 0; index < value.length && seen.size <= 3; index++) {
    seen.add(value.charCodeAt(index));
  }
  return seen.size <= 3;
}

/** Mostly an ascending run such as `1234567890abcdef`: a made-up sample. */
function sequential(value: string): boolean {
  if (value.length < 10) return false;
  let steps = 0;
  for (let index = 1; index < value.length; index++) {
    if (value.charCodeAt(index) === value.charCodeAt(index - 1) + 1) steps++;
  }
  return steps >= value.length * 0.5;
}

/** A plain word: `Opening`, `required`, `READ-ONLY`, `not_set`. */
function isWord(value: string): boolean {
  return /^(?:[A-Z]?[a-z]+|[A-Z]+)(?:[-_ ](?:[A-Z]?[a-z]+|[A-Z]+))*[.,!?]?$/u.test(value);
}

/** Code rather than data: `process.env.X`, `self.token`, `getToken`, `req.body`. */
export function isCode(value: string, next: number): boolean {
  if (next === 40 /* ( */ || next === 91 /* [ */ || next === 60 /* < */) return true;
  return /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/u.test(value) &&
    !value.split(".").some(looksRandom);
}

/**
 * Whether a value looks like random key material: 8 or more characters with
 * letters and digits mixed, or mixed case within, or a long run of
 * high-entropy characters.
 */
export function looksRandom(value: string): boolean {
  const length = value.length;
  // Key material has no spaces; prose does.
  if (length < 8 || /\s/u.test(value)) return false;
  let lower = 0;
  let upper = 0;
  let digit = 0;
  for (let index = 0; index < length; index++) {
    const code = value.charCodeAt(index);
    if (code >= 97 && code <= 122) lower++;
    else if (code >= 65 && code <= 90) upper += index === 0 ? 0 : 1;
    else if (code >= 48 && code <= 57) digit++;
  }
  const letters = lower + upper;
  if (letters > 0 && digit > 0 && digit < length) return entropy(value) >= 2.5;
  if (lower > 0 && upper > 1 && length >= 12) return entropy(value) >= 3;
  return length >= 20 && entropy(value) >= 3.5;
}

const COUNTS = new Int32Array(128);

/** Shannon entropy in bits per character. */
export function entropy(value: string): number {
  const length = value.length;
  let other: Map<number, number> | undefined;
  for (let index = 0; index < length; index++) {
    const code = value.charCodeAt(index);
    if (code < 128) COUNTS[code] = (COUNTS[code] ?? 0) + 1;
    else (other ??= new Map()).set(code, (other.get(code) ?? 0) + 1);
  }
  let bits = 0;
  for (let index = 0; index < length; index++) {
    const code = value.charCodeAt(index);
    if (code >= 128) continue;
    const count = COUNTS[code] ?? 0;
    if (count === 0) continue;
    const p = count / length;
    bits -= p * Math.log2(p);
    COUNTS[code] = 0;
  }
  for (const count of other?.values() ?? []) {
    const p = count / length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/**
 * Whether the value next to a key of this strength is to be masked.
 * `quoted` says whether the value was quoted (JSON, a quoted .env or YAML
 * value), `next` is the character code after an unquoted value (a `(` means
 * a call: code, not data).
 */
export function valueIsSecret(
  value: string,
  strength: KeyStrength,
  quoted: boolean,
  next: number,
): boolean {
  // Cheap checks first: most values next to a key are words, code or short.
  if (strength === "none") return false;
  if (strength === "weak") {
    return looksRandom(value) && !isCode(value, next) && !isPlaceholder(value);
  }
  if (quoted) return !isPlaceholder(value);
  if (value.length < 4) return false;
  return !isWord(value) && !isCode(value, next) && !isPlaceholder(value);
}
