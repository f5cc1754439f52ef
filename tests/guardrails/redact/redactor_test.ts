import assert from "node:assert/strict";
import {
  compileRedactor,
  type Redactor,
  redactText,
} from "../../../src/guardrails/redact/engine.ts";
import { redactContent, redactValue } from "../../../src/guardrails/redact/value.ts";
import { REDACT_PRESETS, type RedactPreset } from "../../../src/guardrails/redact/presets.ts";

const M = "[REDACTED]";

// Fabricated secrets in the right formats; none of them is real.
const GHP = "ghp_R8mZ2kQ7vX4nB1cT6yH3jW9pL5sD0fGaE2uK";
const GHO = "gho_4nB1cT6yH3jW9pL5sD0fGaE2uKR8mZ2kQ7vX";
const PAT =
  "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";
const JWT =
  "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyLTQyIiwiZXhwIjoxNzE4NzAwMDAwfQ.c2lnbmF0dXJlLWZha2U";
const RSA_KEY = [
  "-----BEGIN RSA PRIVATE KEY-----",
  "MIIEowIBAAKCAQEAfakefakefakefakefakefake",
  "ZmFrZSBrZXkgbWF0ZXJpYWwgZm9yIHRlc3Rz",
  "-----END RSA PRIVATE KEY-----",
].join("\n");
const OPENSSH_KEY = [
  "-----BEGIN OPENSSH PRIVATE KEY-----",
  "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
  "-----END OPENSSH PRIVATE KEY-----",
].join("\n");
const LEGACY_EC_KEY = [
  "-----BEGIN EC PRIVATE KEY-----",
  "Proc-Type: 4,ENCRYPTED",
  "DEK-Info: AES-128-CBC,0123456789ABCDEF0123456789ABCDEF",
  "",
  "MHcCAQEEIFakeKeyMaterialForTestsOnly",
  "-----END EC PRIVATE KEY-----",
].join("\n");

interface Sample {
  preset: RedactPreset;
  text: string;
  expected: string;
}

const SAMPLES: Sample[] = [
  {
    preset: "aws",
    text: "export AWS_ACCESS_KEY_ID=AKIAZ3MQ7Q2WXY4RT5UV\n",
    expected: `export AWS_ACCESS_KEY_ID=${M}\n`,
  },
  { preset: "aws", text: "key ASIA4KQ7ZR2MWX9PLT3B expires", expected: `key ${M} expires` },
  {
    preset: "aws",
    text: "aws_secret_access_key = Fk3/9sd8Qw+Ejq0LmZx7TnVb2YcR5uHa1KpWe6Gi\nregion = eu-west-1",
    expected: `aws_secret_access_key = ${M}\nregion = eu-west-1`,
  },
  {
    preset: "github",
    text: `git remote add origin https://x-access-token:${GHP}@github.com/acme/app`,
    expected: `git remote add origin https://x-access-token:${M}@github.com/acme/app`,
  },
  { preset: "github", text: `{"oauth": "${GHO}"}`, expected: `{"oauth": "${M}"}` },
  { preset: "github", text: `GH_TOKEN=${PAT} make`, expected: `GH_TOKEN=${M} make` },
  {
    preset: "slack",
    text: "SLACK_BOT=xoxb-2048173645-4096817263-AbCdEfGhIjKlMnOpQrStUvWx",
    expected: `SLACK_BOT=${M}`,
  },
  {
    preset: "slack",
    text: "user token xoxp-1111222233-4444555566-7777888899-0a1b2c3d4e5f60718f2e9d3c4b5a6978 ok",
    expected: `user token ${M} ok`,
  },
  {
    preset: "slack",
    text:
      "post to https://hooks.slack.com/services/T01ABCDEF/B02GHIJKL/aBcDeFgHiJkLmNoPqRsTuVwX now",
    expected: `post to https://hooks.slack.com/services/${M} now`,
  },
  {
    preset: "openai",
    text: "OPENAI_API_KEY=sk-T3BlbkFJx9Qm2Lr8Vw4Zc7Ny1Ke5Hp0Sd6Gf3Ja9Ub2Xo4Ti8",
    expected: `OPENAI_API_KEY=${M}`,
  },
  {
    preset: "openai",
    text: "using sk-proj-Zq8_Lm3-Xv7Rt2Nw9Yb4Kc1Hd6Jf0Gs5Pa8Ue3Wi7Oy2Tr6Ql1Mn4Bv9Cx for now",
    expected: `using ${M} for now`,
  },
  {
    preset: "anthropic",
    text: "x-api-key: sk-ant-api03-Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz1Xc3Vb5Nm7-AAAA",
    expected: `x-api-key: ${M}`,
  },
  {
    preset: "anthropic",
    text: "(sk-ant-admin01-Lz1Xc3Vb5Nm7Qw9Er1Ty3Ui5Op7As9Df1Gh3Jk5)",
    expected: `(${M})`,
  },
  { preset: "jwt", text: `"id_token": "${JWT}"`, expected: `"id_token": "${M}"` },
  {
    preset: "jwt",
    text: "session=eyJhbGciOiJIUzI1NiJ9.eyJzaWQiOiJhYmMifQ.Zm9vYmFyYmF6; Path=/",
    expected: `session=${M}; Path=/`,
  },
  {
    preset: "bearer",
    text: "Authorization: Bearer 9f8e7d6c5b4a32100123abcd",
    expected: `Authorization: Bearer ${M}`,
  },
  {
    preset: "bearer",
    text: "curl -H 'authorization: bearer AbCdEfGhIjKlMnOpQrStUvWx' https://api.example.com",
    expected: `curl -H 'authorization: bearer ${M}' https://api.example.com`,
  },
  { preset: "pem", text: `key:\n${RSA_KEY}\ndone`, expected: `key:\n${M}\ndone` },
  { preset: "pem", text: `${OPENSSH_KEY}\n`, expected: `${M}\n` },
  { preset: "pem", text: `id_ec: ${LEGACY_EC_KEY}`, expected: `id_ec: ${M}` },
  {
    preset: "pem",
    text: "cut short: -----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
    expected: `cut short: ${M}`,
  },
  {
    preset: "url",
    text: "DATABASE_URL=postgres://admin:s3cr3t-pass@db.internal:5432/app",
    expected: `DATABASE_URL=postgres://admin:${M}@db.internal:5432/app`,
  },
  {
    preset: "url",
    text: "fetching https://bot:p%40ssw0rd@example.com/feed",
    expected: `fetching https://bot:${M}@example.com/feed`,
  },
  {
    preset: "keyvalue",
    text: '{"user": "ada", "password": "hunter2"}',
    expected: `{"user": "ada", "password": "${M}"}`,
  },
  {
    preset: "keyvalue",
    text: "GET /orders?API_KEY=abc123&page=2",
    expected: `GET /orders?API_KEY=${M}&page=2`,
  },
  {
    preset: "keyvalue",
    text: "Authorization: Basic dXNlcjpwYXNz\nAccept: */*",
    expected: `Authorization: Basic ${M}\nAccept: */*`,
  },
  {
    preset: "keyvalue",
    text: "{'client_secret': 'x9y8', 'Access-Token': 12345}",
    expected: `{'client_secret': '${M}', 'Access-Token': ${M}}`,
  },
  {
    preset: "keyvalue",
    text: "password: hunter2 # keep safe",
    expected: `password: ${M} # keep safe`,
  },
  { preset: "keyvalue", text: "GITHUB_TOKEN=gh0-Xq8vLm2", expected: `GITHUB_TOKEN=${M}` },
  {
    preset: "keyvalue",
    text: '{"db_password": "correct horse", "apiToken": "t0k3n"}',
    expected: `{"db_password": "${M}", "apiToken": "${M}"}`,
  },
  { preset: "keyvalue", text: "run --api-key Zk39fjQ02k now", expected: `run --api-key ${M} now` },
  { preset: "keyvalue", text: "SLACK_BOT_TOKEN='b0t-9Xq2'", expected: `SLACK_BOT_TOKEN='${M}'` },
];

const NEAR_MISSES: { preset: RedactPreset; text: string }[] = [
  { preset: "aws", text: "AKIAZ3MEXAMPLE7Q2WX is one character short" },
  {
    preset: "aws",
    text: "AKIAZ3MEXAMPLE7Q2WXYZ is one too long, akiaz3mexample7q2wxy is lower case",
  },
  { preset: "aws", text: "aws_secret_access_key = not-forty-characters" },
  { preset: "github", text: "ghp_AbC123xYz0 is too short" },
  { preset: "github", text: "ghx_R8mZ2kQ7vX4nB1cT6yH3jW9pL5sD0fGaE2uK has no such prefix" },
  { preset: "github", text: "github_pat_short_one" },
  { preset: "slack", text: "xoxb-123 and xoxb-not-a-real-token" },
  { preset: "slack", text: "see hooks.slack.com/services/ for set-up" },
  { preset: "openai", text: "the task-list-2024-quarterly-review-items" },
  { preset: "openai", text: "sk-abc123 and sk-learning-materials-and-more-notes" },
  { preset: "anthropic", text: "sk-ant-short" },
  { preset: "anthropic", text: "task-ant-api03-Qw3Er5Ty7Ui9Op1As3Df5Gh7" },
  { preset: "jwt", text: "eyJhbGciOiJIUzI1NiJ9 is a header alone" },
  { preset: "jwt", text: "YWJjZGVm.Z2hpamts.bW5vcHFy and eyJhbGciOiJIUzI1NiJ9.bm90IGEgSldU.c2ln" },
  { preset: "bearer", text: "do not shoot the bearer of bad news" },
  { preset: "bearer", text: "Bearer authentication is defined in RFC 6750; bearer 12345" },
  {
    preset: "pem",
    text: "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0B\n-----END PUBLIC KEY-----",
  },
  { preset: "pem", text: "-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----" },
  { preset: "pem", text: "store the BEGIN PRIVATE KEY line safely" },
  { preset: "url", text: "https://example.com:8443/path and https://user@example.com/x" },
  { preset: "url", text: "mailto:ada@example.com" },
  { preset: "keyvalue", text: "tokens_used=5, token_count: 3, max_token=5" },
  { preset: "keyvalue", text: "the password field is required; my_api_key_name: x" },
  { preset: "keyvalue", text: "Session: Opening keynote, Hall A" },
  {
    preset: "keyvalue",
    text: "const token = await getToken(user); password: process.env.DB_PASSWORD",
  },
  {
    preset: "keyvalue",
    text: "GITHUB_TOKEN=${GITHUB_TOKEN} API_KEY=<YOUR_KEY> token: ghp_xxxxxxxx",
  },
];

function only(preset: RedactPreset): Redactor {
  return compileRedactor({ presets: [preset] });
}

Deno.test("redactText() masks each preset's samples inside surrounding text", () => {
  for (const { preset, text, expected } of SAMPLES) {
    assert.equal(redactText(only(preset), text), expected, `${preset}: ${text}`);
  }
});

Deno.test("redactText() finds every preset's samples with all presets on", () => {
  const redactor = compileRedactor();
  for (const { preset, text } of SAMPLES) {
    assert.notEqual(redactText(redactor, text), text, `${preset}: ${text}`);
  }
});

Deno.test("redactValue() masks each preset's samples inside JSON values", () => {
  for (const { preset, text, expected } of SAMPLES) {
    const value = { meta: { note: text }, list: ["ok", text] };
    const masked = redactValue(only(preset), value);
    assert.deepEqual(masked, { meta: { note: expected }, list: ["ok", expected] }, preset);
  }
});

Deno.test("redactText() masks each preset's samples inside JSON text", () => {
  for (const { preset, text, expected } of SAMPLES) {
    const masked = redactText(only(preset), JSON.stringify({ note: text, n: 1 }));
    assert.deepEqual(JSON.parse(masked), { note: expected, n: 1 }, `${preset}: ${text}`);
  }
});

Deno.test("redactText() leaves each preset's near-misses alone", () => {
  for (const { preset, text } of NEAR_MISSES) {
    assert.equal(redactText(only(preset), text), text, `${preset}: ${text}`);
  }
});

Deno.test("compileRedactor() defaults leave ordinary prose and data alone", () => {
  const redactor = compileRedactor();
  const prose = "Order ORD-1042 shipped on 2025-06-18 at 09:30; 3 items, tokens used: 1200. " +
    "The task-list is at https://example.com:8443/orders?page=2#top and the bearer of the " +
    "parcel signed. Hash 5d41402abc4b2a76b9719d911017c592, id 550e8400-e29b-41d4-a716-446655440000.";
  assert.equal(redactText(redactor, prose), prose);
  const data = { tokens_used: 1200, token_count: 3, items: [{ sku: "A-1", qty: 2 }] };
  assert.equal(redactValue(redactor, data), data);
});

Deno.test("redactText() masks overlapping findings once and keeps the rest", () => {
  const redactor = compileRedactor();
  assert.equal(redactText(redactor, `Authorization: Bearer ${JWT}`), `Authorization: Bearer ${M}`);
  const touching = compileRedactor({ presets: false, patterns: ["abc", "def", "cd"] });
  assert.equal(redactText(touching, "xabcdefx"), `x${M}x`);
  assert.equal(redactText(redactor, `a ${GHP} b ${GHO} c`), `a ${M} b ${M} c`);
});

Deno.test("redactText() keeps no lastIndex state between calls", () => {
  const redactor = only("github");
  const padded = `${"x ".repeat(200)}${GHP}`;
  assert.equal(redactText(redactor, padded), `${"x ".repeat(200)}${M}`);
  assert.equal(redactText(redactor, GHP), M);
  assert.equal(redactText(redactor, `${GHP} ${GHP}`), `${M} ${M}`);

  const used = /ORD-\d{4}/g;
  used.lastIndex = 50;
  const sticky = /ORD-\d{4}/y;
  const custom = compileRedactor({ presets: false, patterns: [used, sticky] });
  assert.equal(redactText(custom, "ORD-1234"), M);
  assert.equal(redactText(custom, "see ORD-1234 and ORD-5678"), `see ${M} and ${M}`);
  assert.equal(used.lastIndex, 50, "the caller's RegExp is not used or changed");
  assert.equal(sticky.lastIndex, 0);
});

Deno.test("redactValue() masks whole values under sensitive keys, however they are written", () => {
  const redactor = compileRedactor();
  const masked = [
    "API-Key",
    "api_key",
    "apiKey",
    "API KEY",
    "x-api-key",
    "Set-Cookie",
    "ACCESS_TOKEN",
    "clientSecret",
    "password",
    "GITHUB_TOKEN",
    "STRIPE_SECRET_KEY",
    "db_password",
    "secret_key",
    "apiToken",
    "SLACK_BOT_TOKEN",
    "my_token",
  ];
  const kept = [
    "tokens_used",
    "token_count",
    "max_tokens",
    "secretary",
    "tokenizer",
    "password_policy",
  ];
  for (const key of masked) {
    for (const value of ["s3cret", 1234, { nested: "x" }, ["a", "b"], true]) {
      assert.deepEqual(redactValue(redactor, { [key]: value }), { [key]: M }, key);
    }
  }
  for (const key of kept) {
    const value = { [key]: "plain" };
    assert.equal(redactValue(redactor, value), value, key);
  }
  const empty = { password: null };
  assert.equal(redactValue(redactor, empty), empty, "null hides nothing and stays");
});

Deno.test("compileRedactor() adds keys and can drop the default ones", () => {
  const redactor = compileRedactor({ keys: ["PIN", "card-number"], defaultKeys: false });
  assert.deepEqual(redactor.keys, ["pin", "cardnumber"]);
  assert.deepEqual(
    redactValue(redactor, { pin: 1234, Card_Number: "4111", password: "kept" }),
    { pin: M, Card_Number: M, password: "kept" },
  );
  assert.equal(redactText(redactor, "pin=1234 password=kept"), `pin=${M} password=kept`);
});

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

Deno.test("redactValue() copies on write and never mutates its input", () => {
  const redactor = compileRedactor();
  const input = deepFreeze({
    untouched: { deep: [1, 2, { x: "y" }], flag: false, none: null },
    account: { password: "p", note: `use ${GHP}` },
    list: ["a", `b ${GHO}`, { c: 1 }],
  });
  const output = redactValue(redactor, input);
  assert.deepEqual(output, {
    untouched: { deep: [1, 2, { x: "y" }], flag: false, none: null },
    account: { password: M, note: `use ${M}` },
    list: ["a", `b ${M}`, { c: 1 }],
  });
  assert.ok(typeof output === "object" && output !== null && "untouched" in output);
  assert.equal(output.untouched, input.untouched, "unchanged subtrees are shared");
  assert.ok("list" in output && Array.isArray(output.list));
  assert.equal(output.list[2], input.list[2]);
  assert.equal(input.account.password, "p");
  const clean = deepFreeze({ a: [1, "two", { three: 3 }] });
  assert.equal(redactValue(redactor, clean), clean, "nothing to mask: the same reference");
});

Deno.test("redactValue() masks secrets used as object keys, and keeps colliding keys apart", () => {
  const redactor = compileRedactor();
  assert.deepEqual(redactValue(redactor, { [GHP]: "value", ok: 1 }), { [M]: "value", ok: 1 });
  assert.deepEqual(redactValue(redactor, { a: { [`x ${GHO}`]: 1 } }), { a: { [`x ${M}`]: 1 } });
  assert.deepEqual(redactValue(redactor, { [GHP]: 1, [GHO]: 2 }), { [M]: 1, [`${M} (2)`]: 2 });
  assert.equal(redactValue(redactor, GHP), M);
  for (const scalar of [42, true, null, undefined]) {
    assert.equal(redactValue(redactor, scalar), scalar);
  }
});

Deno.test("redactValue() judges weak keys by their value and strong keys not at all", () => {
  const redactor = compileRedactor();
  const value = { session: "Opening keynote, Hall A", signature: 42, tokens: 1200 };
  assert.equal(redactValue(redactor, value), value);
  assert.deepEqual(redactValue(redactor, { session: "s9Fq2LmZ8xKc0PvT" }), { session: M });
  assert.deepEqual(redactValue(redactor, { password: "hunter" }), { password: M });
  assert.deepEqual(redactValue(redactor, { password: "${DB_PASSWORD}" }), {
    password: "${DB_PASSWORD}",
  });
});

Deno.test("redactValue() masks subtrees deeper than maxDepth instead of overflowing", () => {
  const redactor = compileRedactor();
  let deep: unknown = "leaf";
  for (let i = 0; i < 10_000; i++) deep = { a: deep };
  let node = redactValue(redactor, deep);
  for (let level = 0; level < 65; level++) {
    assert.ok(typeof node === "object" && node !== null && "a" in node, `level ${level}`);
    node = node.a;
  }
  assert.equal(node, M);

  const shallow = compileRedactor({ maxDepth: 2 });
  assert.deepEqual(redactValue(shallow, { a: { b: { c: {} } }, s: "x" }), {
    a: { b: { c: M } },
    s: "x",
  });
});

Deno.test("redactValue() masks cycles and walks shared subtrees", () => {
  const redactor = compileRedactor();
  const cyclic: Record<string, unknown> = { name: "loop" };
  cyclic.self = cyclic;
  cyclic.list = [cyclic];
  assert.deepEqual(redactValue(redactor, cyclic), { name: "loop", self: M, list: [M] });
  assert.equal(cyclic.self, cyclic, "the input keeps its cycle");

  const shared = { token: "t" };
  assert.deepEqual(redactValue(redactor, { a: shared, b: [shared] }), {
    a: { token: M },
    b: [{ token: M }],
  });
});

Deno.test("redactValue() examines what toJSON() returns", () => {
  const redactor = compileRedactor();
  const date = new Date(0);
  assert.equal(redactValue(redactor, date), date);
  const custom = { toJSON: () => ({ user: "ada", token: "t" }) };
  assert.deepEqual(redactValue(redactor, custom), { user: "ada", token: M });
  const endless = { toJSON: (): unknown => endless, note: "Bearer a1b2c3d4e5f6" };
  assert.deepEqual(redactValue(redactor, endless), { toJSON: endless.toJSON, note: `Bearer ${M}` });
  let made = 0;
  const fresh = (): unknown => ({ toJSON: fresh, n: made++ });
  const nested = { toJSON: fresh };
  assert.equal(redactValue(redactor, nested), nested, "toJSON runs once, as in JSON.stringify");
  assert.equal(made, 1);
  const proto = JSON.parse('{"__proto__": {"password": "p"}, "ok": 1}');
  const masked = redactValue(redactor, proto);
  assert.equal(JSON.stringify(masked), `{"__proto__":{"password":"${M}"},"ok":1}`);
});

Deno.test("compileRedactor() compiles user patterns with an optional secret group", () => {
  const redactor = compileRedactor({
    presets: false,
    patterns: [String.raw`ORD-\d{6}`, /order-[a-z]+/i, /pin=(?<secret>\d{4})/],
    mask: "***",
  });
  assert.deepEqual(redactor.presets, []);
  assert.equal(
    redactText(redactor, "ORD-123456, Order-abc, pin=1234"),
    "***, ***, pin=***",
  );
  assert.equal(redactText(redactor, GHP), GHP, "presets are off");
  assert.deepEqual(redactValue(redactor, { password: 1 }), { password: "***" }, "keys still on");
});

Deno.test("compileRedactor() refuses bad patterns and options", () => {
  assert.throws(() => compileRedactor({ patterns: ["("] }), {
    name: "SyntaxError",
    message: /^Cannot compile redaction pattern '\(': /,
  });
  for (const pattern of ["a*", "", /x?/, "(?:)|b"]) {
    assert.throws(() => compileRedactor({ patterns: [pattern] }), {
      name: "TypeError",
      message: /matches the empty string$/,
    });
  }
  assert.throws(
    () => compileRedactor({ presets: JSON.parse('["github", "nope"]') }),
    { name: "RangeError", message: "Unknown redaction preset: 'nope'" },
  );
  assert.throws(() => compileRedactor({ maxDepth: -1 }), RangeError);
  assert.throws(() => compileRedactor({ keys: ["-_ "] }), TypeError);
  const forged = { mask: M, presets: [], keys: [], maxDepth: 64 };
  assert.throws(() => redactText(forged, "x"), {
    name: "TypeError",
    message: "Invalid redactor: create it with compileRedactor()",
  });
});

Deno.test("compileRedactor() turns every preset on by default", () => {
  assert.deepEqual(compileRedactor().presets, REDACT_PRESETS);
  assert.deepEqual(compileRedactor({ presets: ["jwt", "jwt"] }).presets, ["jwt"]);
});

Deno.test("redactContent() masks text, and embedded resources' text and URI only", () => {
  const redactor = compileRedactor();
  const blocks = deepFreeze([
    { type: "text", text: `token is ${GHP}`, annotations: { audience: ["user"] } },
    { type: "image", data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB", mimeType: "image/png" },
    {
      type: "resource",
      resource: { uri: `file:///keys/${GHO}`, mimeType: "text/plain", text: RSA_KEY },
    },
    { type: "resource", resource: { uri: "file:///blob", blob: "c2VjcmV0", mimeType: "x/y" } },
    { type: "resource_link", uri: "file:///a", name: "a" },
    { type: "audio", data: "UklGRiQAAABXQVZF", mimeType: "audio/wav" },
  ]);
  const masked = redactContent(redactor, blocks);
  assert.deepEqual(masked, [
    { type: "text", text: `token is ${M}`, annotations: { audience: ["user"] } },
    blocks[1],
    {
      type: "resource",
      resource: { uri: `file:///keys/${M}`, mimeType: "text/plain", text: M },
    },
    blocks[3],
    blocks[4],
    blocks[5],
  ]);
  assert.equal(masked[0]?.annotations, blocks[0]?.annotations);
  for (const index of [1, 3, 4, 5]) assert.equal(masked[index], blocks[index]);
  const clean = [{ type: "text", text: "nothing here" }];
  assert.equal(redactContent(redactor, clean), clean);
});

Deno.test("redactContent() masks the contents of a resources/read result", () => {
  const redactor = compileRedactor();
  const contents = [{ uri: "config://app", mimeType: "text/plain", text: "password=hunter2" }];
  assert.deepEqual(redactContent(redactor, contents), [
    { uri: "config://app", mimeType: "text/plain", text: `password=${M}` },
  ]);
});

Deno.test("redactText() stays linear on 1 MB adversarial inputs", () => {
  const redactor = compileRedactor({ patterns: [] });
  const n = 1 << 20;
  const inputs = [
    "a".repeat(n),
    "a=b=".repeat(n / 4),
    "a:b:".repeat(n / 4),
    "password:password:".repeat(n / 18),
    'token="'.repeat(n / 7),
    "--token --token ".repeat(n / 16),
    "xoxb-".repeat(n / 5),
    "sk-ant-".repeat(n / 7),
    "eyJa.".repeat(n / 5),
    "eyJ".repeat(n / 3),
    "bearer a".repeat(n / 8),
    "-----BEGIN PRIVATE KEY-----".repeat(n / 27),
    `-----BEGIN PRIVATE KEY-----${"-a".repeat(n / 2)}`,
    '"token":"'.repeat(n / 9),
    `password: "${"\\".repeat(n)}`,
    "a.a.a://b:".repeat(n / 10),
    "ghp_".repeat(n / 4),
    "ABSK/".repeat(n / 5),
    "fm2_/".repeat(n / 5),
    ":AA".repeat(n / 3),
    "1Q~".repeat(n / 3),
    "-us".repeat(n / 3),
    "hooks.slack.com/services/a/".repeat(n / 27),
    `token${" ".repeat(n)}`,
    `api key ${"Ab1".repeat(n / 3)}`,
  ];
  for (const input of inputs) {
    const started = performance.now();
    redactText(redactor, input);
    const elapsed = performance.now() - started;
    // A generous bound: a quadratic scan of 1 MB takes minutes, a linear one milliseconds.
    assert.ok(elapsed < 5000, `${JSON.stringify(input.slice(0, 20))}… took ${elapsed} ms`);
  }
});

Deno.test("a real password that contains a word like 'password' or 'token' is still masked under a password key", () => {
  const redactor = compileRedactor();
  // Common real passwords: digits or symbols make them more than a name of a secret.
  for (const password of ["Password123!", "Secret#2024", "passw0rd", "tokenhunter2", "secret123"]) {
    assert.deepEqual(redactValue(redactor, { password }), { password: "[REDACTED]" }, password);
    assert.equal(redactText(redactor, `password=${password}`), "password=[REDACTED]", password);
  }
  // A value that only names a secret (words joined by - or _) stays a placeholder.
  for (const name of ["my-secret", "invalid_token", "api_key"]) {
    assert.deepEqual(redactValue(redactor, { password: name }), { password: name }, name);
  }
});
