/**
 * The built-in detectors by preset name, the exact sensitive keys, and how
 * a preset list becomes a scan plan.
 *
 * @module
 */

import { classOf } from "./chars.ts";
import { escapeLiteral, formatSource, parseFormat } from "./formats.ts";
import { PROVIDER_FORMATS, type ProviderFormat } from "./providers.ts";
import type { ScanPlan, TokenRule } from "./scanner.ts";
import { keyVerdicts } from "./key_context.ts";
import { classifyKey, type KeyStrength, normaliseKey } from "./key_names.ts";

/**
 * The name of a built-in secret detector.
 *
 * - `aws`: access key ids (`AKIA`, `ASIA`, `ABIA`, `ACCA`, `A3T`… and 16
 *   characters) and Bedrock API keys (`ABSK…`, `bedrock-api-key-…`).
 * - `github`: `ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_` and `github_pat_` tokens.
 * - `slack`: `xox?-` and `xapp-` tokens and webhook URLs' secret paths.
 * - `openai`: `sk-`, `sk-proj-`, `sk-svcacct-`, `sk-admin-` keys.
 * - `anthropic`: `sk-ant-` keys.
 * - `providers`: every other provider in the table (`providers.ts`): Google,
 *   Stripe, Azure AD, GitLab, Hugging Face, npm, PyPI, Twilio, SendGrid and
 *   over a hundred more.
 * - `jwt`: three base64url segments, the first two starting with `eyJ`.
 * - `bearer`: the token after the word `Bearer`.
 * - `pem`: whole PEM private key blocks (cut-short ones up to where they stop).
 * - `url`: the password in `scheme://user:password@host` URLs.
 * - `keyvalue`: key context: the value after a key whose name says secret
 *   (`GITHUB_TOKEN=…`, `"db_password": "…"`, `apiToken: …`, `--api-key …`,
 *   `Authorization: Basic …`), and a random-looking token shortly after
 *   words such as "token" or "api key" in prose.
 *
 * @example Choosing presets
 * ```ts
 * import { type RedactPreset } from "@warden/mcp/guardrails";
 * import { compileRedactor } from "./engine.ts";
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
  | "providers"
  | "jwt"
  | "bearer"
  | "pem"
  | "url"
  | "keyvalue";

/**
 * Every built-in preset.
 *
 * @example
 * ```ts
 * import { REDACT_PRESETS } from "./presets.ts";
 * console.assert(REDACT_PRESETS.includes("pem"));
 * ```
 */
export const REDACT_PRESETS: readonly RedactPreset[] = Object.freeze([
  "aws",
  "github",
  "slack",
  "openai",
  "anthropic",
  "providers",
  "jwt",
  "bearer",
  "pem",
  "url",
  "keyvalue",
]);

/**
 * Keys that are always secret, normalised (lower case, no `-`, `_` or
 * spaces). Beyond these exact names, default key detection classifies any
 * name by its words (`GITHUB_TOKEN`, `db_password`, `apiToken`).
 *
 * @example Adding a key without the defaults
 * ```ts
 * import { compileRedactor } from "./engine.ts";
 * const redactor = compileRedactor({ keys: ["pin"], defaultKeys: false });
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
]);

const JWT: ProviderFormat = {
  family: "JSON Web Token",
  id: "jwt",
  format: "eyJ{b:10,4000}.eyJ{b:10,8000}.{b:0,2000}",
  preset: "providers",
};

/** Compiles one token format into a scanner rule. */
export function compileFormat(row: ProviderFormat): TokenRule {
  const parsed = parseFormat(row.format);
  const re = new RegExp(`${formatSource(parsed)}(?![A-Za-z0-9])`, "uy");
  let anchor: TokenRule["anchor"];
  if (row.anchor !== undefined) {
    let min = 0;
    let max = 0;
    for (const part of parsed.parts) {
      if ("literal" in part) {
        const at = part.literal.indexOf(row.anchor);
        if (at >= 0) {
          min += at;
          max += at;
          break;
        }
        min += part.literal.length;
        max += part.literal.length;
      } else {
        min += part.min;
        max += part.max;
      }
    }
    let kinds = 0;
    for (let index = 0; index < row.anchor.length; index++) {
      kinds |= classOf(row.anchor.charCodeAt(index));
    }
    anchor = { literal: row.anchor, min, max, kinds };
  }
  return {
    id: row.id,
    prefix: parsed.kept + parsed.prefix,
    re: parsed.kept === "" ? re : new RegExp(`${escapeKept(parsed.kept)}${re.source}`, "uy"),
    kept: parsed.kept.length,
    weak: row.weak === true,
    glued: row.glued ?? "",
    anchor,
  };
}

function escapeKept(kept: string): string {
  return escapeLiteral(kept);
}

let compiledRows: Map<string, TokenRule> | undefined;

function ruleOf(row: ProviderFormat): TokenRule {
  compiledRows ??= new Map();
  let rule = compiledRows.get(row.id);
  if (rule === undefined) {
    rule = compileFormat(row);
    compiledRows.set(row.id, rule);
  }
  return rule;
}

/** Families in the table whose names are also everyday words: no keyword on their own. */
const COMMON_NAMES: ReadonlySet<string> = new Set([
  "age",
  "meta",
  "linear",
  "render",
  "resend",
  "square",
  "neon",
  "docker",
  "lob",
  "json web token",
  "x (twitter)",
  "42 intra",
]);

/** The provider families of the table, as words (`hugging face`, `alibaba cloud`). */
function providerNames(): string[] {
  const names = new Set<string>();
  for (const row of PROVIDER_FORMATS) {
    const name = row.family.toLowerCase();
    if (COMMON_NAMES.has(name)) continue;
    names.add(escapeLiteral(name).replaceAll(" ", "[ _-]?"));
    // `alibaba` for Alibaba Cloud, `hashicorp` for HashiCorp Vault; not `new` for New Relic.
    const first = name.split(" ")[0] ?? "";
    if (first.length >= 6 && first !== "defined") names.add(escapeLiteral(first));
  }
  return [...names].map((name) => String.raw`\b${name}\b`);
}

/** Words that may name a secret or not ("key", "auth"): the token after them must be long too. */
const PROSE_MAYBE = /\bkey\b|\bauth\b/iu;

/** The key strength function of a redactor: its exact keys, then (by default) the classifier. */
export function keyStrengthOf(
  keys: ReadonlySet<string>,
  classify: boolean,
): (key: string) => KeyStrength {
  const cache = new Map<string, KeyStrength>();
  return (key: string): KeyStrength => {
    let strength = cache.get(key);
    if (strength === undefined) {
      strength = keys.has(normaliseKey(key)) ? "strong" : classify ? classifyKey(key) : "none";
      if (cache.size >= 2048) cache.clear();
      cache.set(key, strength);
    }
    return strength;
  };
}

/** The scan plan for a set of presets. */
export function planFor(
  presets: readonly RedactPreset[],
  strengthOf: (key: string) => KeyStrength,
  anyKeys: boolean,
): ScanPlan {
  const on = new Set(presets);
  const rows = PROVIDER_FORMATS.filter((row) => on.has(row.preset));
  if (on.has("jwt")) rows.push(JWT);
  const buckets: (TokenRule[] | undefined)[] = new Array(128 * 128).fill(undefined);
  const anchored: TokenRule[] = [];
  for (const row of rows) {
    const rule = ruleOf(row);
    if (rule.anchor !== undefined) {
      anchored.push(rule);
      continue;
    }
    const index = (rule.prefix.charCodeAt(0) << 7) | rule.prefix.charCodeAt(1);
    (buckets[index] ??= []).push(rule);
  }
  // Longer prefixes first, so `sk-ant-` is tried before `sk-`.
  for (const bucket of buckets) bucket?.sort((a, b) => b.prefix.length - a.prefix.length);
  const starts = new Uint16Array(buckets.length);
  const longOnly = buckets.flatMap((bucket, index) =>
    bucket !== undefined && bucket.every((rule) => rule.prefix.length >= 3) ? [index] : []
  );
  const thirds = new Uint32Array(longOnly.length * 4);
  buckets.forEach((bucket, index) => {
    if (bucket !== undefined) starts[index] = 1;
  });
  longOnly.forEach((index, slot) => {
    starts[index] = slot + 2;
    for (const rule of buckets[index] ?? []) {
      const third = rule.prefix.charCodeAt(2) & 127;
      thirds[slot * 4 + (third >> 5)] = (thirds[slot * 4 + (third >> 5)] ?? 0) |
        (1 << (third & 31));
    }
  });
  const keyvalue = on.has("keyvalue") && anyKeys;
  return {
    buckets,
    starts,
    thirds,
    anchoredInRun: anchored.filter((rule) => !rule.anchor?.literal.startsWith(":")),
    anchoredAtColon: anchored.filter((rule) => rule.anchor?.literal.startsWith(":") === true),
    verdicts: keyVerdicts(),
    strengthOf: keyvalue ? strengthOf : undefined,
    proseWords: keyvalue ? PROSE_WORDS : undefined,
    proseMaybe: keyvalue ? PROSE_MAYBE : undefined,
    pem: on.has("pem"),
    url: on.has("url"),
    bearer: on.has("bearer"),
  };
}

/**
 * Alternatives as one expression, grouped by their first letter (`a(?:dobe|sana)`): the engine
 * then reads each position's letter once instead of trying every word there, three times faster
 * on a window with no word (the usual case). `test` asks only whether some alternative matches,
 * so grouping keeps what matches. Before a letter, `\b` is "no word character before".
 */
function byFirstLetter(alternatives: readonly string[]): string {
  const groups = new Map<string, string[]>();
  const rest: string[] = [];
  for (const alternative of alternatives) {
    const bounded = alternative.startsWith(String.raw`\b`);
    const first = alternative.charAt(bounded ? 2 : 0);
    if (!/^[a-z]$/u.test(first)) {
      rest.push(alternative);
      continue;
    }
    const head = bounded ? String.raw`(?<!\w)${first}` : first;
    const group = groups.get(head) ?? [];
    group.push(alternative.slice(bounded ? 3 : 1));
    groups.set(head, group);
  }
  return [...[...groups].map(([head, tails]) => `${head}(?:${tails.join("|")})`), ...rest]
    .join("|");
}

/**
 * Words that mark the random-looking token after them in prose as a secret:
 * secret words, and the names of providers whose keys have no prefix.
 */
const PROSE_WORDS = new RegExp(
  byFirstLetter([
    "pass(?:word|wd|phrase)",
    "secret",
    "token",
    "api[ _-]?key",
    "access[ _-]?key",
    "private[ _-]?key",
    "credential",
    "license[ _-]?key",
    "signing[ _-]?key",
    "app[ _-]?key",
    ...("datadog algolia heroku okta twilio cloudflare snyk mailgun azure sentry newrelic " +
      "pagerduty zendesk intercom pusher rollbar bugsnag honeycomb sumo travis codecov circleci " +
      "vercel netlify postmark mapbox segment mixpanel amplitude launchdarkly adafruit adobe " +
      "airtable asana bitbucket bittrex cohere coinbase confluent contentful discord drone etsy " +
      "facebook fastly finicity finnhub flickr freemius freshbooks gitter gocardless hubspot " +
      "jfrog kraken kucoin linkedin looker mattermost messagebird nytimes plaid privateai " +
      "rapidapi sendbird sonar squarespace telegram twitch twitter dropbox shopify stripe slack " +
      "github gitlab openai meraki clickhouse").split(" "),
    "new relic",
    String.raw`\blob\b`,
    ...providerNames(),
  ]),
  "iu",
);
