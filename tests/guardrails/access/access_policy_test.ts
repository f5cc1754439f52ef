import assert from "node:assert/strict";
import {
  type AccessPolicy,
  accessPolicy,
  compileAccessPolicy,
  decideAccess,
  type ItemKind,
} from "../../../src/guardrails/access/access_policy.ts";
import { compileGlob, MAX_GLOB_LENGTH } from "../../../src/guardrails/access/glob.ts";
import { testContext } from "../../_helpers/helpers.ts";

/** Calls compileAccessPolicy with a value the type checker would reject, as a JSON config could. */
function compileUnchecked(options: unknown): AccessPolicy {
  return Reflect.apply(compileAccessPolicy, undefined, [options]);
}

Deno.test("compileGlob() matches whole names with `*` as the only wildcard", () => {
  const cases: [pattern: string, name: string, expected: boolean][] = [
    ["get_order", "get_order", true],
    ["get_order", "get_orders", false],
    ["get_order", "xget_order", false],
    ["*", "", true],
    ["*", "a/b/c", true],
    ["*_order", "get_order", true],
    ["*_order", "_order", true],
    ["*_order", "get_order_items", false],
    ["orders://*", "orders://42/lines", true],
    ["orders://*", "orders://", true],
    ["orders://*", "orders:/42", false],
    ["a*b*c", "abc", true],
    ["a*b*c", "aXbYc", true],
    ["a*b*c", "acb", false],
    ["a*a", "a", false],
    ["a*a", "aa", true],
    ["ab*ba", "aba", false],
    ["a*b*bc", "abc", false],
    ["a*b*bc", "abbc", true],
    ["a**b", "ab", true],
    ["*ab*ab*", "xabab", true],
    ["*aab", "aaab", true],
    ["?", "a", false],
    ["?", "?", true],
    [".", "a", false],
    ["[a]", "a", false],
    ["[a]", "[a]", true],
    ["a+", "aa", false],
    ["Get", "get", false],
  ];
  for (const [pattern, name, expected] of cases) {
    assert.equal(compileGlob(pattern)(name), expected, `${pattern} against ${name}`);
  }
});

Deno.test("compileGlob() stays linear on adversarial names", () => {
  const name = "a".repeat(100_000);
  const started = performance.now();
  assert.equal(compileGlob("*a*a*a*a*a*b")(name), false);
  assert.equal(compileGlob("*a*a*a*a*a*b*a")(name), false);
  assert.equal(compileGlob("*a*a*a*a*b*c")(`${name}c`), false);
  assert.equal(compileGlob("*a*a*a*a*a*a")(name), true);
  // A backtracking matcher needs on the order of 100 000^5 steps here.
  assert.ok(performance.now() - started < 1000, "took longer than a second");
});

Deno.test("compileGlob() rejects patterns that are not strings, empty or too long", () => {
  assert.equal(compileGlob("x".repeat(MAX_GLOB_LENGTH))("x".repeat(MAX_GLOB_LENGTH)), true);
  assert.throws(() => compileGlob(""), new RangeError("Invalid glob: glob is empty"));
  assert.throws(
    () => compileGlob("x".repeat(MAX_GLOB_LENGTH + 1)),
    new RangeError("Invalid glob: glob has 513 characters, the limit is 512"),
  );
  assert.throws(
    () => Reflect.apply(compileGlob, undefined, [42]),
    new TypeError("Invalid glob: expected a glob string, got number"),
  );
  assert.equal(compileGlob("*")(JSON.parse("42")), false);
});

const policy = compileAccessPolicy({
  tools: { allow: ["get_*", "list_*"], deny: ["get_secret"] },
  resources: { allow: ["orders://*"] },
  prompts: { deny: ["*_internal"] },
  principals: {
    admin: { tools: { allow: ["*"] } },
    intern: { tools: { deny: ["list_*"] } },
    auditor: { tools: { allow: [] } },
  },
});

Deno.test("decideAccess() applies deny over allow, allow lists and principal rules", () => {
  const cases: [principal: string | undefined, kind: ItemKind, name: string, allowed: boolean][] = [
    // The rules for everyone.
    [undefined, "tool", "get_order", true],
    [undefined, "tool", "list_orders", true],
    [undefined, "tool", "get_secret", false], // deny beats allow
    [undefined, "tool", "delete_order", false], // an allow list closes the world
    // A principal's allow list replaces the one for everyone; deny still applies.
    ["admin", "tool", "delete_order", true],
    ["admin", "tool", "get_secret", false],
    // A principal's deny list adds to the one for everyone.
    ["intern", "tool", "list_orders", false],
    ["intern", "tool", "get_order", true],
    ["intern", "tool", "delete_order", false],
    // An empty allow list hides every item of the kind.
    ["auditor", "tool", "get_order", false],
    ["auditor", "resource", "orders://1", true],
    // Unknown principals get the rules for everyone; names are case-sensitive.
    ["mallory", "tool", "get_order", true],
    ["mallory", "tool", "delete_order", false],
    ["Admin", "tool", "delete_order", false],
    ["admin ", "tool", "delete_order", false],
    // Resources by URI, prompts with no allow list.
    [undefined, "resource", "orders://42", true],
    [undefined, "resource", "orders://", true],
    [undefined, "resource", "orders:/42", false],
    [undefined, "resource", "users://1", false],
    ["admin", "resource", "users://1", false],
    [undefined, "prompt", "summary", true],
    [undefined, "prompt", "summary_internal", false],
    ["admin", "prompt", "summary_internal", false],
  ];
  for (const [principal, kind, name, allowed] of cases) {
    const decision = decideAccess(policy, principal, kind, name);
    assert.equal(decision.allowed, allowed, `${principal} ${kind} ${name}`);
  }
});

Deno.test("decideAccess() names the deciding rule in its reason", () => {
  const reason = (principal: string | undefined, kind: ItemKind, name: string) =>
    decideAccess(policy, principal, kind, name).reason;
  assert.equal(reason(undefined, "tool", "get_secret"), 'denied by tools.deny[0] "get_secret"');
  assert.equal(reason(undefined, "tool", "list_orders"), 'allowed by tools.allow[1] "list_*"');
  assert.equal(reason(undefined, "tool", "delete_order"), "not in tools.allow");
  assert.equal(reason("auditor", "tool", "get_order"), 'not in principals["auditor"].tools.allow');
  assert.equal(
    reason("intern", "tool", "list_orders"),
    'denied by principals["intern"].tools.deny[0] "list_*"',
  );
  assert.equal(reason(undefined, "prompt", "summary"), "no allow list");
  const first = decideAccess(policy, undefined, "tool", "get_secret");
  first.allowed = true;
  first.reason = "changed by the caller";
  assert.deepEqual(decideAccess(policy, undefined, "tool", "get_secret"), {
    allowed: false,
    reason: 'denied by tools.deny[0] "get_secret"',
  }, "each decision is the caller's own copy");
});

Deno.test("accessPolicy() passes allowed calls on and rejects, not throws, when onDenied fails", async () => {
  const guardrail = accessPolicy({ tools: { deny: ["drop_*"] } }, {
    onDenied: () => {
      throw new Error("reporter broke");
    },
  });
  const call = (name: string) => ({
    kind: "tool" as const,
    method: "tools/call",
    name,
    arguments: {},
    context: testContext("alice"),
  });
  const passed = { status: "ok" as const, result: { content: [] } };
  assert.equal(await guardrail.run(call("get_order"), () => Promise.resolve(passed)), passed);
  const refused = guardrail.run(call("drop_table"), () => assert.fail("next() was called"));
  assert.ok(refused instanceof Promise);
  await assert.rejects(refused, new Error("reporter broke"));

  const quiet = accessPolicy({ tools: { deny: ["drop_*"] } });
  const outcome = await quiet.run(call("drop_table"), () => assert.fail("next() was called"));
  assert.ok("error" in outcome);
  assert.equal(outcome.status, "denied");
  assert.equal(outcome.error.code, -32001);
  assert.equal(outcome.error.message, 'Access denied: tool "drop_table"');
});

Deno.test("decideAccess() lets no near-miss name past an exact allow list", () => {
  const exact = compileAccessPolicy({ tools: { allow: ["get_order", "r\u00e9sum\u00e9"] } });
  assert.equal(decideAccess(exact, undefined, "tool", "get_order").allowed, true);
  assert.equal(decideAccess(exact, undefined, "tool", "r\u00e9sum\u00e9").allowed, true);
  const nearMisses = [
    "Get_Order",
    "GET_ORDER",
    "get_order ",
    " get_order",
    "get_order\u0000",
    "get_order\n",
    "get_\u043erder", // Cyrillic о
    "r\u00e9sum\u00e9".normalize("NFD"),
    "R\u00e9sum\u00e9",
    `get_order${"x".repeat(10_000)}`,
    "",
    "__proto__",
    "constructor",
    "toString",
    "*",
  ];
  for (const name of nearMisses) {
    assert.equal(decideAccess(exact, undefined, "tool", name).allowed, false, JSON.stringify(name));
  }
});

Deno.test("decideAccess() denies exactly what a deny list names, odd names included", () => {
  const longest = "t".repeat(MAX_GLOB_LENGTH);
  const long = `admin_${"x".repeat(10_000)}`;
  const decomposed = "cafe\u0301"; // NFD form of "café"
  const odd = compileAccessPolicy({
    tools: {
      deny: ["__proto__", "constructor", "get_order\u0000", longest, decomposed, "admin_*"],
    },
  });
  const cases: [name: string, allowed: boolean][] = [
    ["__proto__", false],
    ["constructor", false],
    ["get_order\u0000", false],
    [longest, false],
    [long, false],
    [decomposed, false],
    ["caf\u00e9", true], // NFC is a different name
    ["get_order", true],
    [`${longest}t`, true],
    ["hasOwnProperty", true],
  ];
  for (const [name, allowed] of cases) {
    assert.equal(decideAccess(odd, undefined, "tool", name).allowed, allowed, name.slice(0, 20));
  }
  const everything = compileAccessPolicy({ tools: { deny: ["*"] } });
  for (const name of ["", "__proto__", long, "get_order"]) {
    assert.equal(decideAccess(everything, undefined, "tool", name).allowed, false);
  }
});

Deno.test("decideAccess() looks principals up without reaching Object.prototype", () => {
  const parsed = compileUnchecked(JSON.parse(
    '{"tools":{"allow":["get_*"]},"principals":{"__proto__":{"tools":{"allow":["*"]}}}}',
  ));
  assert.equal(decideAccess(parsed, "__proto__", "tool", "delete_order").allowed, true);
  for (const principal of ["constructor", "toString", "hasOwnProperty", "valueOf"]) {
    assert.equal(decideAccess(parsed, principal, "tool", "delete_order").allowed, false);
    assert.equal(decideAccess(parsed, principal, "tool", "get_order").allowed, true);
  }
});

Deno.test("decideAccess() denies malformed input at run time", () => {
  assert.deepEqual(decideAccess(policy, undefined, "prompt", JSON.parse("42")), {
    allowed: false,
    reason: "name is not a string",
  });
  assert.equal(decideAccess(policy, undefined, JSON.parse('"tools"'), "get_order").allowed, false);
  assert.equal(decideAccess(policy, undefined, JSON.parse('"__proto__"'), "x").allowed, false);
  assert.equal(decideAccess(policy, JSON.parse("1"), "tool", "get_order").allowed, true);
  assert.throws(
    () => decideAccess({ type: "warden.access-policy" }, undefined, "tool", "get_order"),
    new TypeError("Invalid access policy: expected a policy from compileAccessPolicy()"),
  );
});

Deno.test("compileAccessPolicy() returns a frozen policy unaffected by later edits", () => {
  const allow = ["get_*"];
  const compiled = compileAccessPolicy({ tools: { allow } });
  allow.push("*");
  assert.ok(Object.isFrozen(compiled));
  assert.equal(decideAccess(compiled, undefined, "tool", "delete_order").allowed, false);
  assert.equal(decideAccess(compileAccessPolicy({}), undefined, "tool", "x").allowed, true);
  const undefinedKeys = compileUnchecked({ tools: undefined, principals: { a: undefined } });
  assert.equal(decideAccess(undefinedKeys, "a", "tool", "x").allowed, true);
});

Deno.test("compileAccessPolicy() reports configuration errors with their path", () => {
  const cases: [options: unknown, error: Error][] = [
    [null, new TypeError("Invalid access policy: the top level must be object, got null")],
    [[], new TypeError("Invalid access policy: the top level must be object, got array")],
    [
      { tool: {} },
      new TypeError(
        'Invalid access policy: unknown key "tool" at the top level, expected one of tools, resources, prompts, principals',
      ),
    ],
    [
      JSON.parse('{"__proto__":{}}'),
      new TypeError(
        'Invalid access policy: unknown key "__proto__" at the top level, expected one of tools, resources, prompts, principals',
      ),
    ],
    [
      { tools: { alow: ["*"] } },
      new TypeError(
        'Invalid access policy: unknown key "alow" at tools, expected one of allow, deny',
      ),
    ],
    [
      { tools: new Map() },
      new TypeError("Invalid access policy: tools must be a plain object, got Map"),
    ],
    [
      { prompts: { allow: "get_*" } },
      new TypeError("Invalid access policy: prompts.allow must be array, got string"),
    ],
    [
      { tools: { deny: ["ok", 1] } },
      new TypeError("Invalid access policy: tools.deny[1] must be string, got number"),
    ],
    [
      { resources: { deny: [""] } },
      new RangeError("Invalid access policy: glob is empty at resources.deny[0]"),
    ],
    [
      { tools: { allow: ["x".repeat(600)] } },
      new RangeError(
        "Invalid access policy: glob has 600 characters at tools.allow[0], the limit is 512",
      ),
    ],
    [
      { principals: [] },
      new TypeError("Invalid access policy: principals must be object, got array"),
    ],
    [
      { principals: { "a.b": { tools: { deny: ["ok", null] } } } },
      new TypeError(
        'Invalid access policy: principals["a.b"].tools.deny[1] must be string, got null',
      ),
    ],
    [
      { principals: { alice: { principals: {} } } },
      new TypeError(
        'Invalid access policy: unknown key "principals" at principals.alice, expected one of tools, resources, prompts',
      ),
    ],
    [
      { principals: { alice: "admin" } },
      new TypeError("Invalid access policy: principals.alice must be object, got string"),
    ],
  ];
  for (const [options, error] of cases) {
    assert.throws(() => compileUnchecked(options), error);
  }
});

Deno.test("decideAccess() decides a resource URI on its canonical, sent, decoded and host-folded forms", () => {
  const policy = compileAccessPolicy({
    resources: {
      deny: ["file:///data/secret*", "notes://internal/*", "x://h/a,b", "FILE:///d%61ta/hidden/*"],
    },
  });
  const allowList = compileAccessPolicy({ resources: { allow: ["orders://ORD-*"] } });
  const cases: [policy: AccessPolicy, uri: string, allowed: boolean, reason: RegExp][] = [
    [policy, "file:///data/%73ecret.txt", false, /deny\[0\]/],
    [policy, "FILE:///data/x/../secret.txt", false, /deny\[0\]/],
    [policy, "notes://INTERNAL/memo", false, /deny\[1\]/],
    [policy, "x://h/a%2Cb", false, /deny\[2\]/],
    [policy, "file:///data/hidden/x", false, /deny\[3\]/],
    [policy, "file:///data/a%2Fb", false, /no canonical form/],
    [policy, "file:///data/public/x", true, /no allow list/],
    [allowList, "orders://ORD-1", true, /allow\[0\]/],
    [allowList, "orders://%4FRD-1", false, /not in resources.allow/],
    [allowList, "ORDERS://ORD-1", false, /not in resources.allow/],
    [allowList, "orders://ord-1", false, /not in resources.allow/],
  ];
  for (const [rules, uri, allowed, reason] of cases) {
    const decision = decideAccess(rules, undefined, "resource", uri);
    assert.equal(decision.allowed, allowed, uri);
    assert.match(decision.reason ?? "", reason, uri);
  }
  // Tool and prompt names are exact strings: no URI rule applies to them.
  const tools = compileAccessPolicy({ tools: { deny: ["FILE:///x"] } });
  assert.ok(decideAccess(tools, undefined, "tool", "file:///x").allowed);
  assert.throws(
    () => compileAccessPolicy({ resources: { deny: ["x://h/%2F*"] } }),
    /glob encodes a path separator.*at resources\.deny\[0\]/,
  );
});
