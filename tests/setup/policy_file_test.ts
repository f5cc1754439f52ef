/**
 * The JSONC policy file: `parsePolicy()` messages for every kind of bad file
 * (syntax with file:line:col, shape with the path), what a good file may
 * contain, and `loadPolicyFile()` on disk.
 */

import assert from "node:assert/strict";
import { createServer, defineTool, ErrorCode } from "../../mod.ts";
import { type AuditEntry, callbackAuditSink, createGuardrails } from "../../guardrails.ts";
import { MemoryTransport } from "../../testing.ts";
import { loadPolicyFile, parsePolicy } from "../../src/setup/policy_file.ts";
import { errorOf, request, resultOf } from "../_helpers/helpers.ts";

type ErrorClass = typeof SyntaxError | typeof TypeError | typeof RangeError;

/** Asserts that parsing `text` as "policy.jsonc" throws exactly `kind` with `message`. */
async function assertRefused(text: string, kind: ErrorClass, message: string): Promise<void> {
  await assert.rejects(parsePolicy(text, "policy.jsonc"), (error: unknown) => {
    assert.ok(error instanceof Error, String(error));
    assert.equal(error.constructor, kind, `${error.name}: ${error.message}`);
    assert.equal(error.message, message);
    return true;
  });
}

Deno.test("parsePolicy() reports a syntax error with the file, line and column", async () => {
  // Each position was counted by hand: lines and columns from 1, at the first bad token.
  const cases: [label: string, text: string, message: string][] = [
    [
      "a missing comma, four-space indent",
      '{\n    "principal": "a"\n    "audit": "stderr"\n}',
      "expected ',' at 3:5",
    ],
    [
      "a missing comma in a nested object",
      '{\n  "access": {\n    "tools": {}\n    "prompts": {}\n  }\n}',
      "expected ',' at 4:5",
    ],
    [
      "CRLF line endings",
      '{\r\n  "principal": "a"\r\n  "audit": "stderr"\r\n}',
      "expected ',' at 3:3",
    ],
    ["an unterminated string", '{ "principal": "a', "unterminated string at 1:16"],
    ["an unexpected character", '{\n  "principal": @\n}', "unexpected symbol at 2:16"],
    ["text after the object", "{}\n}", "expected the end of the file at 2:1"],
    ["a missing colon", '{ "audit" "stderr" }', "expected ':' at 1:11"],
    ["an unclosed object", '{ "access": {}', "expected '}' at 1:15"],
    ["an unterminated comment", '{ /* "audit": "stderr" }', "unterminated comment at 1:3"],
  ];
  for (const [label, text, detail] of cases) {
    try {
      await parsePolicy(text, "policy.jsonc");
      assert.fail(`${label}: accepted`);
    } catch (error) {
      assert.ok(error instanceof SyntaxError, `${label}: ${String(error)}`);
      assert.equal(error.message, `Cannot parse policy policy.jsonc: ${detail}`, label);
    }
  }
});

Deno.test("parsePolicy() refuses an empty file or one with only comments", async () => {
  await assertRefused("", SyntaxError, "Cannot parse policy policy.jsonc: expected a value at 1:1");
  await assertRefused(
    "  \n// nothing here\n",
    SyntaxError,
    "Cannot parse policy policy.jsonc: expected a value at 3:1",
  );
});

Deno.test("parsePolicy() accepts comments and trailing commas", async () => {
  const config = await parsePolicy(
    [
      "// The desk's policy",
      "{",
      '  /* hide it */ "access": { "tools": { "deny": ["cancel_order",], }, },',
      '  "audit": false, // no log',
      "}",
    ].join("\n"),
    "policy.jsonc",
  );
  assert.deepEqual(config, { access: { tools: { deny: ["cancel_order"] } }, audit: false });
});

Deno.test("parsePolicy() refuses unknown keys and wrong types with their path", async () => {
  const prefix = "Cannot load policy policy.jsonc: ";
  const cases: [text: string, kind: ErrorClass, message: string][] = [
    [
      '{ "acess": {} }',
      TypeError,
      'unknown key "acess" at the top level, expected one of principal, quotas, access, rateLimit, redact, audit, store, storeOutage',
    ],
    [
      '{ "access": { "tools": { "deney": ["cancel_order"] } } }',
      TypeError,
      'access: Invalid access policy: unknown key "deney" at tools, expected one of allow, deny',
    ],
    [
      '{ "access": { "principals": { "bob": { "tool": {} } } } }',
      TypeError,
      'access: Invalid access policy: unknown key "tool" at principals.bob, expected one of tools, resources, prompts',
    ],
    [
      '{ "rateLimit": { "rules": [], "rule": [] } }',
      TypeError,
      'rateLimit: Invalid rate limits: unknown key "rule" at the top level, expected one of rules',
    ],
    [
      '{ "audit": { "fil": "audit.jsonl" } }',
      TypeError,
      'unknown key "fil" at audit',
    ],
    [
      '{ "access": { "tools": { "deny": "cancel_order" } } }',
      TypeError,
      "access: Invalid access policy: tools.deny must be array, got string",
    ],
    [
      '{ "access": { "tools": { "deny": [""] } } }',
      RangeError,
      "access: Invalid access policy: glob is empty at tools.deny[0]",
    ],
    [
      '{ "rateLimit": { "rules": [{ "scope": "tool", "capacity": "5", "refillPerSecond": 1 }] } }',
      TypeError,
      "rateLimit: Invalid rate limits: rules[0].capacity must be number, got string",
    ],
    [
      '{ "rateLimit": { "rules": [{ "scope": "user", "capacity": 5, "refillPerSecond": 1 }] } }',
      RangeError,
      'rateLimit: Invalid rate limits: rules[0].scope must be one of "global", "tool", "principal", "tool+principal", got "user"',
    ],
    ['{ "principal": 3 }', TypeError, "principal must be string, got number"],
    [
      '{ "audit": "stdout" }',
      RangeError,
      'audit must be one of "stderr", "otel", false, got "stdout"',
    ],
    ['{ "audit": { "file": "" } }', TypeError, "audit.file must NOT have fewer than 1 character"],
    [
      '{ "redact": { "presets": ["nope"] } }',
      RangeError,
      "redact: Unknown redaction preset: 'nope'",
    ],
    ["[]", TypeError, "expected an object at the top level"],
    ['"stderr"', TypeError, "expected an object at the top level"],
  ];
  for (const [text, kind, message] of cases) await assertRefused(text, kind, prefix + message);
});

Deno.test("parsePolicy() refuses a redaction pattern that is not a usable regular expression", async () => {
  await assertRefused(
    '{ "redact": { "patterns": ["ODK-[A-Z"] } }',
    SyntaxError,
    "Cannot load policy policy.jsonc: redact: Cannot compile redaction pattern 'ODK-[A-Z': " +
      "Invalid regular expression: /ODK-[A-Z/u: Unterminated character class",
  );
  await assertRefused(
    '{ "redact": { "patterns": ["a*"] } }',
    TypeError,
    "Cannot load policy policy.jsonc: redact: Invalid redaction pattern 'a*': it matches the empty string",
  );
  await assertRefused(
    '{ "redact": { "patterns": [5] } }',
    TypeError,
    "Cannot load policy policy.jsonc: redact.patterns[0] must be string or object, got number",
  );
});

Deno.test({
  name: "parsePolicy() checks the shape of the redact section like the others",
  fn: async () => {
    for (
      const text of [
        '{ "redact": { "pattern": ["ODK-[A-Za-z0-9]{24,}"] } }',
        '{ "redact": { "patterns": "ab" } }',
        '{ "redact": { "keys": "pin" } }',
        '{ "redact": { "defaultKeys": "no" } }',
      ]
    ) {
      await assert.rejects(parsePolicy(text, "policy.jsonc"), TypeError, text);
    }
    await assert.rejects(
      parsePolicy('{ "redact": null }', "policy.jsonc"),
      (error: unknown) => error instanceof TypeError && !error.message.includes("Cannot read"),
    );
  },
});

Deno.test("parsePolicy() refuses duplicate keys at their position, at any depth", async () => {
  await assertRefused(
    '{\n  "principal": "a",\n  "principal": "b"\n}',
    SyntaxError,
    'Cannot parse policy policy.jsonc: duplicate key "principal" at 3:3',
  );
  // Two deny lists: letting the second (empty) one win would silently open the server.
  await assertRefused(
    '{ "access": { "tools": { "deny": ["a"], "deny": [] } } }',
    SyntaxError,
    'Cannot parse policy policy.jsonc: duplicate key "deny" at 1:41',
  );
});

Deno.test("parsePolicy() keeps a __proto__ principal a plain name whose rules still apply", async () => {
  const config = await parsePolicy(
    '{ "access": { "principals": { "__proto__": { "tools": { "deny": ["get_order"] } } } } }',
    "policy.jsonc",
  );
  const principals = config.access?.principals;
  assert.ok(principals !== undefined);
  assert.equal(Object.getPrototypeOf(principals), Object.prototype, "no prototype swap");
  assert.deepEqual(Object.keys(principals), ["__proto__"]);
  assert.ok(Object.hasOwn(principals, "__proto__"));
  // A top-level "__proto__" is an unknown key, not a way to smuggle settings in.
  await assertRefused(
    '{ "__proto__": { "audit": "stderr" } }',
    TypeError,
    'Cannot load policy policy.jsonc: unknown key "__proto__" at the top level, ' +
      "expected one of principal, quotas, access, rateLimit, redact, audit, store, storeOutage",
  );

  const entries: AuditEntry[] = [];
  const server = createServer({
    name: "proto",
    version: "1.0.0",
    guardrails: createGuardrails({
      ...config,
      audit: callbackAuditSink((entry) => void entries.push(entry)),
    }),
    tools: [defineTool({
      name: "get_order",
      description: "Look an order up",
      inputSchema: { type: "object" },
      handler: () => "found",
    })],
  });
  const call = request(1, "tools/call", { name: "get_order" });
  for (const [principal, denied] of [["__proto__", true], ["alice", false]] as const) {
    const transport = new MemoryTransport([call]);
    await server.connect(transport, { principal });
    const reply = transport.replies[0];
    if (denied) assert.equal(errorOf(reply).code, ErrorCode.AccessDenied, principal);
    else resultOf(reply);
  }
  assert.deepEqual(entries.map((entry) => [entry.principal, entry.outcome]), [
    ["__proto__", "denied"],
    ["alice", "ok"],
  ]);
});

Deno.test("loadPolicyFile() says which file it could not read", async () => {
  const dir = await Deno.makeTempDir({ prefix: "warden-policy-" });
  try {
    const missing = `${dir}/missing.jsonc`;
    await assert.rejects(loadPolicyFile(missing), (error: unknown) => {
      assert.ok(error instanceof Error);
      assert.equal(
        error.message,
        `Cannot read policy ${missing}: ENOENT: no such file or directory, open '${missing}'`,
      );
      return true;
    });
    // A bad file on disk is named by its path in the message.
    const bad = `${dir}/bad.jsonc`;
    await Deno.writeTextFile(bad, '{\n  "audit": "stderr"\n  "principal": "a"\n}\n');
    await assert.rejects(
      loadPolicyFile(bad),
      SyntaxError,
      `Cannot parse policy ${bad}: expected ',' at 3:3`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("loadPolicyFile() loads examples/policy.jsonc", async () => {
  const path = new URL("../../examples/policy.jsonc", import.meta.url).pathname;
  assert.deepEqual(await loadPolicyFile(path), {
    access: { tools: { deny: ["cancel_order"] } },
    rateLimit: {
      rules: [{ scope: "tool", match: ["get_order"], capacity: 5, refillPerSecond: 1 }],
    },
    redact: { presets: true, patterns: ["ODK-[A-Za-z0-9]{24,}"] },
    audit: "stderr",
    quotas: { inflightCalls: 8, listenStreams: 4, tasks: 20 },
  });
});
