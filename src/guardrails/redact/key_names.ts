/**
 * Which key names say their value is secret.
 *
 * A key is split into words (`GITHUB_TOKEN`, `apiToken`, `db-password`,
 * `spring.datasource.password`). It is `strong` when a word names a secret
 * outright (password, secret, token, credentials, api key, private key, …)
 * and `weak` when it only may (session, auth, signature, a key with an
 * unknown qualifier such as `cache_key`). Names that describe a secret
 * rather than hold it (`token_count`, `max_tokens`, `password_policy`) are
 * not secret keys. How a value next to a key is judged is `value_shape.ts`.
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
  "method",
  "methods",
  "schema",
  "class",
  "source",
  "callback",
  "handler",
  "error",
  "exchange",
  "request",
  "response",
  "params",
  "options",
  "config",
  "settings",
  "service",
  "strategy",
  "interface",
  "factory",
  "helper",
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
  // `cookieAttributeList.sameSite`: a dotted path is named by its last segment.
  const dot = key.lastIndexOf(".");
  const words = keyWords(dot > 0 && dot < key.length - 1 ? key.slice(dot + 1) : key);
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
