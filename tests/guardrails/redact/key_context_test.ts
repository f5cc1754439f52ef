/**
 * Key context: which names say secret, and which values next to them are
 * masked, in .env, JSON, YAML, headers and CLI flags.
 */

import assert from "node:assert/strict";
import { compileRedactor, redactText } from "../../../src/guardrails/redact/engine.ts";
import { classifyKey } from "../../../src/guardrails/redact/key_names.ts";
import { isPlaceholder, valueIsSecret } from "../../../src/guardrails/redact/value_shape.ts";

const M = "[REDACTED]";

Deno.test("classifyKey() reads a key's words, however it is written", () => {
  const table: [string, ReturnType<typeof classifyKey>][] = [
    ["GITHUB_TOKEN", "strong"],
    ["STRIPE_SECRET_KEY", "strong"],
    ["SLACK_BOT_TOKEN", "strong"],
    ["DATABASE_PASSWORD", "strong"],
    ["db_password", "strong"],
    ["dbpassword", "strong"],
    ["secret_key", "strong"],
    ["apiToken", "strong"],
    ["x-api-key", "strong"],
    ["X-Amz-Security-Token", "strong"],
    ["spring.datasource.password", "strong"],
    ["--api-key", "strong"],
    ["AccountKey", "strong"],
    ["client_secret", "strong"],
    ["PRIVATE-TOKEN", "strong"],
    ["Authorization", "strong"],
    ["session", "weak"],
    ["sessionId", "weak"],
    ["signature", "weak"],
    ["cache_key", "weak"],
    ["tokens", "weak"],
    ["tokens_used", "none"],
    ["token_count", "none"],
    ["max_tokens", "none"],
    ["maxTokens", "none"],
    ["password_policy", "none"],
    ["token_url", "none"],
    ["secretary", "none"],
    ["tokenizer", "none"],
    ["author", "none"],
    ["name", "none"],
    ["monkey", "none"],
  ];
  for (const [key, strength] of table) assert.equal(classifyKey(key), strength, key);
});

Deno.test("valueIsSecret() masks values, not words, code or placeholders", () => {
  const masked: [string, "weak" | "strong", boolean][] = [
    ["hunter2", "strong", false],
    ["correct horse battery", "strong", true],
    ["s9Fq2LmZ8xKc0PvT", "weak", false],
    ["3f2a9c1b7d4e6f8091a2b3c4d5e6f708", "weak", false],
  ];
  for (const [value, strength, quoted] of masked) {
    assert.ok(valueIsSecret(value, strength, quoted, 32), value);
  }
  const kept: [string, "weak" | "strong", boolean][] = [
    ["Opening", "weak", false],
    ["Opening", "strong", false],
    ["required", "strong", false],
    ["process.env.DB_PASSWORD", "strong", false],
    ["${API_KEY}", "strong", true],
    ["<YOUR_KEY>", "strong", true],
    ["xxxxxxxxxxxx", "strong", true],
    ["********", "strong", false],
    ["your-api-key-here", "strong", true],
    ["null", "strong", true],
    ["Opening keynote, Hall A", "weak", true],
    ["2", "strong", false],
  ];
  for (const [value, strength, quoted] of kept) {
    assert.ok(!valueIsSecret(value, strength, quoted, 32), value);
  }
  assert.ok(isPlaceholder("AKIAIOSFODNN7EXAMPLE"));
});

Deno.test("redactText() masks values by key context in .env, JSON, YAML, headers and flags", () => {
  const redactor = compileRedactor();
  const table: [string, string][] = [
    ["GITHUB_TOKEN=gh-Zq9xL2m4", `GITHUB_TOKEN=${M}`],
    ["export STRIPE_SECRET_KEY='Zq9xL2m4Wk'", `export STRIPE_SECRET_KEY='${M}'`],
    ['DATABASE_PASSWORD="p@ss w0rd"', `DATABASE_PASSWORD="${M}"`],
    ['{"db_password":"hunter2","user":"ada"}', `{"db_password":"${M}","user":"ada"}`],
    ['{\\"apiToken\\": \\"t0k3n-x\\"}', `{\\"apiToken\\": \\"${M}\\"}`],
    [
      "db:\n  password: Zq9xL2m4\n  host: db.internal",
      `db:\n  password: ${M}\n  host: db.internal`,
    ],
    ["Authorization: Bearer Zq9xL2m4Wk7", `Authorization: Bearer ${M}`],
    ["X-Api-Key: Zq9xL2m4Wk7\r\nAccept: */*", `X-Api-Key: ${M}\r\nAccept: */*`],
    ["$ tool --api-key=Zq9xL2m4Wk7 --verbose", `$ tool --api-key=${M} --verbose`],
    ["$ tool --token Zq9xL2m4Wk7 --verbose", `$ tool --token ${M} --verbose`],
    [
      "https://api.example.com/v1?api_key=Zq9xL2m4Wk7&page=2",
      `https://api.example.com/v1?api_key=${M}&page=2`,
    ],
    ['secret_key := "Zq9xL2m4Wk7"', `secret_key := "${M}"`],
    ["'password' => 'Zq9xL2m4Wk7',", `'password' => '${M}',`],
    ["session=s9Fq2LmZ8xKc0PvT; Path=/", `session=${M}; Path=/`],
    ["the api key 3f2a9c1b7d4e6f8091a2b3c4d5e6f708 is new", `the api key ${M} is new`],
  ];
  for (const [text, expected] of table) assert.equal(redactText(redactor, text), expected, text);
});

Deno.test("redactText() leaves prose and code after a key word alone", () => {
  const redactor = compileRedactor();
  const kept = [
    "Session: Opening keynote, Hall A",
    "Password: must be at least 12 characters long",
    "token: expired",
    "const token = await getToken(user);",
    "password: process.env.DB_PASSWORD,",
    "if (token == null) return; if (password != other) fail();",
    "def login(password: str) -> bool:",
    "$ tool --token --verbose",
    "GITHUB_TOKEN=${GITHUB_TOKEN}",
    "OPENAI_API_KEY=<YOUR_KEY>",
    "max_tokens=4096 tokens_used: 1200",
    "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
  ];
  for (const text of kept) assert.equal(redactText(redactor, text), text, text);
});

Deno.test("compileRedactor({ defaultKeys: false }) turns key detection off but keeps given keys", () => {
  const redactor = compileRedactor({ defaultKeys: false, keys: ["pin"] });
  assert.equal(
    redactText(redactor, "GITHUB_TOKEN=gh-Zq9xL2m4 pin=1234"),
    `GITHUB_TOKEN=gh-Zq9xL2m4 pin=${M}`,
  );
});

Deno.test("key verdicts stay right however many names share the scanner's cache", () => {
  // Far more names than the cache has slots, secret and harmless interleaved, seen
  // twice in different orders: a slot that held another name must never answer for it.
  const redactor = compileRedactor();
  const value = "Zq9xL2m4Wv7Rt1Kp";
  // Names of one length, so that only the comparison of the names themselves tells them apart.
  // (In letters: a name with four digits reads as base64, not as a key.)
  const names = Array.from({ length: 3000 }, (_, index) => {
    const id = index.toString(26).padStart(4, "0").replace(
      /[0-9]/g,
      (digit) => "qrstuvwxyz"[Number(digit)] ?? "",
    );
    return index % 3 === 0 ? `svc${id}_password` : `svc${id}_hostname`;
  });
  for (const order of [names, [...names].reverse()]) {
    const text = order.map((name) => `${name}=${value}`).join("\n");
    const expected = order.map((name) => `${name}=${name.endsWith("_password") ? M : value}`).join(
      "\n",
    );
    assert.equal(redactText(redactor, text), expected);
  }
});
