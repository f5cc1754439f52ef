/**
 * The provider table: every token format the `providers` presets know,
 * written from each provider's published token format (prefix, length,
 * alphabet). Each row is one format; a provider family may have several.
 *
 * A row is matched where its prefix starts a word, so a format must begin
 * with a literal; formats whose distinctive literal sits inside the token
 * (Azure AD's `Q~`, Telegram's `:AA`) name it as `anchor`. `weak` marks a
 * prefix common enough in ordinary text that the rest must also look random.
 *
 * @module
 */

/** The preset a provider row belongs to. */
export type ProviderPreset = "aws" | "github" | "slack" | "openai" | "anthropic" | "providers";

/** One token format of one provider. */
export interface ProviderFormat {
  /** The provider family, as people name it ("GitHub", "Stripe"). */
  readonly family: string;
  /** A unique id, `family-kind`. */
  readonly id: string;
  /** The format, see `formats.ts`. */
  readonly format: string;
  /** The built-in preset that turns it on. */
  readonly preset: ProviderPreset;
  /** A literal inside the token that finds it when the token has no fixed prefix. */
  readonly anchor?: string;
  /** Whether the random part must also look random (the prefix alone is too common). */
  readonly weak?: boolean;
  /** A word the token may follow with no break (`bot` in Telegram's `…/bot123:AA…` URLs). */
  readonly glued?: string;
}

type Row = [
  family: string,
  kind: string,
  format: string,
  options?: { anchor?: string; weak?: boolean; glued?: string },
];

const UUID = "{h:8}-{h:4}-{h:4}-{h:4}-{h:12}";
const ALNUM_UUID = "{a:8}-{a:4}-{a:4}-{a:4}-{a:12}";
const PRESETS: Readonly<Record<string, ProviderPreset>> = {
  AWS: "aws",
  GitHub: "github",
  Slack: "slack",
  OpenAI: "openai",
  Anthropic: "anthropic",
};

const ROWS: readonly Row[] = [
  ...["AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "APKA"].map(
    (prefix): Row => ["AWS", `key-id-${prefix.toLowerCase()}`, `${prefix}{U:16}`],
  ),
  ["AWS", "key-id-a3t", "A3T{U:17}"],
  ["AWS", "bedrock-long-term", "ABSK{B:100,400}{=:0,2}"],
  ["AWS", "bedrock-short-term", "bedrock-api-key-{B:100,2000}{=:0,2}"],
  ...["ghp", "gho", "ghu", "ghs", "ghr"].map((p): Row => ["GitHub", p, `${p}_{A:36,255}`]),
  ["GitHub", "fine-grained-pat", "github_pat_{A:22}_{A:59}"],
  ["GitHub", "fine-grained-pat-any", "github_pat_{w:82}"],
  // Routable tokens first: the plain formats would take their first 80 characters alone.
  ["GitLab", "pat-routable", "glpat-{b:27,300}.{a:9}"],
  ["GitLab", "runner-routable", "glrt-t{d:1}_{b:27,300}.{a:9}"],
  ["GitLab", "pat", "glpat-{b:20,80}"],
  ["GitLab", "deploy-token", "gldt-{b:20,80}"],
  ["GitLab", "pipeline-trigger", "glptt-{h:40}"],
  ["GitLab", "runner", "glrt-{b:20,80}"],
  ["GitLab", "runner-registration", "GR1348941{b:20,40}"],
  ["GitLab", "ci-build", "glcbt-{A:1,5}_{b:20,40}"],
  ["GitLab", "oauth-secret", "gloas-{b:64}"],
  ["GitLab", "scim", "glsoat-{b:20,80}"],
  ["GitLab", "feed", "glft-{b:20,80}"],
  ["GitLab", "incoming-mail", "glimt-{b:25,40}"],
  ["GitLab", "agent", "glagent-{b:50,80}"],
  ["GitLab", "feature-flags", "glffct-{b:20,80}"],
  ["Slack", "bot", "xoxb-{d:10,13}-{d:10,13}-{A:24,34}"],
  ["Slack", "user", "xoxp-{d:10,13}-{d:10,13}-{d:10,13}-{h:32,64}"],
  ["Slack", "workspace", "xoxa-{d:1,2}-{b:20,255}"],
  ["Slack", "refresh-legacy", "xoxr-{b:20,255}"],
  ["Slack", "session", "xoxs-{b:20,255}"],
  ["Slack", "config", "xoxe.xox{L:1}-{d:1}-{A:100,255}"],
  ["Slack", "refresh", "xoxe-{d:1}-{A:100,255}"],
  ["Slack", "app", "xapp-{d:1}-{U:9,12}-{d:10,13}-{h:64}"],
  ["Slack", "webhook", "hooks.slack.com/services/|T{U:8,12}/B{U:8,12}/{A:24}"],
  ["Slack", "webhook-any", "hooks.slack.com/services/|{B:43,56}"],
  ["Slack", "workflow-any", "hooks.slack.com/workflows/|{B:43,56}"],
  ["Slack", "trigger-any", "hooks.slack.com/triggers/|{B:43,56}"],
  ["Slack", "bot-any", "xoxb-{d:10,13}-{d:10,13}{b:0,60}"],
  ["Slack", "bot-legacy", "xoxb-{d:8,14}-{A:18,26}"],
  ["Slack", "workspace-legacy", "xoxa-{d:1}-{A:8,48}"],
  ["Slack", "workspace-short", "xoxa-{A:8,48}"],
  ["Slack", "refresh-short", "xoxr-{d:1}-{A:8,48}"],
  ["Slack", "refresh-bare", "xoxr-{A:8,48}"],
  ["Slack", "session-legacy", "xoxs-{d:1,13}-{d:1,13}-{d:1,13}-{x:1,64}"],
  ["Slack", "legacy-numbered", "xoxo-{d:1,13}-{d:1,13}-{d:1,13}-{x:1,64}"],
  ["Slack", "config-user", "xoxe-{d:10,13}-{d:10,13}-{d:10,13}-{b:28,34}"],
  ["Slack", "user-any", "xoxp-{d:10,13}-{d:10,13}{b:0,80}"],
  ["Slack", "legacy-any", "xoxo-{d:1,13}-{b:10,80}"],
  ["Slack", "app-any", "xapp-{d:1}-{b:10,120}"],
  ["Slack", "workflow-webhook", "hooks.slack.com/workflows/|T{U:8,12}/A{U:8,12}/{d:17,20}/{A:24}"],
  ["OpenAI", "project", "sk-proj-{b:40,300}"],
  ["OpenAI", "service-account", "sk-svcacct-{b:40,300}"],
  ["OpenAI", "admin", "sk-admin-{b:40,300}"],
  ["OpenAI", "legacy", "sk-{A:20}T3BlbkFJ{A:20}"],
  ["OpenAI", "key", "sk-{b:32,200}", { weak: true }],
  ["Anthropic", "api", "sk-ant-api03-{b:93}AA"],
  ["Anthropic", "admin", "sk-ant-admin01-{b:93}AA"],
  ["Anthropic", "key", "sk-ant-{b:32,200}"],
  ["Google", "api-key", "AIza{b:35}"],
  ["Google", "oauth-client-secret", "GOCSPX-{b:28}"],
  ["Google", "oauth-access-token", "ya29.{b:30,400}"],
  ["Google", "oauth-refresh-token", "1//0{b:40,200}"],
  ["Firebase", "cloud-messaging", "AAAA{b:7}:APA91b{b:134}"],
  ["Stripe", "secret", "sk_live_{A:10,247}"],
  ["Stripe", "secret-test", "sk_test_{A:10,247}"],
  ["Stripe", "secret-prod", "sk_prod_{A:10,247}"],
  ["Stripe", "restricted-prod", "rk_prod_{A:10,247}"],
  ["Stripe", "restricted", "rk_live_{A:10,247}"],
  ["Stripe", "restricted-test", "rk_test_{A:10,247}"],
  ["Stripe", "webhook-secret", "whsec_{A:32,88}"],
  ["Azure AD", "client-secret", "{z:3}{d:1}Q~{z:31,34}", { anchor: "Q~" }],
  ["Hugging Face", "user", "hf_{L:34}"],
  ["Hugging Face", "org", "api_org_{L:34}"],
  ["npm", "token", "npm_{A:36}"],
  ["PyPI", "token", "pypi-AgEIcHlwaS5vcmc{b:50,1000}"],
  ["PyPI", "test-token", "pypi-AgENdGVzdC5weXBpLm9yZw{b:50,400}"],
  ["Twilio", "api-key", "SK{x:32}", { weak: true }],
  ["SendGrid", "api-key", "SG.{b:22}.{b:43}"],
  ["SendGrid", "api-key-any", "SG.{q:66}"],
  ...["shpat", "shpca", "shppa", "shpss"].map((p): Row => ["Shopify", p, `${p}_{x:32}`]),
  ["Telegram", "bot", "{d:5,16}:A{b:33,35}", { anchor: ":A", glued: "bot" }],
  ...["MT", "Mj", "Mz", "ND", "NT", "Nj", "Nz", "OD", "OT"].map(
    (
      p,
    ): Row => ["Discord", `bot-${p.toLowerCase()}`, `${p}{b:22,24}.{b:6}.{b:27,38}`, {
      weak: true,
    }],
  ),
  ["Discord", "webhook", "discord.com/api/webhooks/|{d:17,20}/{b:68}"],
  ["Discord", "webhook-legacy", "discordapp.com/api/webhooks/|{d:17,20}/{b:68}"],
  ["DigitalOcean", "pat", "dop_v1_{h:64}"],
  ["DigitalOcean", "oauth", "doo_v1_{h:64}"],
  ["DigitalOcean", "refresh", "dor_v1_{h:64}"],
  ["HashiCorp Vault", "service", "hvs.{b:24,400}"],
  ["HashiCorp Vault", "batch", "hvb.{b:24,400}"],
  ["HashiCorp Vault", "recovery", "hvr.{b:24,400}"],
  ["Terraform Cloud", "api", "{A:14}.atlasv1.{e:60,70}", { anchor: ".atlasv1." }],
  ["Databricks", "pat", "dapi{h:32}"],
  ["Sentry", "org", "sntrys_eyJ{s:60,600}"],
  ["Sentry", "user", "sntryu_{h:64}"],
  ["New Relic", "user", "NRAK-{A:27}"],
  ["New Relic", "admin", "NRAA-{x:27}"],
  ["New Relic", "browser", "NRJS-{h:19}"],
  ["New Relic", "insert", "NRII-{b:32}"],
  ["New Relic", "license", "{h:36}NRAL", { anchor: "NRAL" }],
  ["Grafana", "cloud", "glc_{B:32,400}{=:0,2}"],
  ["Grafana", "service-account", "glsa_{A:32}_{x:8}"],
  ["Grafana", "api-key", "eyJrIjoi{B:70,400}{=:0,2}"],
  ["Notion", "integration", "secret_{A:43}", { weak: true }],
  ["Notion", "token", "ntn_{d:11}{A:35}"],
  ["Linear", "api", "lin_api_{A:40}"],
  ["Linear", "oauth", "lin_oauth_{h:64}"],
  ["Heroku", "api", "HRKU-AA{b:58}"],
  ["1Password", "service-account", "ops_eyJ{B:250,1500}{=:0,3}"],
  ["1Password", "secret-key", "A3-{U:6}-{U:11}-{U:5}-{U:5}-{U:5}"],
  ["1Password", "secret-key-split", "A3-{U:6}-{U:6}-{U:5}-{U:5}-{U:5}-{U:5}"],
  ["Atlassian", "api", "ATATT3{e:150,250}"],
  ["Bitbucket", "app-password", "ATBB{A:28,40}"],
  ["Postman", "api", "PMAK-{h:24}-{h:34}"],
  ["Pulumi", "access", "pul-{h:40}"],
  ...["pt", "st", "ct", "sa", "scim", "audit"].map(
    (p): Row => ["Doppler", p, `dp.${p}.{A:40,44}`],
  ),
  ["Mailgun", "api", "key-{h:32}", { weak: true }],
  ["Mailgun", "public", "pubkey-{h:32}"],
  ["Mailchimp", "api", "{h:32}-us{d:1,2}", { anchor: "-us" }],
  ["Square", "access", "sq0atp-{b:22,60}"],
  ["Square", "oauth-secret", "sq0csp-{b:43}"],
  ["Square", "access-v2", "EAAA{b:22,60}"],
  ["Braintree", "production", "access_token$production${a:16}${h:32}"],
  ["Braintree", "sandbox", "access_token$sandbox${a:16}${h:32}"],
  ["Meta", "access", "EAA{A:90,300}", { weak: true }],
  ["X (Twitter)", "bearer", "AAAAAAAAAAAAAAAAAAAAA{p:80,150}"],
  ["Dropbox", "short-lived", "sl.{e:130,1400}"],
  ["Dropbox", "long-lived", "{A:11}AAAAAAAAAA{b:43}", { anchor: "AAAAAAAAAA" }],
  ["Adobe", "client-secret", "p8e-{A:32}", { weak: true }],
  ["age", "secret-key", "AGE-SECRET-KEY-1{g:58}"],
  ["Alibaba Cloud", "access-key-id", "LTAI{A:20}", { weak: true }],
  ["Tencent Cloud", "secret-id", "AKID{A:32}", { weak: true }],
  ["Yandex Cloud", "api-key", "AQVN{b:35,38}"],
  ["Yandex", "oauth", "y0_{b:55}"],
  ["Yandex Cloud", "access-key", "YC{b:38}", { weak: true }],
  ["Yandex Cloud", "iam-token", "t1.{b:40,400}"],
  ["Airtable", "pat", "pat{A:14}.{h:64}"],
  ["Contentful", "pat", "CFPAT-{b:43}"],
  ["Clojars", "deploy", "CLOJARS_{A:60}"],
  ["Cloudflare", "origin-ca", "v1.0-{h:24}-{h:146}"],
  ["Defined Networking", "api", "dnkey-{e:26}-{e:52}"],
  ["Dynatrace", "api", "dt0c01.{A:24}.{A:64}"],
  ["EasyPost", "production", "EZAK{A:54}"],
  ["EasyPost", "test", "EZTK{A:54}"],
  ["Flutterwave", "secret", "FLWSECK-{a:32}-X"],
  ["Flutterwave", "secret-test", "FLWSECK_TEST-{a:32}-X"],
  ["Flutterwave", "public-test", "FLWPUBK_TEST-{a:32}-X"],
  ["Flutterwave", "encryption-test", "FLWSECK_TEST{a:12}"],
  ["Flutterwave", "encryption-test-dash", "FLWSECK_TEST-{a:12}"],
  ["Frame.io", "api", "fio-u-{e:64}"],
  ["GoCardless", "live", "live_{e:40}", { weak: true }],
  ["Harness", "pat", "pat.{b:22}.{A:24}.{A:20}"],
  ["Harness", "service-account", "sat.{b:22}.{A:24}.{A:20}"],
  ["HubSpot", "pat-na", `pat-na1-${UUID}`],
  ["HubSpot", "pat-eu", `pat-eu1-${UUID}`],
  ["LaunchDarkly", "api", `api-${UUID}`],
  ["LaunchDarkly", "sdk", `sdk-${UUID}`],
  ["LaunchDarkly", "mobile", `mob-${UUID}`],
  ["Mapbox", "secret", "sk.eyJ{b:50,200}.{b:22}"],
  ["Netlify", "pat", "nfp_{A:36,40}"],
  ["Perplexity", "api", "pplx-{A:48}"],
  ["Groq", "api", "gsk_{A:52}"],
  ["xAI", "api", "xai-{A:80}"],
  ["Replicate", "api", "r8_{A:37}"],
  ["OpenRouter", "api", "sk-or-v1-{h:64}"],
  ["Fireworks AI", "api", "fw_{A:24}", { weak: true }],
  ["LangSmith", "pat", "lsv2_pt_{h:32}_{h:10}"],
  ["LangSmith", "service", "lsv2_sk_{h:32}_{h:10}"],
  ["Pinecone", "api", "pcsk_{A:5,6}_{A:60,70}"],
  ["ElevenLabs", "api", "sk_{h:48}", { weak: true }],
  ["PlanetScale", "token", "pscale_tkn_{q:32,64}"],
  ["PlanetScale", "password", "pscale_pw_{q:32,64}"],
  ["PlanetScale", "oauth", "pscale_oauth_{q:32,64}"],
  ["Prefect", "api", "pnu_{A:36}"],
  ["ReadMe", "api", "rdme_{a:70}"],
  ["RubyGems", "api", "rubygems_{h:48}"],
  ["Scalingo", "api", "tk-us-{b:48}"],
  ["Brevo", "api", "xkeysib-{h:64}-{A:16}"],
  ["Brevo", "smtp", "xsmtpsib-{h:64}-{A:16}"],
  ["Shippo", "live", "shippo_live_{x:40}"],
  ["Shippo", "test", "shippo_test_{x:40}"],
  ["Sourcegraph", "access", "sgp_{x:40}"],
  ["Sourcegraph", "instance", "sgp_{x:16}_{x:40}"],
  ["Sourcegraph", "local", "sgp_local_{x:40}"],
  ["Typeform", "pat", "tfp_{q:44,59}"],
  ["Supabase", "pat", "sbp_{h:40}"],
  ["Supabase", "secret", "sb_secret_{b:31,64}"],
  ["Render", "api", "rnd_{A:32}"],
  ["Fly.io", "org", "fo1_{b:43}"],
  ["Fly.io", "macaroon", "fm2_{s:100,1500}"],
  ["Fly.io", "macaroon-v1-read", "fm1r_{B:100,1500}{=:0,3}"],
  ["Fly.io", "macaroon-v1-all", "fm1a_{B:100,1500}{=:0,3}"],
  ["Neon", "api", "napi_{a:64}"],
  ["Docker", "pat", "dckr_pat_{b:27}"],
  ["Docker", "org", "dckr_oat_{b:32}"],
  ["JFrog", "api", "AKCp{A:69}"],
  ["JFrog", "reference", "cmVmdGtuOjAxOj{A:50,70}"],
  ["CircleCI", "personal", "CCIPAT_{A:22}_{h:40}"],
  ["CircleCI", "project", "CCIPRJ_{A:22}_{h:40}"],
  ["Buildkite", "api", "bkua_{h:40}"],
  ["ClickHouse", "cloud-secret", "4b1d{A:38}", { weak: true }],
  ...["sc", "ext", "scauth", "authress"].map(
    (p): Row => ["Authress", `service-${p}`, `${p}_{a:5,30}.{a:4,6}.acc{k:1}{n:10,32}.{s:30,120}`],
  ),
  ["Octopus Deploy", "api", "API-{U:26,32}", { weak: true }],
  ...["api", "auth", "client", "webhook", "scim"].map(
    (p): Row => ["Tailscale", p, `tskey-${p}-{A:10,16}-{A:20,40}`],
  ),
  ["Salesforce", "access", "00D{A:12,15}!{f:90,120}", { weak: true }],
  ["WooCommerce", "consumer-key", "ck_{h:40}", { weak: true }],
  ["WooCommerce", "consumer-secret", "cs_{h:40}", { weak: true }],
  ["Razorpay", "live", "rzp_live_{A:14}"],
  ["Razorpay", "test", "rzp_test_{A:14}"],
  ...["production", "development", "sandbox"].map(
    (p): Row => ["Plaid", p, `access-${p}-${UUID}`],
  ),
  ["Duffel", "live", "duffel_live_{e:43}"],
  ["Duffel", "test", "duffel_test_{e:43}"],
  ["Infracost", "api", "ico-{A:32}"],
  ["NuGet", "api", "oy2{a:43}", { weak: true }],
  ["SonarQube", "user", "squ_{h:40}"],
  ["SonarQube", "project", "sqp_{h:40}"],
  ["SonarQube", "analysis", "sqa_{h:40}"],
  ["MaxMind", "license", "{A:6}_{A:29}_mmk", { anchor: "_mmk" }],
  ["OpenShift", "user", "sha256~{b:43}"],
  ["Ubidots", "api", "BBFF-{A:30}"],
  ["SettleMint", "pat", "sm_pat_{A:16}"],
  ["SettleMint", "app", "sm_aat_{A:16}"],
  ["SettleMint", "service", "sm_sat_{A:16}"],
  ["42 Intra", "client-secret", "s-s4t2ud-{h:64}"],
  ["42 Intra", "app-secret", "s-s4t2af-{h:64}"],
  ["Beamer", "api", "b_{e:44}", { weak: true }],
  [
    "Microsoft Teams",
    "webhook",
    `webhook.office.com/webhookb2/|${ALNUM_UUID}@${ALNUM_UUID}/IncomingWebhook/{a:32}/${ALNUM_UUID}`,
  ],
  ["Figma", "pat", "figd_{b:40,43}"],
  ["MailerSend", "api", "mlsn.{h:64}"],
  ["Resend", "api", "re_{A:8}_{A:24}", { weak: true }],
  ["Lob", "live", "live_{h:35}", { weak: true }],
  ["Lob", "test", "test_{h:35}", { weak: true }],
  ["Lob", "live-public", "live_pub_{h:31}"],
  ["Lob", "test-public", "test_pub_{h:31}"],
  ["JSON Web Token", "base64", "ZXlK{B:40,4000}{=:0,2}", { weak: true }],
];

/**
 * Every provider token format, in table order.
 *
 * @example
 * ```ts ignore
 * console.assert(PROVIDER_FORMATS.some((row) => row.family === "Stripe"));
 * ```
 */
export const PROVIDER_FORMATS: readonly ProviderFormat[] = Object.freeze(
  ROWS.map(
    ([family, kind, format, options]): ProviderFormat => {
      const row: ProviderFormat = {
        family,
        id: `${family.toLowerCase().replace(/[^a-z0-9]+/gu, "-")}-${kind}`,
        format,
        preset: PRESETS[family] ?? "providers",
        ...(options?.anchor === undefined ? {} : { anchor: options.anchor }),
        ...(options?.weak === undefined ? {} : { weak: options.weak }),
        ...(options?.glued === undefined ? {} : { glued: options.glued }),
      };
      return Object.freeze(row);
    },
  ),
);
