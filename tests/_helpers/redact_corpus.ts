/**
 * Generated corpora for the redaction targets: real-format secrets of every
 * provider family in the contexts they leak in, and look-alikes that must
 * stay readable. Shared by the corpus test and the benchmark.
 *
 * @module
 */

import { parseFormat } from "../../src/guardrails/redact/formats.ts";
import { PROVIDER_FORMATS } from "../../src/guardrails/redact/providers.ts";
import { CONTEXTS, prng, randomChars, sampleOf } from "./redact_samples.ts";

/** One generated text and the secret it holds (none for a look-alike). */
export interface CorpusItem {
  readonly family: string;
  readonly context: string;
  readonly text: string;
  readonly secret: string | undefined;
}

/**
 * Families whose tokens have no distinctive prefix: found by the key they
 * sit under, written as each provider's documentation names it.
 */
export const KEYED_FAMILIES: readonly { family: string; key: string; format: string }[] = [
  { family: "AWS secret access key", key: "AWS_SECRET_ACCESS_KEY", format: "{B:40}" },
  { family: "AWS session token", key: "AWS_SESSION_TOKEN", format: "{B:200,300}" },
  { family: "Datadog", key: "DATADOG_API_KEY", format: "{h:32}" },
  { family: "Datadog app", key: "DD_APP_KEY", format: "{h:40}" },
  { family: "Heroku (legacy)", key: "HEROKU_API_KEY", format: "{h:8}-{h:4}-{h:4}-{h:4}-{h:12}" },
  { family: "Twilio auth token", key: "TWILIO_AUTH_TOKEN", format: "{h:32}" },
  { family: "Algolia", key: "ALGOLIA_ADMIN_KEY", format: "{h:32}" },
  { family: "Okta", key: "OKTA_API_TOKEN", format: "00{b:40}" },
  { family: "Cloudflare", key: "CLOUDFLARE_API_TOKEN", format: "{b:40}" },
  { family: "Cloudflare global key", key: "CF_API_KEY", format: "{h:37}" },
  { family: "Azure Storage", key: "AZURE_STORAGE_KEY", format: "{B:86}==" },
  { family: "Azure DevOps", key: "AZURE_DEVOPS_PAT", format: "{2:52}" },
  { family: "Snyk", key: "SNYK_TOKEN", format: "{h:8}-{h:4}-{h:4}-{h:4}-{h:12}" },
  { family: "Codecov", key: "CODECOV_TOKEN", format: "{h:8}-{h:4}-{h:4}-{h:4}-{h:12}" },
  { family: "PagerDuty", key: "PAGERDUTY_TOKEN", format: "{b:20}" },
  { family: "Vercel", key: "VERCEL_TOKEN", format: "{A:24}" },
  { family: "Fastly", key: "FASTLY_API_TOKEN", format: "{b:32}" },
  { family: "Zendesk", key: "ZENDESK_API_TOKEN", format: "{A:40}" },
  { family: "Intercom", key: "INTERCOM_ACCESS_TOKEN", format: "{b:60}" },
  { family: "Pusher", key: "PUSHER_APP_SECRET", format: "{h:20}" },
  { family: "Segment", key: "SEGMENT_WRITE_KEY", format: "{A:32}" },
  { family: "Mixpanel", key: "MIXPANEL_API_SECRET", format: "{h:32}" },
  { family: "Rollbar", key: "ROLLBAR_ACCESS_TOKEN", format: "{h:32}" },
  { family: "Bugsnag", key: "BUGSNAG_API_KEY", format: "{h:32}" },
  { family: "Honeycomb", key: "HONEYCOMB_API_KEY", format: "{A:22}" },
  { family: "Sumo Logic", key: "SUMO_ACCESS_KEY", format: "{A:64}" },
  { family: "Auth0", key: "AUTH0_CLIENT_SECRET", format: "{b:64}" },
  { family: "Postmark", key: "POSTMARK_SERVER_TOKEN", format: "{h:8}-{h:4}-{h:4}-{h:4}-{h:12}" },
  { family: "Confluent", key: "CONFLUENT_API_SECRET", format: "{A:64}" },
  {
    family: "MongoDB Atlas",
    key: "MONGODB_ATLAS_PRIVATE_KEY",
    format: "{h:8}-{h:4}-{h:4}-{h:4}-{h:12}",
  },
  { family: "Looker", key: "LOOKER_CLIENT_SECRET", format: "{A:24}" },
  { family: "Twitch", key: "TWITCH_CLIENT_SECRET", format: "{a:30}" },
  { family: "Zoom", key: "ZOOM_CLIENT_SECRET", format: "{A:32}" },
  { family: "Dropbox app", key: "DROPBOX_APP_SECRET", format: "{a:15}" },
  { family: "Mapbox (legacy)", key: "MAPBOX_ACCESS_TOKEN", format: "{A:60}" },
  { family: "Database password", key: "DATABASE_PASSWORD", format: "{A:12,20}" },
  { family: "Redis password", key: "REDIS_PASSWORD", format: "{A:16,32}" },
  { family: "Session secret", key: "SESSION_SECRET", format: "{h:64}" },
  { family: "JWT secret", key: "JWT_SECRET", format: "{A:32,48}" },
  { family: "Webhook signing secret", key: "WEBHOOK_SIGNING_SECRET", format: "{B:44}" },
];

/** Spellings of a key: `DATADOG_API_KEY`, `datadog_api_key`, `datadogApiKey`, `datadog-api-key`. */
function spellings(key: string): [env: string, snake: string, camel: string, kebab: string] {
  const snake = key.toLowerCase();
  const camel = snake.replace(/_([a-z0-9])/gu, (_, c: string) => c.toUpperCase());
  return [key, snake, camel, snake.replaceAll("_", "-")];
}

/** The contexts a keyed secret is tried in. */
const KEYED_CONTEXTS: Readonly<
  Record<string, (key: string, value: string, family: string) => string>
> = {
  env: (key, v) => `${spellings(key)[0]}=${v}`,
  envQuoted: (key, v) => `export ${spellings(key)[0]}='${v}'`,
  json: (key, v) => JSON.stringify({ service: "billing", [spellings(key)[1]]: v, retries: 3 }),
  jsonCamel: (key, v) => JSON.stringify({ config: { [spellings(key)[2]]: v } }),
  yaml: (key, v) => `billing:\n  ${spellings(key)[1]}: ${v}\n  retries: 3`,
  header: (key, v) => `X-${spellings(key)[3]}: ${v}\r\nAccept: application/json`,
  cli: (key, v) => `$ deploy --${spellings(key)[3]} ${v} --region eu-west-1`,
  cliEquals: (key, v) => `$ deploy --${spellings(key)[3]}=${v}`,
  log: (key, v) => `07:30:00 WARN config loaded ${spellings(key)[1]}=${v} from environment`,
  prose: (key, v) => `The ${spellings(key)[1].replaceAll("_", " ")} is ${v} for staging.`,
};

/** Real-format secrets: every provider format in every context, and every keyed family in its. */
export function secretCorpus(seed = 12, perFormat = 2): CorpusItem[] {
  const random = prng(seed);
  const items: CorpusItem[] = [];
  for (const row of PROVIDER_FORMATS) {
    const parsed = parseFormat(row.format);
    for (let round = 0; round < perFormat; round++) {
      const sample = sampleOf(parsed, random);
      for (const [context, wrap] of Object.entries(CONTEXTS)) {
        items.push({ family: row.family, context, text: wrap(sample.text), secret: sample.secret });
      }
    }
  }
  for (const { family, key, format } of KEYED_FAMILIES) {
    const parsed = parseFormat(format);
    for (let round = 0; round < perFormat; round++) {
      const sample = sampleOf(parsed, random);
      for (const [context, wrap] of Object.entries(KEYED_CONTEXTS)) {
        items.push({
          family,
          context,
          text: wrap(key, sample.text, family),
          secret: sample.secret,
        });
      }
    }
  }
  return items;
}

const WORDS = (
  "the order shipped on time and the invoice was paid after a short review of the account " +
  "history by our support team who checked every item twice before closing the ticket"
).split(" ");

function sentence(random: () => number, words: number): string {
  return Array.from({ length: words }, () => WORDS[Math.floor(random() * WORDS.length)]).join(" ");
}

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Look-alikes: what ordinary traffic holds that resembles a secret. */
function lookalikes(random: () => number): [kind: string, value: string][] {
  const hex = (n: number): string => randomChars(random, "0123456789abcdef", n);
  const uuid = (): string => `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
  const image = new Uint8Array(300 + Math.floor(random() * 900));
  image.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  for (let index = 8; index < image.length; index++) image[index] = Math.floor(random() * 256);
  const text = new TextEncoder().encode(sentence(random, 6 + Math.floor(random() * 30)));
  const major = Math.floor(random() * 20);
  return [
    ["uuid", uuid()],
    ["git sha", hex(40)],
    ["short sha", hex(7 + Math.floor(random() * 6))],
    ["sha256", hex(64)],
    ["docker digest", `sha256:${hex(64)}`],
    ["md5", hex(32)],
    ["sha512", hex(128)],
    ["base64 text", base64(text)],
    ["base64 image", base64(image)],
    ["data url", `data:image/png;base64,${base64(image.subarray(0, 120))}`],
    ["semver", `${major}.${Math.floor(random() * 30)}.${Math.floor(random() * 99)}`],
    ["semver pre", `v${major}.0.0-rc.${Math.floor(random() * 9)}+build.${hex(7)}`],
    ["order id", `ORD-${Math.floor(random() * 1e6)}`],
    ["snowflake id", String(Math.floor(random() * 9e17) + 1e17)],
    ["object id", hex(24)],
    ["ulid", randomChars(random, "0123456789ABCDEFGHJKMNPQRSTVWXYZ", 26)],
    [
      "nanoid",
      randomChars(random, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-", 21),
    ],
    [
      "stripe customer",
      `cus_${
        randomChars(random, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 14)
      }`,
    ],
    ["pod name", `web-${hex(10)}-${randomChars(random, "bcdfghjklmnpqrstvwxz2456789", 5)}`],
    ["url", `https://shop.example.com/orders/${Math.floor(random() * 1e5)}?page=2&sort=desc#top`],
    ["url user", `ssh://git@git.example.com:2222/team/app-${hex(4)}.git`],
    ["url port", `postgres://db.internal:5432/app_${hex(4)}`],
    ["path", `/var/lib/app/releases/${hex(12)}/bin/server`],
    ["timestamp", new Date(1.7e12 + Math.floor(random() * 1e11)).toISOString()],
  ];
}

/** Prose, code and placeholders around the words "session", "token", "password", "key". */
export const PROSE_LOOKALIKES: readonly string[] = [
  "Session: Opening keynote, Hall A",
  "Session: Closing panel, Room 204",
  "Token: the smallest unit of text a model reads",
  "Password: must be at least 12 characters long",
  "password: required",
  "Reset your password: click the link we sent",
  "token: expired",
  "session: 2",
  "The password field is required; the token field is optional.",
  "API key: see the dashboard",
  "Secret: none of this is secret",
  "tokens_used=1200, token_count: 3, max_tokens: 4096",
  "const token = await getToken(user);",
  "password: process.env.DB_PASSWORD,",
  "if (session.token === undefined) return;",
  "headers: { Authorization: `Bearer ${token}` }",
  "self.password = password",
  "def login(password: str) -> bool:",
  'token := os.Getenv("TOKEN")',
  "let apiKey: string | undefined = config.apiKey;",
  "password = hash(password + salt)",
  "GITHUB_TOKEN=${GITHUB_TOKEN}",
  "OPENAI_API_KEY=<YOUR_KEY>",
  "API_KEY=${API_KEY}",
  "export STRIPE_SECRET_KEY=$STRIPE_SECRET_KEY",
  "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
  "token: ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
  "use sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx in the example",
  "password: ********",
  "SLACK_BOT_TOKEN=xoxb-your-token-here",
  "Bearer authentication is described in RFC 6750",
  "do not shoot the bearer of bad news",
  "The session key pillars: listen, learn, lead.",
  "Key: value pairs are separated by commas.",
  "cache key user_42_profile_v3 evicted",
  "primary key orders_2024_06 rebuilt",
  "the key s3://bucket/path/file_2024.csv was uploaded",
  "object key uploads/2024/06/18/photo_001.jpg",
  "idempotency key 550e8400-e29b-41d4-a716-446655440000 reused",
  "The token count for model gpt-4o-2024-08-06 was 1200",
  "secret santa list_2024_final.xlsx",
  "auth service v2.3.1-beta.4 started",
  "partition key tenant-7f3a9c build 2024.06.18",
  "cache_key=user_42_profile_v3 ttl=300",
  "Set-Cookie: theme=dark; Path=/; Max-Age=3600",
  "secret: !Ref DbSecret",
  "password: <%= ENV['DB_PASSWORD'] %>",
  "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}",
  "token = jwt.encode(payload, SECRET_KEY, algorithm='HS256')",
  "password: Joi.string().min(8).required(),",
  "--password-file /run/secrets/db --token-ttl 3600",
  "passwordless login is enabled: true",
  "Token expiry: 2024-06-18T09:30:00Z",
];

/** Look-alikes in every context, and the prose list as it is. */
export function lookalikeCorpus(seed = 34, rounds = 12): CorpusItem[] {
  const random = prng(seed);
  const items: CorpusItem[] = [];
  const contexts: Readonly<Record<string, (value: string) => string>> = {
    prose: (v) => `Build ${sentence(random, 3)} ${v} ${sentence(random, 4)}.`,
    log: (v) => `2026-12-03T07:30:00Z INFO request_id=${v} status=200 duration_ms=35`,
    json: (v) => JSON.stringify({ id: 42, ref: v, note: sentence(random, 5) }),
    env: (v) => `BUILD_REF=${v}`,
    yaml: (v) => `release:\n  ref: ${v}\n  notes: ${sentence(random, 4)}`,
    header: (v) => `X-Request-Id: ${v}`,
  };
  for (let round = 0; round < rounds; round++) {
    for (const [kind, value] of lookalikes(random)) {
      for (const [context, wrap] of Object.entries(contexts)) {
        items.push({ family: kind, context, text: wrap(value), secret: undefined });
      }
    }
  }
  for (const text of PROSE_LOOKALIKES) {
    items.push({ family: "prose", context: "prose", text, secret: undefined });
  }
  return items;
}
